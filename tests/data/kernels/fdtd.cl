// The H-field update of a 2-D FDTD time step (the third loop nest of the fdtd-2d
// stencil), on float arrays.  fdtd_hz writes the coefficient as an unsuffixed
// literal, which OpenCL C reads as a double: the float operands are widened, the
// update runs in double precision and the result is narrowed again.
// fdtd_hz_float is the same update with a float literal.
__kernel void fdtd_hz(__global float* hz, __global const float* ex, __global const float* ey,
                      int nx, int ny)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < nx - 1 && j < ny - 1)
        hz[i * ny + j] = hz[i * ny + j] - 0.7 * (ex[i * (ny + 1) + j + 1] - ex[i * (ny + 1) + j]
                                                + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}

__kernel void fdtd_hz_float(__global float* hz, __global const float* ex, __global const float* ey,
                            int nx, int ny)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < nx - 1 && j < ny - 1)
        hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * (ny + 1) + j + 1] - ex[i * (ny + 1) + j]
                                                 + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
