// y = a x + y, one element per item: the plainest memory-bound kernel.
__kernel void saxpy(float a, __global const float* x, __global float* y)
{
    int i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
