// No output: computes but stores nothing; the buffer comes back unchanged.
kernel void writes_nothing(global float* data, const int n) {
  int i = get_global_id(0);
  float x = data[i] * 2.0f;
  if (x < -1.0f && i > n) data[i] = data[i];
}
