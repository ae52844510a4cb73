// The same 2x2 block of texels averaged with constant weights: no sampler filter replaces it.
__kernel void box(__global const float* src, __global float* dst, int w) {
  int x = get_global_id(0), y = get_global_id(1);
  float s = src[y * w + x] + src[y * w + x + 1] + src[(y + 1) * w + x] + src[(y + 1) * w + x + 1];
  dst[y * get_global_size(0) + x] = s * 0.25f;
}
