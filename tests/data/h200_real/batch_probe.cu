// Batched-load probe for the nvidia-h200 target (PROBES.md, "Loads of independent loop
// iterations").  Build: nvcc -O3 -arch=sm_90 batch_probe.cu -o batch_probe
//
// Every warp runs a loop whose body issues U independent loads, then uses them all (the
// shape nvcc gives a loop that stores nothing once it has unrolled it U times).  Each load
// is a warp request whose 32 lanes read 32 different 128-byte lines picked by a hash over a
// working set sized to stay in L1 (32 KiB), in L2 (16 MiB) or to come from DRAM (1 GiB).
// One block of W warps per SM (132 blocks).  Prints SM cycles per body (clock64 around the
// loop, mean over warps) for U = 1..32 and W = 4, 16: a body costs about one round trip
// plus what U requests cost the SM's memory pipeline.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("error %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

__device__ __forceinline__ uint32_t mix(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16; return x;
}

template <int U>
__global__ void batch(const float* __restrict__ buf, uint32_t line_mask, int iters, float* out,
                      long long* cycles) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31;
  float acc = 0.0f;
  __syncwarp();
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
    float v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      uint32_t line = mix(tid * 977u + (uint32_t)it * 131u + (uint32_t)u * 7919u) & line_mask;
      v[u] = __ldg(buf + (size_t)line * 32 + lane);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) acc += v[u];
  }
  long long t1 = clock64();
  out[tid] = acc;
  if (lane == 0) cycles[tid / 32] = t1 - t0;
}

template <int U>
static double run(const float* buf, uint32_t lines, int warps, float* out, long long* dcyc, int sms) {
  const int iters = 4096 / U > 64 ? 4096 / U : 64;
  batch<U><<<sms, warps * 32>>>(buf, lines - 1, iters, out, dcyc);  // warm
  batch<U><<<sms, warps * 32>>>(buf, lines - 1, iters, out, dcyc);
  cudaDeviceSynchronize();
  std::vector<long long> c(sms * warps);
  cudaMemcpy(c.data(), dcyc, c.size() * sizeof(long long), cudaMemcpyDeviceToHost);
  double s = 0;
  for (long long x : c) s += (double)x;
  return s / c.size() / iters;
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const size_t max_bytes = (size_t)1 << 30;
  float* buf; float* out; long long* dcyc;
  CHECK(cudaMalloc(&buf, max_bytes)); CHECK(cudaMemset(buf, 0, max_bytes));
  CHECK(cudaMalloc(&out, sms * 32 * 32 * sizeof(float))); CHECK(cudaMalloc(&dcyc, sms * 32 * sizeof(long long)));
  const struct { const char* level; size_t bytes; } sets[] = {{"L1", 32u << 10}, {"L2", 16u << 20}, {"DRAM", max_bytes}};
  printf("level,warps_per_sm,U,cycles_per_body\n");
  for (auto s : sets) {
    uint32_t lines = (uint32_t)(s.bytes / 128);
    for (int w : {4, 16}) {
#define R(U) printf("%s,%d,%d,%.1f\n", s.level, w, U, run<U>(buf, lines, w, out, dcyc, sms));
      R(1) R(2) R(4) R(8) R(16) R(32)
    }
  }
  CHECK(cudaGetLastError());
  return 0;
}
