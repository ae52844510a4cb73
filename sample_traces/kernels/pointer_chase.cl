// Latency-bound: each work-item follows a chain of indices through a large
// array; every load depends on the previous one, and there are few work-groups
// to hide the wait.
__kernel void pointer_chase(__global const int* next, __global int* out, const int steps)
{
    int p = get_global_id(0) * 4099;
    for (int s = 0; s < steps; s++)
        p = next[p];
    out[get_global_id(0)] = p;
}
