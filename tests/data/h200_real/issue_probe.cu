// Issue-latency and L2-throughput probes for the nvidia-h200 target (PROBES.md, "Dependent
// issue" and "L2 throughput").  Build: nvcc -O3 -arch=sm_90 issue_probe.cu -o issue_probe
//
// dep_chain: every thread runs a chain of dependent FMAs (ilp = 1) or two/four independent
// chains interleaved; one block per SM with 1..16 warps per scheduler.  Prints cycles per
// warp instruction issued (clock64 around the loop, lane 0 of each warp).
// l2_*: a 24 MiB buffer (inside the 60 MiB L2) read with ld.global.cg (past the L1) or
// written, grid-stride, many times over; prints bytes per SM clock at 1980 MHz.  l2_same
// stores one word per thread again and again, as PolyBench's GEMM stores C[i][j] in its k loop.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("error %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

template <int ILP>
__global__ void dep_chain(float* out, long long* cycles, int iters) {
  float x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = threadIdx.x * 0.001f + k;
  __syncwarp();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 64 / ILP; ++u) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) x[k] = fmaf(x[k], 1.0000001f, 0.5f);
    }
  }
  long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < ILP; ++k) s += x[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if ((threadIdx.x & 31) == 0) cycles[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = t1 - t0;
}

__global__ void l2_load(const float4* __restrict__ buf, size_t n, int reps, float* out) {
  float4 acc = make_float4(0, 0, 0, 0);
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int r = 0; r < reps; ++r)
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
      float4 v = __ldcg(buf + i);
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  if (acc.x + acc.y + acc.z + acc.w == 1234.5f) out[0] = acc.x;
}

__global__ void l2_store(float4* buf, size_t n, int reps) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int r = 0; r < reps; ++r)
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
      buf[i] = make_float4(r, i, 0, 1);
}

__global__ void l2_store_word(float* buf, size_t n, int reps) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int r = 0; r < reps; ++r)
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
      buf[i] = (float)(r + i);
}

__global__ void l2_same(volatile float* buf, int reps) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  float v = 0.f;
  for (int r = 0; r < reps; ++r) { v += 1.f; buf[i] = v; }
}

int main() {
  const double clock_hz = 1980e6;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float* out; long long* cyc;
  CHECK(cudaMalloc(&out, 132 * 1024 * sizeof(float) * 4));
  CHECK(cudaMalloc(&cyc, 132 * 64 * sizeof(long long)));
  long long host[132 * 64];
  printf("probe,warps_per_scheduler,ilp,cycles_per_instruction\n");
  const int iters = 2048;
  for (int ilp : {1, 2, 4}) {
    for (int w : {1, 2, 3, 4, 6, 8, 16}) {
      int threads = 32 * 4 * w;
      for (int rep = 0; rep < 2; ++rep) {
        if (ilp == 1) dep_chain<1><<<sms, threads>>>(out, cyc, iters);
        if (ilp == 2) dep_chain<2><<<sms, threads>>>(out, cyc, iters);
        if (ilp == 4) dep_chain<4><<<sms, threads>>>(out, cyc, iters);
      }
      CHECK(cudaDeviceSynchronize());
      int warps = sms * threads / 32;
      CHECK(cudaMemcpy(host, cyc, warps * sizeof(long long), cudaMemcpyDeviceToHost));
      double sum = 0;
      for (int k = 0; k < warps; ++k) sum += host[k];
      printf("dep_chain,%d,%d,%.3f\n", w, ilp, sum / warps / (64.0 * iters));
    }
  }
  size_t bytes = 24u << 20;
  float4* buf;
  CHECK(cudaMalloc(&buf, bytes));
  CHECK(cudaMemset(buf, 0, bytes));
  size_t n4 = bytes / sizeof(float4);
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  printf("probe,blocks,threads,reps,ms,bytes,bytes_per_cycle\n");
  const int reps = 40;
  int blocks = sms * 8, threads = 256;
  for (int which = 0; which < 4; ++which) {
    for (int rep = 0; rep < 3; ++rep) {
      cudaEventRecord(a);
      double moved = (double)bytes * reps;
      if (which == 0) l2_load<<<blocks, threads>>>(buf, n4, reps, out);
      if (which == 1) l2_store<<<blocks, threads>>>(buf, n4, reps);
      if (which == 2) l2_store_word<<<blocks, threads>>>((float*)buf, bytes / 4, reps);
      if (which == 3) {
        int r2 = 4096;
        l2_same<<<blocks, threads>>>((volatile float*)buf, r2);
        moved = (double)blocks * threads * 4.0 * r2;
      }
      cudaEventRecord(b);
      CHECK(cudaEventSynchronize(b));
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      const char* name = which == 0 ? "l2_load_cg" : which == 1 ? "l2_store_v4" : which == 2 ? "l2_store_word" : "l2_same_word";
      if (rep > 0) printf("%s,%d,%d,%d,%.4f,%.0f,%.1f\n", name, blocks, threads, which == 3 ? 4096 : reps, ms, moved,
                          moved / (ms * 1e-3) / clock_hz);
    }
  }
  return 0;
}
