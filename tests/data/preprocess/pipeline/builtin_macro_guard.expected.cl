__kernel void A(__global float4* a, const float b) {
  const int c = get_global_id(0);
  a[c] = a[c] * (float4)(b / (2.0f * M_PI_F)) + M_PI_F * a[c];
}
