__kernel void A(__global float* a, __global const float* b) {
  int c = get_global_id(0);
  a[c] = a[c] + b[c];
}
__kernel void B(__global float* d, __global const float* e) {
  int f = get_global_id(0);
  d[f] = d[f] * e[f];
}
