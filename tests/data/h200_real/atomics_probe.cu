// Same-address atomics on the H200: how long the L2 takes per update of one address.
//   nvcc -O3 -arch=sm_90 -o atomics_probe atomics_probe.cu && ./atomics_probe > probes_atomics.csv
// The kernel is histo_global of realkernels.cu (one atomicAdd per element, bins taken from an
// input array); the input spreads 2^24 elements over K bins, either hashed (lanes of a warp hit
// different bins, as the histogram's random input does) or in runs (all lanes of a warp hit one
// bin).  With few bins the updates of one address queue behind each other, and the launch time
// over the updates per bin gives the interval between two updates of one address.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

extern "C" __global__ void histo_global(const unsigned* in, unsigned* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i]], 1u);
}

__global__ void fill(unsigned* in, int n, unsigned k, int hashed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = (unsigned)i;
  if (hashed) {  // Wellons' lowbias32, as realkernels.cu's host hash
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    in[i] = x % k;
  } else {
    in[i] = (unsigned)(((uint64_t)i * k) / (uint64_t)n);
  }
}

int main() {
  const int n = 1 << 24;
  unsigned *in, *bins;
  cudaMalloc(&in, n * sizeof(unsigned));
  cudaMalloc(&bins, (1u << 20) * sizeof(unsigned));
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  printf("pattern,bins,elements,ms,updates_per_bin,ns_per_update_of_one_bin,clock_khz\n");
  const unsigned ks[] = {1, 2, 8, 32, 128, 256, 1024, 4096, 65536, 1u << 20};
  for (int hashed = 1; hashed >= 0; --hashed) {
    for (unsigned k : ks) {
      fill<<<n / 256, 256>>>(in, n, k, hashed);
      std::vector<float> t;
      for (int rep = 0; rep < 6; ++rep) {
        cudaMemset(bins, 0, (1u << 20) * sizeof(unsigned));
        cudaEventRecord(a);
        histo_global<<<n / 256, 256>>>(in, bins, n);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (rep) t.push_back(ms);  // the first run warms the caches and the clocks
      }
      std::sort(t.begin(), t.end());
      float ms = t[t.size() / 2];
      double per_bin = double(n) / k;
      printf("%s,%u,%d,%.4f,%.1f,%.3f,%d\n", hashed ? "hashed" : "runs", k, n, ms, per_bin,
             ms * 1e6 / per_bin, clock_khz);
    }
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
  return 0;
}
