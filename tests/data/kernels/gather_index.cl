// A data-dependent gather: each item reads the element its index array names.  No layout
// of `src` puts these reads in wave order; sorting the work by index does.
__kernel void gather_index(__global const int* idx, __global const float* src, __global float* dst)
{
    int i = get_global_id(0);
    dst[i] = src[idx[i]] * 2.0f;
}
