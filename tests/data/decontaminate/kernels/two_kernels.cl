// Two kernels and a helper neither calls, as benchmark files often are: the
// training pipeline stores each kernel with only the helpers it reaches.
int tile_offset(const int row, const int col) { return row * 64 + col; }

float weight_of(const float distance, const float falloff) {
  float w = 1.0f / (1.0f + falloff * distance * distance);
  return w > 0.001f ? w : 0.0f;
}

float clamp_unit(const float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

__kernel void diffuse_row(__global const float* in, __global float* out, const int width, const float falloff) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x >= width) return;
  float acc = 0.0f;
  float norm = 0.0f;
  for (int k = -3; k <= 3; ++k) {
    int xx = x + k;
    if (xx < 0 || xx >= width) continue;
    float w = weight_of((float)k, falloff);
    acc += w * in[y * width + xx];
    norm += w;
  }
  out[y * width + x] = clamp_unit(norm > 0.0f ? acc / norm : 0.0f);
}

__kernel void gradient_energy(__global const float* img, __global float* energy, const int width, const int height) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x <= 0 || y <= 0 || x >= width - 1 || y >= height - 1) return;
  float gx = img[y * width + x + 1] - img[y * width + x - 1];
  float gy = img[(y + 1) * width + x] - img[(y - 1) * width + x];
  float e = sqrt(gx * gx + gy * gy);
  float w = weight_of(e, 0.5f);
  energy[y * width + x] = clamp_unit(e * w);
}
