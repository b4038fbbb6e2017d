// 2-D kernel: each work-item adds its row and column.
kernel void add2d(global const float* a, global float* b, const int width) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  b[y * width + x] = a[y * width + x] + (float)(x + y);
}
