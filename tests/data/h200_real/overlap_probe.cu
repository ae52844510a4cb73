// Loop-overlap probe for the nvidia-h200 target (PROBES.md, "Loads of independent loop
// iterations").  Build: nvcc -O3 -arch=sm_90 overlap_probe.cu -o overlap_probe
//
// SHOC's CSR SpMV, one work-item per row, on realkernels.cu's matrix (16384 rows of
// 8..320 entries), compiled with the loop unrolled 1, 2, 4 and 8 times by pragma and
// left to nvcc (which unrolls it 16 times and issues the loads of an unrolled body
// together).  A loop that stores nothing lets the compiler batch the loads of several
// iterations; PolyBench's atax_kernel1 stores tmp[i] in its loop, and is timed with and
// without unrolling as the control (its loads cannot move above the store).
// Each launch follows a 256 MiB memset that pushes the data out of the L2, as Nsight
// Compute's cache control does; prints the median of 7 launches in microseconds.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("error %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

#define SPMV_BODY                                   \
  {                                                 \
    int col = cols[j];                              \
    t += val[j] * vec[col];                         \
  }

#define SPMV_KERNEL(NAME, PRAGMA)                                                                  \
  extern "C" __global__ void NAME(const float* __restrict__ val, const int* __restrict__ cols,      \
                                  const int* __restrict__ rows, int dim,                           \
                                  const float* __restrict__ vec, float* __restrict__ out) {        \
    int r = blockIdx.x * blockDim.x + threadIdx.x;                                                 \
    if (r < dim) {                                                                                 \
      float t = 0.0f;                                                                              \
      int start = rows[r], end = rows[r + 1];                                                      \
      PRAGMA                                                                                       \
      for (int j = start; j < end; j++) SPMV_BODY                                                  \
      out[r] = t;                                                                                  \
    }                                                                                              \
  }

#define P(x) _Pragma(#x)
SPMV_KERNEL(spmv_u1, P(unroll 1))
SPMV_KERNEL(spmv_u2, P(unroll 2))
SPMV_KERNEL(spmv_u4, P(unroll 4))
SPMV_KERNEL(spmv_u8, P(unroll 8))
SPMV_KERNEL(spmv_nvcc, )

// One work-item per row of A, storing into tmp[i] every iteration (PolyBench/GPU).
#define ATAX_KERNEL(NAME, PRAGMA)                                                   \
  extern "C" __global__ void NAME(int nx, int ny, float* A, float* x, float* tmp) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (i < nx) {                                                                   \
      tmp[i] = 0;                                                                   \
      PRAGMA                                                                        \
      for (int j = 0; j < ny; j++) tmp[i] += A[i * ny + j] * x[j];                  \
    }                                                                               \
  }
ATAX_KERNEL(atax_u1, P(unroll 1))
ATAX_KERNEL(atax_nvcc, )

static uint32_t hash32(uint32_t x) {  // Wellons' lowbias32, as realkernels.cu
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16; return x;
}
static float uval(uint32_t i, uint32_t seed) { return (float)(hash32(i ^ (seed * 0x9E3779B9U)) & 0xFFFF) / 65536.0f - 0.5f; }

template <class F>
static float median_us(F launch, void* scratch, size_t scratch_bytes) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int k = 0; k < 8; ++k) {
    cudaMemset(scratch, k, scratch_bytes);
    cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms = 0; cudaEventElapsedTime(&ms, a, b);
    if (k) t.push_back(ms * 1000.0f);  // the first launch loads the module
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const int dim = 16384;
  std::vector<int> rowptr(dim + 1, 0);
  for (int r = 0; r < dim; ++r) rowptr[r + 1] = rowptr[r] + 8 + (int)(hash32(2u * r + 1u) % 313u);
  const int nnz = rowptr[dim];
  std::vector<int> cols(nnz);
  for (int e = 0; e < nnz; ++e) cols[e] = (int)(hash32((uint32_t)e ^ 0x5bd1e995u) % (uint32_t)dim);
  std::vector<float> val(nnz), vec(dim);
  for (int e = 0; e < nnz; ++e) val[e] = uval(e, 21);
  for (int e = 0; e < dim; ++e) vec[e] = uval(e, 22);
  float *dval, *dvec, *dout; int *dcols, *drow; void* scratch;
  const size_t scratch_bytes = 256u << 20;
  CHECK(cudaMalloc(&dval, nnz * 4)); CHECK(cudaMalloc(&dvec, dim * 4)); CHECK(cudaMalloc(&dout, dim * 4));
  CHECK(cudaMalloc(&dcols, nnz * 4)); CHECK(cudaMalloc(&drow, (dim + 1) * 4)); CHECK(cudaMalloc(&scratch, scratch_bytes));
  CHECK(cudaMemcpy(dval, val.data(), nnz * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dvec, vec.data(), dim * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dcols, cols.data(), nnz * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(drow, rowptr.data(), (dim + 1) * 4, cudaMemcpyHostToDevice));
  printf("kernel,unroll,us\n");
  dim3 block(128), grid(dim / 128);
#define RUN_SPMV(K, U) printf(#K ",%s,%.2f\n", U, median_us([&] { K<<<grid, block>>>(dval, dcols, drow, dim, dvec, dout); }, scratch, scratch_bytes));
  RUN_SPMV(spmv_u1, "1") RUN_SPMV(spmv_u2, "2") RUN_SPMV(spmv_u4, "4") RUN_SPMV(spmv_u8, "8") RUN_SPMV(spmv_nvcc, "nvcc")
  const int n = 4096;
  float *dA, *dx, *dtmp;
  CHECK(cudaMalloc(&dA, (size_t)n * n * 4)); CHECK(cudaMalloc(&dx, n * 4)); CHECK(cudaMalloc(&dtmp, n * 4));
  CHECK(cudaMemset(dA, 0, (size_t)n * n * 4)); CHECK(cudaMemset(dx, 0, n * 4));
  dim3 b2(256), g2(n / 256);
#define RUN_ATAX(K, U) printf(#K ",%s,%.2f\n", U, median_us([&] { K<<<g2, b2>>>(n, n, dA, dx, dtmp); }, scratch, scratch_bytes));
  RUN_ATAX(atax_u1, "1") RUN_ATAX(atax_nvcc, "nvcc")
  CHECK(cudaGetLastError());
  return 0;
}
