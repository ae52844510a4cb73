// The same transcendental expression with full-precision and native_ built-ins.
__kernel void math_precise(__global const float* in, __global float* out)
{
    int i = get_global_id(0);
    float x = in[i];
    out[i] = sin(x) * exp(x) + sqrt(x) / log(x + 2.0f);
}

__kernel void math_native(__global const float* in, __global float* out)
{
    int i = get_global_id(0);
    float x = in[i];
    out[i] = native_sin(x) * native_exp(x) + native_sqrt(x) * native_recip(native_log(x + 2.0f));
}
