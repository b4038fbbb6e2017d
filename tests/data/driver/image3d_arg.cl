// A 3-D image and an array of 2-D images in, a buffer out, through a
// sampler: each fed as one layer of RGBA float texels.
kernel void image3d_arg(read_only image3d_t vol, read_only image2d_array_t layers, sampler_t s,
                        global float4* out) {
  int i = get_global_id(0);
  int j = get_global_id(1);
  out[j * get_global_size(0) + i] =
      read_imagef(vol, s, (int4)(i, j, 0, 0)) + 2.0f * read_imagef(layers, s, (int4)(i, j, 0, 0));
}
