// Calibration micro-kernels for the nvidia-h200 target.
//
// Each kernel isolates one effect the replay models (coalescing, shared-memory
// banks, divergence, integer division, ALU chains, latency).  The OpenCL twins in
// microkernels.cl use the same index math, so a trace recorded from a twin can be
// replayed on the model and compared against what Nsight Compute measures here.
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o microkernels microkernels.cu
// Run:   ./microkernels            (every case once; see run_ncu.sh for profiling)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)

extern "C" __global__ void copy_coalesced(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

extern "C" __global__ void copy_strided(const float* in, float* out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(long)i * stride % ((long)n * stride)];
}

extern "C" __global__ void copy_offset(const float* in, float* out, int n, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + offset];
}

// Shared memory read with a stride in 4-byte words: stride s gives an s-way
// conflict for s in {1,2,4,8,16,32} with 32 banks (gcd rule).
extern "C" __global__ void shared_stride(const float* in, float* out, int stride) {
  __shared__ float tile[32 * 33];
  int t = threadIdx.x;
  for (int k = t; k < 32 * 33; k += blockDim.x) tile[k] = in[blockIdx.x * 32 * 33 + k];
  __syncthreads();
  int lane = t & 31;
  float v = tile[(lane * stride) % (32 * 33)];
  out[blockIdx.x * blockDim.x + t] = v;
}

// One lane in every warp runs a long loop; the others skip it.
extern "C" __global__ void divergent_one_lane(const float* in, float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if ((threadIdx.x & 31) == 0) {
    for (int k = 0; k < iters; ++k) v = fmaf(v, 1.0001f, 0.5f);
  }
  out[i] = v;
}

// Every lane runs the same long loop (no divergence): the twin of the above.
extern "C" __global__ void uniform_all_lanes(const float* in, float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int k = 0; k < iters; ++k) v = fmaf(v, 1.0001f, 0.5f);
  out[i] = v;
}

// Even and odd lanes take different branches.
extern "C" __global__ void divergent_half(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (threadIdx.x & 1) v = v * 3.0f + 1.0f; else v = v * 0.5f - 2.0f;
  out[i] = v;
}

#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose_naive(const float* in, float* out, int width) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[x * width + (y + j)] = in[(y + j) * width + x];
}

extern "C" __global__ void transpose_tiled(const float* in, float* out, int width) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void transpose_padded(const float* in, float* out, int width) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void int_div(const int* in, int* out, int n, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { int v = in[i]; out[i] = v / d + v % d; }
}

// A chain of dependent FMAs per loaded element: LEN grows across cases.
extern "C" __global__ void fma_chain(const float* in, float* out, int n, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  float a = 1.0001f, b = 0.9999f;
  for (int k = 0; k < len; ++k) { v = fmaf(v, a, b); }
  out[i] = v;
}

// Dependent loads: each step's address comes from the previous load.
extern "C" __global__ void pointer_chase(const int* next, int* out, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int p = i;
  for (int k = 0; k < steps; ++k) p = next[p];
  out[i] = p;
}

static float* falloc(size_t n) { float* p; CHECK(cudaMalloc(&p, n * sizeof(float))); return p; }

int main(int argc, char** argv) {
  const char* only = argc > 1 ? argv[1] : nullptr;
  auto want = [&](const char* name) { return !only || strstr(name, only); };
  const int N = 1 << 24;                 // 64 MiB per float buffer: > L2 (50 MB)
  float* a = falloc((size_t)N * 33 + 64);
  float* b = falloc((size_t)N + 64);
  int* ia = (int*)falloc((size_t)N + 64);
  int* ib = (int*)falloc((size_t)N + 64);
  {  // inputs: a ramp (never zeros), and a random single-cycle permutation for the chase
    float* h = (float*)malloc(sizeof(float) * (size_t)N);
    for (int i = 0; i < N; ++i) h[i] = 1.0f + (i % 977) * 0.001f;
    CHECK(cudaMemcpy(a, h, sizeof(float) * (size_t)N, cudaMemcpyHostToDevice));
    int* perm = (int*)malloc(sizeof(int) * (size_t)N);
    for (int i = 0; i < N; ++i) perm[i] = i;
    unsigned long long s = 12345;
    for (int i = N - 1; i > 0; --i) { s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      int j = (int)((s >> 33) % (unsigned long long)(i + 1)); int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    int* nxt = (int*)malloc(sizeof(int) * (size_t)N);
    for (int i = 0; i < N; ++i) nxt[perm[i]] = perm[(i + 1) % N];
    CHECK(cudaMemcpy(ia, nxt, sizeof(int) * (size_t)N, cudaMemcpyHostToDevice));
    free(h); free(perm); free(nxt);
  }
  const int B = 256;
  if (want("copy_coalesced")) { copy_coalesced<<<N / B, B>>>(a, b, N); CHECK(cudaGetLastError()); }
  for (int s : {2, 4, 8, 32}) if (want("copy_strided")) {
    copy_strided<<<N / 32 / B, B>>>(a, b, N / 32, s); CHECK(cudaGetLastError()); }
  if (want("copy_offset")) { copy_offset<<<N / B, B>>>(a, b, N, 1); CHECK(cudaGetLastError()); }
  for (int s : {1, 2, 4, 8, 16, 32, 33}) if (want("shared_stride")) {
    shared_stride<<<4096, B>>>(a, b, s); CHECK(cudaGetLastError()); }
  if (want("divergent_one_lane")) { divergent_one_lane<<<N / 16 / B, B>>>(a, b, 256); CHECK(cudaGetLastError()); }
  if (want("uniform_all_lanes")) { uniform_all_lanes<<<N / 16 / B, B>>>(a, b, 256); CHECK(cudaGetLastError()); }
  if (want("divergent_half")) { divergent_half<<<N / B, B>>>(a, b); CHECK(cudaGetLastError()); }
  {
    int W = 4096; dim3 grid(W / TILE, W / TILE), block(TILE, ROWS);
    if (want("transpose_naive")) { transpose_naive<<<grid, block>>>(a, b, W); CHECK(cudaGetLastError()); }
    if (want("transpose_tiled")) { transpose_tiled<<<grid, block>>>(a, b, W); CHECK(cudaGetLastError()); }
    if (want("transpose_padded")) { transpose_padded<<<grid, block>>>(a, b, W); CHECK(cudaGetLastError()); }
  }
  if (want("int_div")) { int_div<<<N / B, B>>>(ia, ib, N, 7); CHECK(cudaGetLastError()); }
  for (int len : {1, 4, 16, 64, 256}) if (want("fma_chain")) {
    fma_chain<<<N / 4 / B, B>>>(a, b, N / 4, len); CHECK(cudaGetLastError()); }
  if (want("pointer_chase")) { pointer_chase<<<4, 32>>>(ia, ib, 4096); CHECK(cudaGetLastError()); }
  for (int bs : {32, 64, 100, 1024}) if (want("copy_coalesced")) {
    int n = N / 4; copy_coalesced<<<(n + bs - 1) / bs, bs>>>(a, b, n); CHECK(cudaGetLastError()); }
  if (want("copy_coalesced")) { copy_coalesced<<<1, 8>>>(a, b, 8); CHECK(cudaGetLastError()); }  // too-small grid
  CHECK(cudaDeviceSynchronize());
  printf("ok\n");
  return 0;
}
