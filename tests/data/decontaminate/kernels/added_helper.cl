// gradient_energy with its helpers in the other order and one helper added,
// which the kernel calls for its store.
float clamp_unit(const float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

float weight_of(const float distance, const float falloff) {
  float w = 1.0f / (1.0f + falloff * distance * distance);
  return w > 0.001f ? w : 0.0f;
}

int pixel_index(const int x, const int y, const int width) { return y * width + x; }

__kernel void gradient_energy(__global const float* img, __global float* energy, const int width, const int height) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x <= 0 || y <= 0 || x >= width - 1 || y >= height - 1) return;
  float gx = img[y * width + x + 1] - img[y * width + x - 1];
  float gy = img[(y + 1) * width + x] - img[(y - 1) * width + x];
  float e = sqrt(gx * gx + gy * gy);
  float w = weight_of(e, 0.5f);
  energy[pixel_index(x, y, width)] = clamp_unit(e * w);
}
