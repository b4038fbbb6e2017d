// Only in the evaluation set.
__kernel void histogram(__global const uchar* pixels, __global volatile int* bins, const int count) {
  int i = get_global_id(0);
  if (i < count) {
    atomic_inc(&bins[pixels[i]]);
  }
}
