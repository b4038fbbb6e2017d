float A(float a) {
  return a * a;
}

static float B(float2 b, float2 c) {
  float d = b.x - c.x, e = b.y - c.y;
  return A(d) + A(e);
}

__kernel void C(__global const float2* f, __global float* g, float2 h) {
  size_t i = get_global_id(0);
  g[i] = sqrt(B(f[i], h));
}
