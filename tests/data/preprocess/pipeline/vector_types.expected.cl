__kernel void A(__global float4* a, __global const float4* b, const float c) {
  int d = get_global_id(0);
  float4 e = mix(a[d], b[d], (float4)(c));
  uint2 f = (uint2)(1, 2);
  a[d] = e * (float)(f.x + f.y);
  a[d].xy = e.zw;
}
