__kernel void A(__global float* a, __global float* b, const float c, const int d) {
  int e = get_global_id(0);
  if (e >= d) {
    return;
  }
  b[e] = c * a[e] + b[e];
}
