// OpenCL twins of realkernels.cu: the same index math, work-group shapes and
// buffers, so a trace recorded from a twin replays on the nvidia-h200 model and can
// be set against what Nsight Compute measured for the CUDA launch.
// CUDA -> OpenCL: blockIdx -> get_group_id, threadIdx -> get_local_id, blockDim ->
// get_local_size, __shared__ -> __local, __syncthreads() -> barrier(CLK_LOCAL_MEM_FENCE),
// atomicAdd -> atomic_add, rsqrtf -> rsqrt.  No twin reads the grid size, so the
// first N work-groups of a launch run as a launch of their own record exactly what
// the full launch would for those groups.

// ---------------------------------------------------------------- PolyBench/GPU

__kernel void gemm(int ni, int nj, int nk, float alpha, float beta,
                   __global float* a, __global float* b, __global float* c) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  if (i < ni && j < nj) {
    c[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++) c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
  }
}

__kernel void syrk(int ni, int nj, float alpha, float beta, __global float* a, __global float* c) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  if (i < ni && j < ni) {
    c[i * ni + j] *= beta;
    for (int k = 0; k < nj; k++) c[i * ni + j] += alpha * a[i * nj + k] * a[j * nj + k];
  }
}

__kernel void atax_kernel1(int nx, int ny, __global float* A, __global float* x, __global float* tmp) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < nx) {
    tmp[i] = 0;
    for (int j = 0; j < ny; j++) tmp[i] += A[i * ny + j] * x[j];
  }
}

__kernel void atax_kernel2(int nx, int ny, __global float* A, __global float* y, __global float* tmp) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (j < ny) {
    y[j] = 0;
    for (int i = 0; i < nx; i++) y[j] += A[i * ny + j] * tmp[i];
  }
}

__kernel void bicg_kernel1(int nx, int ny, __global float* A, __global float* r, __global float* s) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (j < ny) {
    s[j] = 0.0f;
    for (int i = 0; i < nx; i++) s[j] += r[i] * A[i * ny + j];
  }
}

__kernel void bicg_kernel2(int nx, int ny, __global float* A, __global float* p, __global float* q) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < nx) {
    q[i] = 0.0f;
    for (int j = 0; j < ny; j++) q[i] += A[i * ny + j] * p[j];
  }
}

__kernel void mvt_kernel1(int n, __global float* a, __global float* x1, __global float* y1) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) {
    for (int j = 0; j < n; j++) x1[i] += a[i * n + j] * y1[j];
  }
}

__kernel void mvt_kernel2(int n, __global float* a, __global float* x2, __global float* y2) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) {
    for (int j = 0; j < n; j++) x2[i] += a[j * n + i] * y2[j];
  }
}

__kernel void gesummv_kernel(int n, float alpha, float beta, __global float* A, __global float* B,
                             __global float* tmp, __global float* x, __global float* y) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) {
    for (int j = 0; j < n; j++) {
      tmp[i] += A[i * n + j] * x[j];
      y[i] += B[i * n + j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

__kernel void convolution2D_kernel(int ni, int nj, __global float* A, __global float* B) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
  float c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
  float c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
  if (i < ni - 1 && j < nj - 1 && i > 0 && j > 0) {
    B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + (j + 0)] + c31 * A[(i - 1) * nj + (j + 1)]
                  + c12 * A[(i + 0) * nj + (j - 1)] + c22 * A[(i + 0) * nj + (j + 0)] + c32 * A[(i + 0) * nj + (j + 1)]
                  + c13 * A[(i + 1) * nj + (j - 1)] + c23 * A[(i + 1) * nj + (j + 0)] + c33 * A[(i + 1) * nj + (j + 1)];
  }
}

__kernel void jacobi2d_kernel1(int n, __global float* A, __global float* B) {
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)] + A[(1 + i) * n + j] + A[(i - 1) * n + j]);
}

__kernel void jacobi2d_kernel2(int n, __global float* A, __global float* B) {
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) A[i * n + j] = B[i * n + j];
}

__kernel void fdtd_step1_kernel(int nx, int ny, __global float* fict, __global float* ex, __global float* ey,
                                __global float* hz, int t) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  if (i < nx && j < ny) {
    if (i == 0) ey[i * ny + j] = fict[t];
    else ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
}

__kernel void fdtd_step2_kernel(int nx, int ny, __global float* ex, __global float* ey, __global float* hz, int t) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  if (i < nx && j < ny && j > 0) ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

__kernel void fdtd_step3_kernel(int nx, int ny, __global float* ex, __global float* ey, __global float* hz, int t) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  if (i < nx - 1 && j < ny - 1)
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}

__kernel void mean_kernel(int m, int n, float float_n, __global float* mean, __global float* data) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (j < m) {
    mean[j] = 0.0f;
    for (int i = 0; i < n; i++) mean[j] += data[i * m + j];
    mean[j] /= float_n;
  }
}

__kernel void reduce_kernel(int m, int n, __global float* mean, __global float* data) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  if (i < n && j < m) data[i * m + j] -= mean[j];
}

