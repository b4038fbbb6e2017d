constant float scale = 2.È™;

void helper(local float* tile, global const float* in, constant float* k) {
  private float t = in[0] * k[0];
  tile[0] = t;
}

kernel voiœßš‰š†˜alias(global float* out, local float* tile, constant float* k,
                        read_only image2d_t src, write_only image2d_t dst,
                        read_write image2d_t both) {
  private int i = get_global_id(0);
  helper(tile, out, k);
  out[i] = tile[0] * scale;
}
