// Odd and even lanes take different paths, so a SIMD group runs both.
__kernel void divergent_branch(__global const float* in, __global float* out)
{
    int i = get_global_id(0);
    float x = in[i];
    if (i & 1) {
        for (int k = 0; k < 16; k++)
            x = x * 1.0001f + 0.5f;
    } else {
        x = x * 2.0f;
    }
    out[i] = x;
}
