// A small kernel touching several instruction classes, for `oclgrind --inst-counts`.
__kernel void mix(__global const float* a, __global const float* b, __global float* c,
                  __local float* tile, int d) {
  int i = get_global_id(0);
  int l = get_local_id(0);
  float x = a[i] * b[i] + 1.0f;
  tile[l] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  x += tile[(l + 1) % get_local_size(0)];
  if (i % 2) x = sqrt(x);
  for (int k = 0; k < 4; ++k) x = fma(x, 0.5f, (float)k);
  c[i] = x / (float)(i / d + 1) + exp(x * 0.01f);
  atomic_add((__global int*)c + 64, 1);
}
