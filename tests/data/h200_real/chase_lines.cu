// How long one warp load waits when its lanes touch k distinct lines, k = 1..32.
//
//   ./chase_lines OUT.csv
//
// One warp (a block of 32 threads).  Lanes 0..k-1 each follow their own stretch of
// one random single cycle of 128-byte lines (Sattolo's shuffle, as probes.cu's chase);
// lanes k..31 are masked off.  Every step is one warp load whose k lanes touch k
// distinct lines, and each lane's next address is the word it just loaded, so the
// warp cannot issue the next step before its slowest lane has its data: the time per
// step is the latency of a request of k scattered lines.  k = 1 is probes.cu's lone
// dependent load.
//
// Working sets: 4 MiB read once beforehand (L2 hits), 128 MiB and 1 GiB (DRAM).  In
// the DRAM sets every (k, run) walks lines no earlier configuration touched, so
// nothing it reads is already in the L2; the 4 MiB set is walked again and again.
// clock64 and %globaltimer around the timed steps give cycles and ns per step.
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o chase_lines chase_lines.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)

__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void chase_lines(const unsigned* __restrict__ next, const unsigned* __restrict__ start,
                                       int k, int steps, long long* cycles, unsigned long long* ns,
                                       unsigned* sink) {
  int lane = threadIdx.x;
  bool on = lane < k;
  unsigned j = start[lane];
  __syncwarp();
  long long c0 = clock64();
  unsigned long long g0 = globaltimer();
  for (int s = 0; s < steps; ++s)
    if (on) j = next[j];
  __syncwarp();
  long long c1 = clock64();
  unsigned long long g1 = globaltimer();
  if (lane == 0) {
    cycles[0] = c1 - c0;
    ns[0] = g1 - g0;
  }
  sink[lane] = j;
}

extern "C" __global__ void touch(const unsigned* a, size_t n, unsigned* sink) {
  unsigned s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    s += a[i];
  if (s == 0x12345678u) sink[0] = s;
}

// A random single cycle over `lines` lines: the visiting order, and next[32 * line] = 32 * successor.
static void cycle(size_t lines, uint64_t seed, std::vector<unsigned>& order, std::vector<unsigned>& next) {
  order.resize(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = (unsigned)i;
  uint64_t s = seed;
  for (size_t i = lines - 1; i > 0; --i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    size_t j = (size_t)((s >> 33) % i);
    std::swap(order[i], order[j]);
  }
  next.assign(lines * 32, 0u);
  for (size_t i = 0; i < lines; ++i) next[(size_t)order[i] * 32] = order[(i + 1) % lines] * 32;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.csv\n", argv[0]); return 2; }
  FILE* f = fopen(argv[1], "w");
  if (!f) { perror(argv[1]); return 1; }
  const char* header = "probe,level_expected,working_set_bytes,lanes,steps,run,cycles,ns,cycles_per_step,ns_per_step,clock_ghz\n";
  fputs(header, f);
  fputs(header, stdout);
  long long* dcyc; unsigned long long* dns; unsigned *dsink, *dstart;
  CHECK(cudaMalloc(&dcyc, sizeof(long long)));
  CHECK(cudaMalloc(&dns, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dsink, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&dstart, 32 * sizeof(unsigned)));
  struct Set { const char* level; size_t bytes; int steps; bool fresh; };
  const Set sets[] = {{"L2", 4u << 20, 1000, false}, {"DRAM", 128u << 20, 1800, true}, {"DRAM", 1u << 30, 5000, true}};
  const int ks[] = {1, 2, 4, 8, 16, 32};
  const int runs = 3;
  std::vector<unsigned> order, next;
  for (const Set& s : sets) {
    size_t lines = s.bytes / 128;
    size_t stretch = lines / 32;  // lane l walks positions [l * stretch, (l + 1) * stretch) of the cycle
    cycle(lines, 0x9E3779B97F4A7C15ULL ^ lines, order, next);
    unsigned* d;
    CHECK(cudaMalloc(&d, sizeof(unsigned) * next.size()));
    CHECK(cudaMemcpy(d, next.data(), sizeof(unsigned) * next.size(), cudaMemcpyHostToDevice));
    if (!s.fresh) {
      touch<<<132 * 4, 256>>>(d, next.size(), dsink);
      CHECK(cudaDeviceSynchronize());
    }
    size_t offset = 0;
    for (int k : ks) {
      for (int run = 0; run < runs; ++run) {
        if (s.fresh && offset + s.steps > stretch) { fprintf(stderr, "set too small\n"); return 1; }
        unsigned start[32];
        for (int l = 0; l < 32; ++l) start[l] = order[(size_t)l * stretch + (s.fresh ? offset : 0)] * 32;
        CHECK(cudaMemcpy(dstart, start, sizeof start, cudaMemcpyHostToDevice));
        chase_lines<<<1, 32>>>(d, dstart, k, s.steps, dcyc, dns, dsink);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (s.fresh) offset += s.steps;
        long long cyc; unsigned long long ns;
        CHECK(cudaMemcpy(&cyc, dcyc, sizeof cyc, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&ns, dns, sizeof ns, cudaMemcpyDeviceToHost));
        char line[512];
        snprintf(line, sizeof line, "chase_lines,%s,%zu,%d,%d,%d,%lld,%llu,%.2f,%.2f,%.3f\n", s.level, s.bytes, k,
                 s.steps, run, cyc, ns, (double)cyc / s.steps, (double)ns / s.steps, ns ? (double)cyc / ns : 0.0);
        fputs(line, f);
        fputs(line, stdout);
      }
    }
    CHECK(cudaFree(d));
  }
  fclose(f);
  return 0;
}
