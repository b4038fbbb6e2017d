typedef float real;

__kernel void A(__global real* a, int b) {
  int c = get_global_id(0);

  if (c < b)

    a[c] = a[c] * 2;
}
