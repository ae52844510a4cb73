// A long branch taken by one lane in 32 (the SIMD group still pays for it) and
// its twin where every lane takes it.
#ifndef WORK
#define WORK 64
#endif
__kernel void one_lane_branch(__global const float* in, __global float* out)
{
    int i = get_global_id(0);
    float x = in[i];
    if ((i & 31) == 0) {
        for (int k = 0; k < WORK; k++)
            x = x * 0.999f + 0.25f;
    }
    out[i] = x;
}

__kernel void all_lanes_branch(__global const float* in, __global float* out)
{
    int i = get_global_id(0);
    float x = in[i];
    if (i >= 0) {
        for (int k = 0; k < WORK; k++)
            x = x * 0.999f + 0.25f;
    }
    out[i] = x;
}
