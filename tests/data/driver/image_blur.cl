// A 2-D image in, a 2-D image out, through a sampler: fed as RGBA float
// images of S texels.
kernel void image_blur(read_only image2d_t in, write_only image2d_t out, sampler_t s) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  float4 v = read_imagef(in, s, p) + read_imagef(in, s, p + (int2)(1, 0));
  write_imagef(out, p, v * 0.5f);
}
