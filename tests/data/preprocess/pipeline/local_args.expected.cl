__kernel void A(__global const int* a, __global int* b, __local int* c) {
  int d = get_local_id(0);
  c[d] = a[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int e = 64 / 2; e > 0; e >>= 1) {
    if (d < e)
      c[d] += c[d + e];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (d == 0)
    b[get_group_id(0)] = c[0];
}
