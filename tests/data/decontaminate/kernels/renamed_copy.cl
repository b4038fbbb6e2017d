/* Someone's port of diffuse_row: every name changed, the layout and the
   comments too, the code the same. */
float Falloff(const float d, const float f) {
  float r = 1.0f / (1.0f + f * d * d);   // inverse quadratic
  return r > 0.001f ? r : 0.0f;
}
float Saturate(const float t) { return t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t); }
__kernel void blurH(__global const float* src, __global float* dst, const int W, const float F)
{
  int i = get_global_id(0);
  int j = get_global_id(1);
  if (i >= W) return;
  float sum = 0.0f;
  float total = 0.0f;
  for (int o = -3; o <= 3; ++o) {
    int ii = i + o;
    if (ii < 0 || ii >= W) continue;
    float c = Falloff((float)o, F);
    sum += c * src[j * W + ii];
    total += c;
  }
  dst[j * W + i] = Saturate(total > 0.0f ? sum / total : 0.0f);
}
