// Unsupported arguments: a 1-D image buffer (the driver feeds image2d_t,
// image3d_t and image2d_array_t only).
kernel void image1d_arg(read_only image1d_buffer_t line, global float4* out) {
  int i = get_global_id(0);
  out[i] = read_imagef(line, i);
}
