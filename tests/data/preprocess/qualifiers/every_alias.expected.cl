__constant float scale = 2.0f;

void helper(__local float* tile, __global const float* in, __constant float* k) {
  __private float t = in[0] * k[0];
  tile[0] = t;
}

__kernel void every_alias(__global float* out, __local float* tile, __constant float* k,
                        __read_only image2d_t src, __write_only image2d_t dst,
                        __read_write image2d_t both) {
  __private int i = get_global_id(0);
  helper(tile, out, k);
  out[i] = tile[0] * scale;
}
