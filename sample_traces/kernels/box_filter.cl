// 8x8 mean filter, the slow form of the box-blur example in the Adreno OpenCL
// guide (section 10.2.1): 64 reads per output pixel over the window [-4, +3]^2,
// x offset in the outer loop.  Written over a float buffer with clamp-to-edge
// addressing instead of an image, so it records as global loads.
__kernel void box_filter_8x8(__global const float* src, __global float* dst,
                             const int width, const int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    float sum = 0.0f;
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            int sx = clamp(x + i - 4, 0, width - 1);
            int sy = clamp(y + j - 4, 0, height - 1);
            sum += src[sy * width + sx];
        }
    }
    dst[y * width + x] = sum / 64.0f;
}
