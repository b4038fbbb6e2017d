__kernel void A(__global float* a, __global float* b, __global float* c, const int d) {
  int e = get_global_id(0);
  if (e < d) {
    float f = a[e];
    c[e] = f * f + b[e];
  }
}
