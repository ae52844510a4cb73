// Strided copy: work-item i reads element i*stride, so neighbouring lanes are
// stride*4 bytes apart and every lane needs its own cache line once stride >= 16.
__kernel void strided_copy(__global const float* in, __global float* out, const int stride)
{
    int i = get_global_id(0);
    out[i] = in[i * stride];
}