// ---------------------------------------------------------------- SHOC SpMV (CSR)
#define SPMV_BLOCK 128
#define WARP 32

__kernel void spmv_csr_scalar_kernel(__global const float* restrict val, __global const int* restrict cols,
                                     __global const int* restrict rowDelimiters, int dim,
                                     __global const float* restrict vec, __global float* restrict out) {
  int myRow = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (myRow < dim) {
    float t = 0.0f;
    int start = rowDelimiters[myRow];
    int end = rowDelimiters[myRow + 1];
    for (int j = start; j < end; j++) {
      int col = cols[j];
      t += val[j] * vec[col];
    }
    out[myRow] = t;
  }
}

__kernel void spmv_csr_vector_kernel(__global const float* restrict val, __global const int* restrict cols,
                                     __global const int* restrict rowDelimiters, int dim,
                                     __global const float* restrict vec, __global float* restrict out) {
  __local float partialSums[SPMV_BLOCK];
  int t = get_local_id(0);
  int id = t & (WARP - 1);
  int warpsPerBlock = get_local_size(0) / WARP;
  int myRow = get_group_id(0) * warpsPerBlock + t / WARP;
  float mySum = 0.0f;
  if (myRow < dim) {
    int warpStart = rowDelimiters[myRow];
    int warpEnd = rowDelimiters[myRow + 1];
    for (int j = warpStart + id; j < warpEnd; j += WARP) {
      int col = cols[j];
      mySum += val[j] * vec[col];
    }
  }
  partialSums[t] = mySum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 16; s > 0; s >>= 1) {
    if (id < s) partialSums[t] += partialSums[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (myRow < dim && id == 0) out[myRow] = partialSums[t];
}

// ---------------------------------------------------------------- histogram, reduction
__kernel void histo_global(__global const uint* in, __global uint* bins, int n) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) atomic_add(&bins[in[i]], 1u);
}

#define RED_BLOCK 256
__kernel void reduce_sum(__global const float* in, __global float* out, uint n) {
  __local float sdata[RED_BLOCK];
  uint tid = get_local_id(0);
  uint i = get_group_id(0) * (get_local_size(0) * 2) + get_local_id(0);
  float mySum = (i < n) ? in[i] : 0.0f;
  if (i + get_local_size(0) < n) mySum += in[i + get_local_size(0)];
  sdata[tid] = mySum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) out[get_group_id(0)] = mySum;
}

// ---------------------------------------------------------------- Parboil stencil
#define Index3D(_nx, _ny, _i, _j, _k) ((_i) + (_nx) * ((_j) + (_ny) * (_k)))
__kernel void stencil_naive(float c0, float c1, __global float* A0, __global float* Anext, int nx, int ny, int nz) {
  int i = get_local_id(0);
  int j = get_group_id(0) + 1;
  int k = get_group_id(1) + 1;
  if (i > 0) {
    Anext[Index3D(nx, ny, i, j, k)] =
        (A0[Index3D(nx, ny, i, j, k + 1)] + A0[Index3D(nx, ny, i, j, k - 1)] +
         A0[Index3D(nx, ny, i, j + 1, k)] + A0[Index3D(nx, ny, i, j - 1, k)] +
         A0[Index3D(nx, ny, i + 1, j, k)] + A0[Index3D(nx, ny, i - 1, j, k)]) * c1
        - A0[Index3D(nx, ny, i, j, k)] * c0;
  }
}

