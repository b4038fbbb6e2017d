// Copies b into a at an offset. With the offset equal to the global size
// (the payload's rule for integer scalars) no work-item stores, so outputs
// equal inputs; with offset 1 all but the last work-item copy.
kernel void offset_copy(global float* a, global const float* b, const int offset) {
  int i = get_global_id(0);
  if (i + offset < get_global_size(0)) a[i + offset] = b[i];
}
