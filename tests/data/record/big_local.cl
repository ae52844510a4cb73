// A work-group stages 48 KiB of its input in local memory: more than Oclgrind's own
// 32 KiB device, within the 64 KiB of an Intel subslice.
#define TILE 12288

__kernel void stage(__global const float* in, __global float* out)
{
    __local float tile[TILE];
    int l = get_local_id(0), g = get_group_id(0), n = get_local_size(0);
    for (int k = l; k < TILE; k += n)
        tile[k] = in[g * TILE + k];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[(l * 97) % TILE];
}
