// Bilinear resize of a one-channel float image, written twice: reading a float
// buffer and blending the four neighbours by hand (edges clamped by hand), and
// reading an image object through a linear-filtering sampler that does both in
// the texture unit (Adreno guide §7.1.5.3, §6.2; Intel guide "Using Buffers and
// Images Appropriately": images for linear interpolation).  Texel centres sit at
// half-integer coordinates in both, so the two give the same picture.
__kernel void resize_bilinear_buffer(__global const float* src, __global float* dst,
                                     const int src_w, const int src_h, const int dst_w, const int dst_h)
{
    int x = get_global_id(0), y = get_global_id(1);
    float fx = (x + 0.5f) * src_w / dst_w - 0.5f;
    float fy = (y + 0.5f) * src_h / dst_h - 0.5f;
    int x0 = (int)floor(fx), y0 = (int)floor(fy);
    float ax = fx - x0, ay = fy - y0;
    int x1 = min(x0 + 1, src_w - 1), y1 = min(y0 + 1, src_h - 1);
    x0 = max(x0, 0);
    y0 = max(y0, 0);
    float top = (1.0f - ax) * src[y0 * src_w + x0] + ax * src[y0 * src_w + x1];
    float bottom = (1.0f - ax) * src[y1 * src_w + x0] + ax * src[y1 * src_w + x1];
    dst[y * dst_w + x] = (1.0f - ay) * top + ay * bottom;
}

__constant sampler_t bilinear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE |
                                CLK_FILTER_LINEAR;

__kernel void resize_bilinear_image(__read_only image2d_t src, __write_only image2d_t dst)
{
    int x = get_global_id(0), y = get_global_id(1);
    int2 size = get_image_dim(dst);
    float2 coord = (float2)((x + 0.5f) / size.x, (y + 0.5f) / size.y);
    write_imagef(dst, (int2)(x, y), read_imagef(src, bilinear, coord));
}
