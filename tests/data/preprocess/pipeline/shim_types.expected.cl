__kernel void A(__global float* a) {
  __local float b[128];
  int c = get_local_id(0);
  b[c] = (float)c;
  barrier(CLK_LOCAL_MEM_FENCE);
  a[get_global_id(0)] = b[128 - 1 - c];
}
