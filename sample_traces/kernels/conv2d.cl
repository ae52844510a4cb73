// 3x3 smoothing convolution of a one-channel float image, written twice: reading a
// float buffer with the edges clamped by hand, and reading an image object whose
// sampler clamps at the edges.  The Adreno guide advises the second form (§6.2,
// §7.1.5.3: read-only images go through the texture processor and its L1, buffers
// straight to L2; §8.6: let the sampler handle the borders).  The weights are
// (2 - |dx|) (2 - |dy|) / 16, so no weight table is read.
__kernel void conv3x3_buffer(__global const float* src, __global float* dst,
                             const int width, const int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            int sx = clamp(x + dx, 0, width - 1);
            int sy = clamp(y + dy, 0, height - 1);
            float w = (float)((2 - abs(dx)) * (2 - abs(dy))) / 16.0f;
            sum += w * src[sy * width + sx];
        }
    }
    dst[y * width + x] = sum;
}

__constant sampler_t clamp_edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                                  CLK_FILTER_NEAREST;

__kernel void conv3x3_image(__read_only image2d_t src, __write_only image2d_t dst)
{
    int x = get_global_id(0), y = get_global_id(1);
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            float w = (float)((2 - abs(dx)) * (2 - abs(dy))) / 16.0f;
            sum += w * read_imagef(src, clamp_edge, (int2)(x + dx, y + dy)).x;
        }
    }
    write_imagef(dst, (int2)(x, y), (float4)(sum, 0.0f, 0.0f, 1.0f));
}
