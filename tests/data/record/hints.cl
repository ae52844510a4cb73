// Kernels that give the compiler hints Oclgrind's interpreter cannot run as they are
// (both compile to llvm.assume), and one that calls an intrinsic it does not implement.
__kernel void assume_hint(__global const float* in, __global float* out, int n)
{
    int i = get_global_id(0);
    __builtin_assume(n > 0);
    __builtin_assume(i < n);
    out[i] = in[i] * 2.0f;
}

__kernel void unreachable_hint(__global const float* in, __global float* out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        __builtin_unreachable();
    out[i] = in[i] * 2.0f;
}

__kernel void cycle_counter(__global const float* in, __global float* out, int n)
{
    int i = get_global_id(0);
    out[i] = in[i] + (float)__builtin_readcyclecounter();
}
