__kernel void A(__global float* a, __global float* b, __global float* c, const int d) {
  int e = get_global_id(0);
  for (int f = e; f < d; f += get_global_size(0)) {
    c[f] = a[f] + b[f] * 0.5f;
  }
}
