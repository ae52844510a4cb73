// The H-field update of fdtd.cl with its coefficient held in a double variable: the
// source names the double type, so a compiler for a device without double precision
// refuses it (unlike fdtd_hz, whose unsuffixed literal such a compiler takes as float).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void fdtd_hz_double(__global float* hz, __global const float* ex, __global const float* ey,
                             int nx, int ny)
{
    const double coefficient = 0.7;
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < nx - 1 && j < ny - 1)
        hz[i * ny + j] = hz[i * ny + j] - coefficient * (ex[i * (ny + 1) + j + 1] - ex[i * (ny + 1) + j]
                                                         + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
