// One work-item per row of an n x n matrix, each summing its row: the lanes of a
// wave read n floats apart.  With n a power of two every lane's line falls in the
// same few cache sets; with n = 500 they spread.
__kernel void row_sums(__global const float* a, __global float* out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float s = 0.0f;
    for (int k = 0; k < n; k++)
        s += a[i * n + k];
    out[i] = s;
}
