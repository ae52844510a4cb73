// Probes of the H200 memory system that the model's parameters rest on.
//
//   ./probes counters   pitch sweep and L1 line-throughput launches (profile these with ncu)
//   ./probes chase OUT  pointer chases; writes OUT (CSV) and prints the same rows
//
// (a) pitch_walk: each lane walks its own row of a matrix whose pitch is 2^k or
//     2^k + 1 floats (k = 8..13).  32 blocks of 512 lanes, 256 floats (1 KiB, 8 lines)
//     per row, 4 passes.  Per block 512 KiB are touched, twice the L1, but at any
//     moment a block's lanes hold one line each (64 KiB): with an unhashed set index
//     a power-of-two pitch puts those lines into a few sets and the L1 loses the line
//     before its next 31 reads.  The 16 MiB touched in all fit the L2, so passes 2-4
//     hit there unless its set index folds the rows onto a few sets too.
// (b) chase: one thread follows a random single-cycle permutation of 128-byte lines
//     (dependent loads); clock64 and %globaltimer around the timed steps give cycles
//     and ns per load.  Working sets from 16 KiB (L1) to 1 GiB (DRAM), and one in
//     shared memory.
// (c) l1_lines / l1_lines_spread / l1_lines_v4: every warp load touches k distinct
//     128-byte lines (k = 1..32) of an 8 KiB block-private region read once
//     beforehand, so every load hits in L1.  l1_lines: lane l reads word l / k of line
//     l % k, so lanes in different lines share a bank (k-way) and touch max(4, k)
//     sectors; l1_lines_spread: lane l reads word l (no two lanes share a bank),
//     min(4k, 32) sectors; l1_lines_v4: 16-byte loads, 16 sectors for k = 4, 8, 16 and
//     32 for k = 32.  Tag lookups (lines), sectors and bank conflicts vary separately.
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o probes probes.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)

extern "C" __global__ void pitch_walk(const float* a, float* out, int pitch, int cols, int reps) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const float* p = a + (size_t)row * pitch;
  float s = 0.0f;
  for (int r = 0; r < reps; ++r)
    for (int j = 0; j < cols; ++j) s += p[j];
  out[row] = s;
}

