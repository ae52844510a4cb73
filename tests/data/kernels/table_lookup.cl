// Each work-item maps 16 input bytes through a 256-entry table (a colour or tone curve, an
// activation by look-up): the table is gathered 16 times per item, so one work-group of 64 items
// reads its 1 KiB 1,024 times; copying it to local memory first costs 256 coalesced loads.
__kernel void table_lookup(__global const uchar* src, __global const float* table, __global float* dst)
{
    const int i = get_global_id(0);
    float sum = 0.0f;
    for (int k = 0; k < 16; k++)
        sum += table[src[i * 16 + k]];
    dst[i] = sum;
}
