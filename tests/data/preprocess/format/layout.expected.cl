__kernel void k(__global float* a, __global float* b) {
  int i = get_global_id(0);
  if (i > 0)
    a[i] = b[i];
  for (int j = 0; j < 4; ++j) {
    a[j] += 1.0f;
  }
}
