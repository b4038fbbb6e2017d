__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void invert(__read_only image2d_t input, __write_only image2d_t output) {
  int2 pos = (int2)(get_global_id(0), get_global_id(1));
  float4 pixel = read_imagef(input, smp, pos);
  write_imagef(output, pos, (float4)(1.0f) - pixel);
}
