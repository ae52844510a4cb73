// Matrix transpose of a width x height float matrix, three ways.
#ifndef TILE
#define TILE 16
#endif

// Naive: reads are coalesced along x, writes jump by `height` floats per lane.
__kernel void transpose_naive(__global const float* in, __global float* out,
                              const int width, const int height)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[x * height + y] = in[y * width + x];
}

// Tiled through local memory; the tile's columns are read with a stride of TILE
// words, so every lane of a column hits the same bank.
__kernel void transpose_tiled(__global const float* in, __global float* out,
                              const int width, const int height)
{
    __local float tile[TILE][TILE];
    int lx = get_local_id(0), ly = get_local_id(1);
    int gx = get_group_id(0) * TILE, gy = get_group_id(1) * TILE;
    tile[ly][lx] = in[(gy + ly) * width + gx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[(gx + ly) * height + gy + lx] = tile[lx][ly];
}

// Same, with one padding word per tile row: column reads spread over the banks.
__kernel void transpose_tiled_padded(__global const float* in, __global float* out,
                                     const int width, const int height)
{
    __local float tile[TILE][TILE + 1];
    int lx = get_local_id(0), ly = get_local_id(1);
    int gx = get_group_id(0) * TILE, gy = get_group_id(1) * TILE;
    tile[ly][lx] = in[(gy + ly) * width + gx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[(gx + ly) * height + gy + lx] = tile[lx][ly];
}
