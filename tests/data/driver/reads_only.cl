// No output, known before running: no argument is ever written.
kernel void reads_only(global const float* a, global float* b, const int n) {
  int i = get_global_id(0);
  float x = a[i] * b[i];
  if (x > n) x = -x;
}
