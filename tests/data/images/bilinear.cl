// Bilinear interpolation by hand: four texels of a float buffer weighted by the coordinate's
// fraction (what a CLK_FILTER_LINEAR sampler does in the texture unit).
__kernel void bilinear(__global const float* src, __global float* dst, int w, float scale) {
  int x = get_global_id(0), y = get_global_id(1);
  float sx = x * scale + 0.25f;
  float sy = y * scale + 0.25f;
  int x0 = (int)floor(sx), y0 = (int)floor(sy);
  float fx = sx - x0, fy = sy - y0;
  float p00 = src[y0 * w + x0], p01 = src[y0 * w + x0 + 1];
  float p10 = src[(y0 + 1) * w + x0], p11 = src[(y0 + 1) * w + x0 + 1];
  float top = p00 * (1.0f - fx) + p01 * fx;
  float bottom = p10 * (1.0f - fx) + p11 * fx;
  dst[y * get_global_size(0) + x] = top * (1.0f - fy) + bottom * fy;
}
