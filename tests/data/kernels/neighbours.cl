// Reads that look uncoalesced to a naive count but are not.
// blur3: each item reads its element and its two neighbours; the +/-1 reads are
// contiguous spans one element off the transaction grid (misaligned, not scattered).
__kernel void blur3(__global const float* x, __global float* y)
{
    int i = get_global_id(0) + 1;
    y[i] = (x[i - 1] + x[i] + x[i + 1]) * (1.0f / 3.0f);
}

// scale: every lane reads the same weight (a broadcast), then its own element.
__kernel void scale(__global const float* x, __global const float* w, __global float* y)
{
    int i = get_global_id(0);
    y[i] = x[i] * w[0];
}
