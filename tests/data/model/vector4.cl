__kernel void A(__global float4* a, __global float4* b, const float c) {
  int d = get_global_id(0);
  float4 e = a[d];
  b[d] = e * c + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
}
