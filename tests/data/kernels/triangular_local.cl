// Two loops over a 16 x 16 local tile in which lanes take part in different iterations:
// the lower loop reads row ``lid`` for the iterations i < lid, the upper loop for the
// iterations i > lid.  In every iteration the active lanes read one column of the tile,
// 16 floats apart: on a 16-bank local memory all of them hit one bank, in both loops.
// Pairing lane accesses by count instead of by iteration sees the upper loop's reads as
// a diagonal (stride 17: conflict-free).
__kernel void triangular_local(__global const float* in, __global float* out)
{
    __local float tile[16 * 16];
    const int lid = get_local_id(0);
    const int base = get_group_id(0) * 256;
    for (int r = 0; r < 16; r++)
        tile[r * 16 + lid] = in[base + r * 16 + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    float lower = 0.0f, upper = 0.0f;
    for (int i = 0; i < 16; i++)
        if (i < lid)
            lower += tile[lid * 16 + i];
    for (int i = 0; i < 16; i++)
        if (i > lid)
            upper += tile[lid * 16 + i];
    out[get_global_id(0)] = lower - upper;
}