// ---------------------------------------------------------------- SGEMM, transposes
#define SG_BLOCK 16
__kernel void sgemm_tiled(__global const float* A, __global const float* B, __global float* C, int n) {
  __local float As[SG_BLOCK][SG_BLOCK];
  __local float Bs[SG_BLOCK][SG_BLOCK];
  int tx = get_local_id(0), ty = get_local_id(1);
  int row = get_group_id(1) * SG_BLOCK + ty;
  int col = get_group_id(0) * SG_BLOCK + tx;
  float sum = 0.0f;
  for (int t = 0; t < n / SG_BLOCK; t++) {
    As[ty][tx] = A[row * n + t * SG_BLOCK + tx];
    Bs[ty][tx] = B[(t * SG_BLOCK + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < SG_BLOCK; k++) sum += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * n + col] = sum;
}

#define TR_BLOCK 16
__kernel void transpose_naive_sdk(__global float* odata, __global const float* idata, int width, int height) {
  int xIndex = get_group_id(0) * TR_BLOCK + get_local_id(0);
  int yIndex = get_group_id(1) * TR_BLOCK + get_local_id(1);
  if (xIndex < width && yIndex < height) odata[xIndex * height + yIndex] = idata[yIndex * width + xIndex];
}

__kernel void transpose_tiled_sdk(__global float* odata, __global const float* idata, int width, int height) {
  __local float block[TR_BLOCK][TR_BLOCK + 1];
  int xIndex = get_group_id(0) * TR_BLOCK + get_local_id(0);
  int yIndex = get_group_id(1) * TR_BLOCK + get_local_id(1);
  if (xIndex < width && yIndex < height) block[get_local_id(1)][get_local_id(0)] = idata[yIndex * width + xIndex];
  barrier(CLK_LOCAL_MEM_FENCE);
  xIndex = get_group_id(1) * TR_BLOCK + get_local_id(0);
  yIndex = get_group_id(0) * TR_BLOCK + get_local_id(1);
  if (xIndex < height && yIndex < width) odata[yIndex * height + xIndex] = block[get_local_id(0)][get_local_id(1)];
}

// ---------------------------------------------------------------- Rodinia pathfinder
#define PF_BLOCK 256
#define HALO 1
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))
__kernel void dynproc_kernel(int iteration, __global int* gpuWall, __global int* gpuSrc, __global int* gpuResults,
                             int cols, int rows, int startStep, int border) {
  __local int prev[PF_BLOCK];
  __local int result[PF_BLOCK];
  int bx = get_group_id(0);
  int tx = get_local_id(0);
  int small_block_cols = PF_BLOCK - iteration * HALO * 2;
  int blkX = small_block_cols * bx - border;
  int blkXmax = blkX + PF_BLOCK - 1;
  int xidx = blkX + tx;
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkXmax > cols - 1) ? PF_BLOCK - 1 - (blkXmax - cols + 1) : PF_BLOCK - 1;
  int W = tx - 1;
  int E = tx + 1;
  W = (W < validXmin) ? validXmin : W;
  E = (E > validXmax) ? validXmax : E;
  bool isValid = IN_RANGE(tx, validXmin, validXmax);
  if (IN_RANGE(xidx, 0, cols - 1)) prev[tx] = gpuSrc[xidx];
  barrier(CLK_LOCAL_MEM_FENCE);
  bool computed = false;
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (IN_RANGE(tx, i + 1, PF_BLOCK - i - 2) && isValid) {
      computed = true;
      int left = prev[W];
      int up = prev[tx];
      int right = prev[E];
      int shortest = MIN(left, up);
      shortest = MIN(shortest, right);
      int index = cols * (startStep + i) + xidx;
      result[tx] = shortest + gpuWall[index];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == iteration - 1) break;
    if (computed) prev[tx] = result[tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (computed) gpuResults[xidx] = result[tx];
}

// ---------------------------------------------------------------- N-body (GPU Gems 3, ch. 31)
#define NB_BLOCK 128
__kernel void nbody_accel(__global const float4* pos, __global float4* acc, int n, float eps2) {
  __local float4 sh[NB_BLOCK];
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  float4 me = pos[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int tile = 0; tile < n / NB_BLOCK; tile++) {
    sh[get_local_id(0)] = pos[tile * NB_BLOCK + get_local_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < NB_BLOCK; j++) {
      float4 o = sh[j];
      float rx = o.x - me.x, ry = o.y - me.y, rz = o.z - me.z;
      float d2 = rx * rx + ry * ry + rz * rz + eps2;
      float inv = rsqrt(d2);
      float s = o.w * inv * inv * inv;
      ax += rx * s; ay += ry * s; az += rz * s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  acc[i] = (float4)(ax, ay, az, 0.0f);
}

// ---------------------------------------------------------------- Parboil MRI-Q
#define MRIQ_BLOCK 256
#define MRIQ_K_PER_LAUNCH 1024
#define PIx2 6.2831853071795864769252867665590058f
// ck: {Kx, Ky, Kz, PhiMag} per k-space sample (the CUDA program's __constant__ array).
__kernel void ComputeQ_GPU(int numK, int kGlobalIndex, __global float* x, __global float* y, __global float* z,
                           __global float* Qr, __global float* Qi, __constant float4* ck) {
  int xIndex = get_group_id(0) * MRIQ_BLOCK + get_local_id(0);
  float sX = x[xIndex], sY = y[xIndex], sZ = z[xIndex];
  float sQr = Qr[xIndex], sQi = Qi[xIndex];
  int kIndex = 0;
  if (numK % 2) {
    float expArg = PIx2 * (ck[0].x * sX + ck[0].y * sY + ck[0].z * sZ);
    sQr += ck[0].w * cos(expArg);
    sQi += ck[0].w * sin(expArg);
    kIndex++;
    kGlobalIndex++;
  }
  for (; kIndex < MRIQ_K_PER_LAUNCH && kGlobalIndex < numK; kIndex += 2, kGlobalIndex += 2) {
    float expArg = PIx2 * (ck[kIndex].x * sX + ck[kIndex].y * sY + ck[kIndex].z * sZ);
    sQr += ck[kIndex].w * cos(expArg);
    sQi += ck[kIndex].w * sin(expArg);
    int kIndex1 = kIndex + 1;
    float expArg1 = PIx2 * (ck[kIndex1].x * sX + ck[kIndex1].y * sY + ck[kIndex1].z * sZ);
    sQr += ck[kIndex1].w * cos(expArg1);
    sQi += ck[kIndex1].w * sin(expArg1);
  }
  Qr[xIndex] = sQr;
  Qi[xIndex] = sQi;
}
