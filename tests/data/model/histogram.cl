__kernel void A(__global const uchar* a, __global int* b, const int c) {
  int d = get_global_id(0);
  if (d < c) {
    atomic_inc(&b[a[d]]);
  }
}
