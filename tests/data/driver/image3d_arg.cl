// Unsupported arguments: a 3-D image (the driver feeds image2d_t only).
kernel void image3d_arg(read_only image3d_t vol, sampler_t s, global float4* out) {
  int i = get_global_id(0);
  out[i] = read_imagef(vol, s, (int4)(i, 0, 0, 0));
}
