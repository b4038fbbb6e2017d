// Every alias keyword of OpenCL C 1.2, and the same words in a literal.
constant float scale = 2.0f;

float helper(local float* tile, global const float* in, constant float* k) {
  private float t = in[0] * k[0];  /* private, local */
  tile[0] = t;
  return tile[0];
}

kernel void blend(global float* out, local float* tile, constant float* k,
                  read_only image2d_t src, write_only image2d_t dst) {
  const sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
  private int i = get_global_id(0);
  float4 p = read_imagef(src, smp, (int2)(i, 0));
  out[i] = helper(tile, out, k) * scale + p.x;
  write_imagef(dst, (int2)(i, 0), p);
  if (i == 0) printf("kernel global local constant private read_only write_only\n");
}
