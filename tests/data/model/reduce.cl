__kernel void A(__global const float* a, __global float* b, __local float* c, const int d) {
  int e = get_global_id(0);
  int f = get_local_id(0);
  c[f] = (e < d) ? a[e] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int g = get_local_size(0) / 2; g > 0; g >>= 1) {
    if (f < g) {
      c[f] += c[f + g];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (f == 0) {
    b[get_group_id(0)] = c[0];
  }
}
