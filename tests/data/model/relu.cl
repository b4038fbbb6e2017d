__kernel void A(__global float* a, const int b) {
  int c = get_global_id(0);
  if (c < b) {
    a[c] = fmax(a[c], 0.0f);
  }
}
