#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void A(__global double* a, __global double* b, const int c) {
  int d = get_global_id(0);
  double e = 0.0;
  for (int f = 0; f < c; f++) {
    e += a[d * c + f];
  }
  b[d] = e;
}
