#define KERNEL(name, op) \
  __kernel void name(__global float *a, __global const float *b) { \
    int i = get_global_id(0); a[i] = a[i] op b[i]; }
KERNEL(add, +)
KERNEL(mul, *)
