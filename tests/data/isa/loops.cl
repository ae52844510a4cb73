// A loop over consecutive elements, for the machine-code rules' tests.  In
// `scale_rows` the trace sees a loop (one load site walking consecutive floats);
// Intel's compiler unrolls it, but as `in` and `out` may overlap it keeps every
// load behind the previous iteration's store: one 32-bit message per element.
// `scale_rows4` moves the same elements four at a time, and `scale_rows_restrict`
// lets the compiler merge them itself.
#define N 16

__kernel void scale_rows(__global const float* in, __global float* out)
{
    int i = get_global_id(0);
    for (int k = 0; k < N; k++)
        out[i * N + k] = in[i * N + k] * 2.0f;
}

__kernel void scale_rows4(__global const float4* in, __global float4* out)
{
    int i = get_global_id(0);
    for (int k = 0; k < N / 4; k++)
        out[i * (N / 4) + k] = in[i * (N / 4) + k] * 2.0f;
}

__kernel void scale_rows_restrict(__global const float* restrict in, __global float* restrict out)
{
    int i = get_global_id(0);
    for (int k = 0; k < N; k++)
        out[i * N + k] = in[i * N + k] * 2.0f;
}
