// Register pressure for the machine-code tests.  `light` keeps a few values live;
// `heavy` keeps LIVE floats live across a loop (all indices are known after
// unrolling, so they stay in registers until they no longer fit).
#ifndef LIVE
#define LIVE 32
#endif

__kernel void light(__global const float* in, __global float* out, int n)
{
    int i = get_global_id(0);
    out[i] = in[i] * 2.0f + 1.0f;
}

__kernel void heavy(__global const float* in, __global float* out, int n)
{
    int i = get_global_id(0);
    float v[LIVE];
    #pragma unroll
    for (int k = 0; k < LIVE; k++)
        v[k] = in[i + k * n];
    float s = 0.0f;
    for (int it = 0; it < n; it++) {
        #pragma unroll
        for (int k = 0; k < LIVE; k++)
            v[k] = v[k] * v[(k + 7) % LIVE] + s;
        s += v[it % LIVE];
    }
    #pragma unroll
    for (int k = 0; k < LIVE; k++)
        s += v[k];
    out[i] = s;
}
