// ALU-bound: one load, CHAIN dependent fused multiply-adds, one store per work-item.
#ifndef CHAIN
#define CHAIN 128
#endif
__kernel void fma_chain(__global const float* in, __global float* out)
{
    int i = get_global_id(0);
    float x = in[i];
    float a = 0.999f, b = 0.001f;
    #pragma unroll 1
    for (int k = 0; k < CHAIN; k++)
        x = fma(x, a, b);
    out[i] = x;
}
