// Two kernels in one file; vstore writes, vload reads, pointer arithmetic.
kernel void scale2(global const float* in, global float* out, const int n) {
  int i = get_global_id(0);
  if (2 * i + 1 < n) {
    float2 v = vload2(i, in);
    vstore2(v * 2.0f, i, out);
  }
}
kernel void copy_ptr(global const int* src, global int* dst) {
  int i = get_global_id(0);
  *(dst + i) = *(src + i) + 1;
}
