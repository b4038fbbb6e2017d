__kernel void A(__global float* a, __global float* b, __global float* c, const int d) {
  int e = get_global_id(0);
  int f = get_global_id(1);
  float g = 0.0f;
  for (int h = 0; h < d; h++) {
    g += a[e * d + h] * b[h * d + f];
  }
  c[e * d + f] = g;
}
