// SAXPY launched on a grid far smaller than any GPU can keep busy.
__kernel void saxpy(const float alpha, __global const float* x, __global float* y)
{
    int i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}
