// OpenCL twins of microkernels.cu: the same index math, so a trace recorded from
// a twin replays on the nvidia-h200 model and can be set against what Nsight
// Compute measured for the CUDA original.  CUDA -> OpenCL: blockIdx.x ->
// get_group_id(0), threadIdx.x -> get_local_id(0), blockDim.x -> get_local_size(0),
// __shared__ -> __local, __syncthreads() -> barrier(CLK_LOCAL_MEM_FENCE).

__kernel void copy_coalesced(__global const float* in, __global float* out, int n) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) out[i] = in[i];
}

__kernel void copy_strided(__global const float* in, __global float* out, int n, int stride) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) out[i] = in[(long)i * stride % ((long)n * stride)];
}

__kernel void copy_offset(__global const float* in, __global float* out, int n, int offset) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) out[i] = in[i + offset];
}

__kernel void shared_stride(__global const float* in, __global float* out, int stride) {
  __local float tile[32 * 33];
  int t = get_local_id(0);
  for (int k = t; k < 32 * 33; k += get_local_size(0)) tile[k] = in[get_group_id(0) * 32 * 33 + k];
  barrier(CLK_LOCAL_MEM_FENCE);
  int lane = t & 31;
  float v = tile[(lane * stride) % (32 * 33)];
  out[get_group_id(0) * get_local_size(0) + t] = v;
}

__kernel void divergent_one_lane(__global const float* in, __global float* out, int iters) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  float v = in[i];
  if ((get_local_id(0) & 31) == 0) {
    for (int k = 0; k < iters; ++k) v = fma(v, 1.0001f, 0.5f);
  }
  out[i] = v;
}

__kernel void uniform_all_lanes(__global const float* in, __global float* out, int iters) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  float v = in[i];
  for (int k = 0; k < iters; ++k) v = fma(v, 1.0001f, 0.5f);
  out[i] = v;
}

__kernel void divergent_half(__global const float* in, __global float* out) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  float v = in[i];
  if (get_local_id(0) & 1) v = v * 3.0f + 1.0f; else v = v * 0.5f - 2.0f;
  out[i] = v;
}

#define TILE 32
#define ROWS 8
__kernel void transpose_naive(__global const float* in, __global float* out, int width) {
  int x = get_group_id(0) * TILE + get_local_id(0);
  int y = get_group_id(1) * TILE + get_local_id(1);
  for (int j = 0; j < TILE; j += ROWS) out[x * width + (y + j)] = in[(y + j) * width + x];
}

__kernel void transpose_tiled(__global const float* in, __global float* out, int width) {
  __local float tile[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * TILE + tx;
  int y = get_group_id(1) * TILE + ty;
  for (int j = 0; j < TILE; j += ROWS) tile[ty + j][tx] = in[(y + j) * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * TILE + tx;
  y = get_group_id(0) * TILE + ty;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * width + x] = tile[tx][ty + j];
}

__kernel void transpose_padded(__global const float* in, __global float* out, int width) {
  __local float tile[TILE][TILE + 1];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * TILE + tx;
  int y = get_group_id(1) * TILE + ty;
  for (int j = 0; j < TILE; j += ROWS) tile[ty + j][tx] = in[(y + j) * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * TILE + tx;
  y = get_group_id(0) * TILE + ty;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * width + x] = tile[tx][ty + j];
}

__kernel void int_div(__global const int* in, __global int* out, int n, int d) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) { int v = in[i]; out[i] = v / d + v % d; }
}

__kernel void fma_chain(__global const float* in, __global float* out, int n, int len) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  float v = in[i];
  float a = 1.0001f, b = 0.9999f;
  for (int k = 0; k < len; ++k) v = fma(v, a, b);
  out[i] = v;
}

__kernel void pointer_chase(__global const int* next, __global int* out, int steps) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int p = i;
  for (int k = 0; k < steps; ++k) p = next[p];
  out[i] = p;
}
