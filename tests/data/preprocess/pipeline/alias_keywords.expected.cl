__constant float a = 2.0f;

float A(__local float* b, __global const float* c, __constant float* d) {
  __private float e = c[0] * d[0];
  b[0] = e;
  return b[0];
}

__kernel void B(__global float* f, __local float* g, __constant float* h, __read_only image2d_t i, __write_only image2d_t j) {
  const sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
  __private int k = get_global_id(0);
  float4 l = read_imagef(i, smp, (int2)(k, 0));
  f[k] = A(g, f, h) * a + l.x;
  write_imagef(j, (int2)(k, 0), l);
  if (k == 0)
    printf("kernel global local constant private read_only write_only\n");
}
