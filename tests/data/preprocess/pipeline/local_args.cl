#define WG 64
__kernel void reduce(__global const int *in, __global int *out, __local int *scratch) {
  int lid = get_local_id(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[get_group_id(0)] = scratch[0];
}
