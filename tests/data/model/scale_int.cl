__kernel void A(__global int* a, const int b, const unsigned int c) {
  unsigned int d = get_global_id(0);
  if (d < c) {
    a[d] = a[d] * b;
  }
}
