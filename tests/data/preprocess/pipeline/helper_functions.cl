float square(float v) { return v * v; }

static float dist2(float2 p, float2 q) {
  float dx = p.x - q.x, dy = p.y - q.y;
  return square(dx) + square(dy);
}

__kernel void distances(__global const float2 *points, __global float *result, float2 origin) {
  size_t i = get_global_id(0);
  result[i] = sqrt(dist2(points[i], origin));
}
