// Register-blocked GEMM: each work-item computes a TM x TN tile of C, kept in
// registers across the k loop (the accumulator tile is what spills when large).
#ifndef TM
#define TM 16
#endif
#ifndef TN
#define TN 16
#endif
__kernel void gemm_tile(__global const float* A, __global const float* B, __global float* C,
                        int M, int N, int K)
{
    const int row0 = get_global_id(1) * TM;
    const int col0 = get_global_id(0) * TN;
    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; i++)
        #pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    for (int k = 0; k < K; k++) {
        float a[TM], b[TN];
        #pragma unroll
        for (int i = 0; i < TM; i++) a[i] = A[(row0 + i) * K + k];
        #pragma unroll
        for (int j = 0; j < TN; j++) b[j] = B[k * N + col0 + j];
        #pragma unroll
        for (int i = 0; i < TM; i++)
            #pragma unroll
            for (int j = 0; j < TN; j++)
                acc[i][j] = mad(a[i], b[j], acc[i][j]);
    }
    #pragma unroll
    for (int i = 0; i < TM; i++)
        #pragma unroll
        for (int j = 0; j < TN; j++)
            C[(row0 + i) * N + col0 + j] = acc[i][j];
}
