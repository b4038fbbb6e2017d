__kernel void A(__global float4* a, __global int* b, const int c) {
  int d = get_global_id(0);
  float4 e = a[d];
  int f = as_int(e.w);
  if (d < c) {
    b[d] = f + as_int(as_float(f) * e.x);
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
}
