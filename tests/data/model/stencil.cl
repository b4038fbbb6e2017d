__kernel void A(__global const float* a, __global float* b, const int c) {
  int d = get_global_id(0);
  if (d > 0 && d < c - 1) {
    b[d] = 0.25f * a[d - 1] + 0.5f * a[d] + 0.25f * a[d + 1];
  } else if (d < c) {
    b[d] = a[d];
  }
}
