__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void A(__read_only image2d_t a, __write_only image2d_t b) {
  int2 c = (int2)(get_global_id(0), get_global_id(1));
  float4 d = read_imagef(a, smp, c);
  write_imagef(b, c, (float4)(1.0f) - d);
}
