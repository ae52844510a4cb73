// Integer division and remainder by a value only known at run time.
__kernel void int_division(__global const int* a, __global const int* b, __global int* out)
{
    int i = get_global_id(0);
    int d = b[i];
    out[i] = a[i] / d + a[i] % d;
}
