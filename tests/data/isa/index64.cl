// The same strided gather indexed with size_t and with uint, for the machine-code
// rules' tests: the 64-bit form makes the compiler compute on 64-bit integers
// (widening moves, 64-bit adds, and a 64-bit remainder in a software loop).
__kernel void gather64(__global const float* in, __global float* out, ulong n, ulong stride)
{
    size_t i = get_global_id(0);
    size_t j = (i * stride) % n;
    out[i] = in[j] * 2.0f;
}

__kernel void gather32(__global const float* in, __global float* out, uint n, uint stride)
{
    uint i = get_global_id(0);
    uint j = (i * stride) % n;
    out[i] = in[j] * 2.0f;
}
