// C = A * B for n x n float matrices, one output element per work-item.
#ifndef TILE
#define TILE 16
#endif

__kernel void matmul_naive(__global const float* A, __global const float* B,
                           __global float* C, const int n)
{
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}

// Tiles of A and B are staged in local memory and reused TILE times each.
__kernel void matmul_tiled(__global const float* A, __global const float* B,
                           __global float* C, const int n)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int lx = get_local_id(0), ly = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ly][lx] = A[row * n + t + lx];
        Bs[ly][lx] = B[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += As[ly][k] * Bs[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
