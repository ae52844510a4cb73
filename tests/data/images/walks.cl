// Image and buffer reads along one dimension, for the texture rules' tests.
//
// column_read: each wave of a 1-D work-group reads one column of the image (the
// work-item's x is the texel's row), so a wave's 64 texels are spread down the
// image instead of over a square block of tiles.
// vertical_sum: each work-item sums a column strip of a read-only buffer (rows
// y .. y+TAPS-1 of its own column): 2-D data, but one column per item.
#ifndef TAPS
#define TAPS 8
#endif

__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void column_read(__read_only image2d_t src, __global float* dst)
{
    int x = get_global_id(0), y = get_global_id(1);
    float v = read_imagef(src, nearest, (int2)(y, x)).x;
    dst[y * get_global_size(0) + x] = 2.0f * v;
}

__kernel void vertical_sum(__global const float* src, __global float* dst, const int width)
{
    int x = get_global_id(0), y = get_global_id(1);
    float s = 0.0f;
    for (int k = 0; k < TAPS; k++)
        s += src[(y + k) * width + x];
    dst[y * width + x] = s;
}