#define REGION_FLOATS 2048  // 64 lines of 32 floats: 8 KiB per block
extern "C" __global__ void l1_lines(const float* __restrict__ a, float* out, int k, int iters) {
  const float* base = a + (size_t)blockIdx.x * REGION_FLOATS;
  int lane = threadIdx.x & 31;
  float s0 = 0.0f, s1 = 0.0f;
  for (int w = threadIdx.x; w < REGION_FLOATS; w += blockDim.x) s0 += base[w];  // bring the region into L1
  __syncthreads();
  const float* mine = base + (lane % k) * 32 + lane / k;  // lane -> line lane % k, word lane / k
  int pos = 0;
  for (int it = 0; it < iters; it += 2) {
    s0 += mine[(pos & 63) * 32];
    pos += k;
    s1 += mine[(pos & 63) * 32];
    pos += k;
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s0 + s1;
}

// As l1_lines, but lane l reads word l of its line, so the 32 lanes use 32 different
// banks: k lines and min(4k, 32) sectors with no bank conflict.
extern "C" __global__ void l1_lines_spread(const float* __restrict__ a, float* out, int k, int iters) {
  const float* base = a + (size_t)blockIdx.x * REGION_FLOATS;
  int lane = threadIdx.x & 31;
  float s0 = 0.0f, s1 = 0.0f;
  for (int w = threadIdx.x; w < REGION_FLOATS; w += blockDim.x) s0 += base[w];
  __syncthreads();
  const float* mine = base + (lane % k) * 32 + lane;  // lane -> line lane % k, word lane
  int pos = 0;
  for (int it = 0; it < iters; it += 2) {
    s0 += mine[(pos & 63) * 32];
    pos += k;
    s1 += mine[(pos & 63) * 32];
    pos += k;
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s0 + s1;
}

extern "C" __global__ void l1_lines_v4(const float4* __restrict__ a, float* out, int k, int iters) {
  const float4* base = a + (size_t)blockIdx.x * (REGION_FLOATS / 4);
  int lane = threadIdx.x & 31;
  float s0 = 0.0f, s1 = 0.0f;
  for (int w = threadIdx.x; w < REGION_FLOATS / 4; w += blockDim.x) s0 += base[w].x;
  __syncthreads();
  const float4* mine = base + (lane % k) * 8 + lane / k;  // k >= 4: at most 8 float4 per line
  int pos = 0;
  for (int it = 0; it < iters; it += 2) {
    float4 v = mine[(pos & 63) * 8];
    s0 += v.x + v.y + v.z + v.w;
    pos += k;
    float4 u = mine[(pos & 63) * 8];
    s1 += u.x + u.y + u.z + u.w;
    pos += k;
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s0 + s1;
}

__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread: `warm` untimed steps, then `steps` timed dependent loads.
extern "C" __global__ void chase(const unsigned* __restrict__ next, unsigned start, int warm, int steps,
                                 long long* cycles, unsigned long long* ns, unsigned* sink) {
  unsigned j = start;
  for (int s = 0; s < warm; ++s) j = next[j];
  long long c0 = clock64();
  unsigned long long g0 = globaltimer();
  for (int s = 0; s < steps; ++s) j = next[j];
  long long c1 = clock64();
  unsigned long long g1 = globaltimer();
  cycles[0] = c1 - c0;
  ns[0] = g1 - g0;
  sink[0] = j;
}

#define SHARED_WORDS 4096  // 16 KiB of shared memory, one word per 4 bytes
extern "C" __global__ void chase_shared(const unsigned* next, int steps, long long* cycles,
                                        unsigned long long* ns, unsigned* sink) {
  __shared__ unsigned sh[SHARED_WORDS];
  for (int w = threadIdx.x; w < SHARED_WORDS; w += blockDim.x) sh[w] = next[w];
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned j = 0;
  for (int s = 0; s < SHARED_WORDS; ++s) j = sh[j];
  long long c0 = clock64();
  unsigned long long g0 = globaltimer();
  for (int s = 0; s < steps; ++s) j = sh[j];
  long long c1 = clock64();
  unsigned long long g1 = globaltimer();
  cycles[0] = c1 - c0;
  ns[0] = g1 - g0;
  sink[0] = j;
}

static uint32_t hash32(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16; return x;
}

extern "C" __global__ void fill(float* a, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < n; i += (size_t)gridDim.x * blockDim.x) a[i] = 1.0f + (float)(i % 1021) * 1e-3f;
}

static void counters() {
  // (a) pitch sweep
  const int blocks = 32, threads = 512, cols = 256, reps = 4;
  const size_t rows = (size_t)blocks * threads, max_pitch = 8193;
  float *a, *out;
  CHECK(cudaMalloc(&a, sizeof(float) * rows * max_pitch));
  CHECK(cudaMalloc(&out, sizeof(float) * 132 * 8 * 256));  // the larger of the two grids
  fill<<<1024, 256>>>(a, rows * max_pitch);
  CHECK(cudaGetLastError());
  for (int k = 8; k <= 13; ++k) {
    for (int extra = 0; extra <= 1; ++extra) {
      int pitch = (1 << k) + extra;
      pitch_walk<<<blocks, threads>>>(a, out, pitch, cols, reps);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      float s;
      CHECK(cudaMemcpy(&s, out, sizeof(float), cudaMemcpyDeviceToHost));
      printf("pitch_walk pitch %d floats: row 0 sum %.3f (expected %.3f)\n", pitch, s,
             [&] { double e = 0; for (int j = 0; j < cols; ++j) e += 1.0 + (j % 1021) * 1e-3; return reps * e; }());
    }
  }
  // (c) L1 line throughput
  const int lblocks = 132 * 8, lthreads = 256, iters = 2048;
  for (int k : {1, 2, 4, 8, 16, 32}) {
    l1_lines<<<lblocks, lthreads>>>(a, out, k, iters);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("l1_lines k=%d done\n", k);
  }
  for (int k : {1, 2, 4, 8, 16, 32}) {
    l1_lines_spread<<<lblocks, lthreads>>>(a, out, k, iters);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("l1_lines_spread k=%d done\n", k);
  }
  for (int k : {4, 8, 16, 32}) {
    l1_lines_v4<<<lblocks, lthreads>>>((const float4*)a, out, k, iters);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("l1_lines_v4 k=%d done\n", k);
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(out));
}

// A random single cycle over `lines` 128-byte lines (Sattolo's shuffle), as element
// indices: next[32 * line] = 32 * successor.
static std::vector<unsigned> cycle(size_t lines, uint64_t seed) {
  std::vector<unsigned> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = (unsigned)i;
  uint64_t s = seed;
  for (size_t i = lines - 1; i > 0; --i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    size_t j = (size_t)((s >> 33) % i);  // j < i: a single cycle
    std::swap(order[i], order[j]);
  }
  std::vector<unsigned> next(lines * 32, 0u);
  for (size_t i = 0; i < lines; ++i) next[(size_t)order[i] * 32] = order[(i + 1) % lines] * 32;
  return next;
}

static void chases(const char* path) {
  FILE* f = fopen(path, "w");
  if (!f) { perror(path); exit(1); }
  const char* header = "probe,level_expected,working_set_bytes,warm_steps,steps,run,cycles,ns,cycles_per_load,ns_per_load,clock_ghz\n";
  fputs(header, f);
  fputs(header, stdout);
  long long* dcyc; unsigned long long* dns; unsigned* dsink;
  CHECK(cudaMalloc(&dcyc, sizeof(long long)));
  CHECK(cudaMalloc(&dns, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dsink, sizeof(unsigned)));
  auto report = [&](const char* probe, const char* level, size_t bytes, long warm, int steps, int run) {
    long long cyc; unsigned long long ns;
    CHECK(cudaMemcpy(&cyc, dcyc, sizeof(cyc), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&ns, dns, sizeof(ns), cudaMemcpyDeviceToHost));
    char line[512];
    snprintf(line, sizeof line, "%s,%s,%zu,%ld,%d,%d,%lld,%llu,%.2f,%.2f,%.3f\n", probe, level, bytes, warm, steps, run,
             cyc, ns, (double)cyc / steps, (double)ns / steps, ns ? (double)cyc / ns : 0.0);
    fputs(line, f);
    fputs(line, stdout);
  };
  struct Set { const char* level; size_t bytes; };
  const Set sets[] = {{"L1", 16u << 10}, {"L1", 64u << 10}, {"L2", 4u << 20}, {"L2", 8u << 20},
                      {"L2", 32u << 20}, {"DRAM", 128u << 20}, {"DRAM", 1u << 30}};
  for (const Set& s : sets) {
    size_t lines = s.bytes / 128;
    auto next = cycle(lines, 0x9E3779B97F4A7C15ULL ^ lines);
    unsigned* d;
    CHECK(cudaMalloc(&d, sizeof(unsigned) * next.size()));
    CHECK(cudaMemcpy(d, next.data(), sizeof(unsigned) * next.size(), cudaMemcpyHostToDevice));
    // Warm caches that should hold the set (two laps for L1, one for L2); none for DRAM.
    long warm = strcmp(s.level, "L1") == 0 ? 2 * (long)lines : strcmp(s.level, "L2") == 0 ? (long)lines : 0;
    int steps = strcmp(s.level, "L1") == 0 ? 200000 : 100000;
    unsigned start = 0;
    for (int run = 0; run < 3; ++run) {
      // each run starts where the last one stopped, so a DRAM run never re-reads lines
      // an earlier run left in the L2
      for (long s2 = 0; run > 0 && s2 < warm + steps; ++s2) start = next[start];
      chase<<<1, 1>>>(d, start, (int)warm, steps, dcyc, dns, dsink);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      report("chase_global", s.level, s.bytes, warm, steps, run);
    }
    CHECK(cudaFree(d));
  }
  {  // shared memory: a random single cycle over 4096 words
    std::vector<unsigned> order(SHARED_WORDS), next(SHARED_WORDS);
    for (int i = 0; i < SHARED_WORDS; ++i) order[i] = i;
    for (int i = SHARED_WORDS - 1; i > 0; --i) std::swap(order[i], order[hash32(i) % i]);
    for (int i = 0; i < SHARED_WORDS; ++i) next[order[i]] = order[(i + 1) % SHARED_WORDS];
    unsigned* d;
    CHECK(cudaMalloc(&d, sizeof(unsigned) * SHARED_WORDS));
    CHECK(cudaMemcpy(d, next.data(), sizeof(unsigned) * SHARED_WORDS, cudaMemcpyHostToDevice));
    for (int run = 0; run < 3; ++run) {
      chase_shared<<<1, 256>>>(d, 200000, dcyc, dns, dsink);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      report("chase_shared", "shared", SHARED_WORDS * 4, SHARED_WORDS, 200000, run);
    }
    CHECK(cudaFree(d));
  }
  fclose(f);
}

int main(int argc, char** argv) {
  if (argc >= 2 && !strcmp(argv[1], "counters")) counters();
  else if (argc >= 3 && !strcmp(argv[1], "chase")) chases(argv[2]);
  else { fprintf(stderr, "usage: %s counters | chase OUT.csv\n", argv[0]); return 2; }
  return 0;
}
