// Element-wise activations built from the cheap float built-ins.
// relu6_leaky: a ReLU clipped at 6 with a small leak, fmax/fmin/fabs only.
__kernel void relu6_leaky(__global const float* x, __global float* y)
{
    int i = get_global_id(0);
    float v = x[i];
    y[i] = fmin(fmax(v, 0.0f), 6.0f) + 0.01f * (v - fabs(v));
}

// softplus written the stable way: log(1 + exp(-|v|)) + max(v, 0).  exp and log
// have native_ versions; fabs and fmax do not.
__kernel void softplus(__global const float* x, __global float* y)
{
    int i = get_global_id(0);
    float v = x[i];
    y[i] = log(1.0f + exp(-fabs(v))) + fmax(v, 0.0f);
}
