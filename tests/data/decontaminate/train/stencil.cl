__kernel void stencil(__global const float* in, __global float* out, const int width, const int height) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1) {
    return;
  }
  float center = in[y * width + x];
  float north = in[(y - 1) * width + x];
  float south = in[(y + 1) * width + x];
  float west = in[y * width + x - 1];
  float east = in[y * width + x + 1];
  float sum = north + south + west + east;
  out[y * width + x] = 0.5f * center + 0.125f * sum;
}
