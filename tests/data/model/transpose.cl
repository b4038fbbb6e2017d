__kernel void A(__global const float* a, __global float* b, const int c, const int d) {
  int e = get_global_id(0);
  int f = get_global_id(1);
  if (e < c && f < d) {
    b[f * c + e] = a[e * d + f];
  }
}
