// Binarizes an 8-bit image with a per-row threshold from the row's mean.
__kernel void row_threshold(__global const uchar* img, __global uchar* out, const int width) {
  int y = get_global_id(0);
  uint sum = 0;
  for (int x = 0; x < width; ++x) sum += img[y * width + x];
  uchar mean = (uchar)(sum / (uint)width);
  for (int x = 0; x < width; ++x) out[y * width + x] = img[y * width + x] > mean ? 255 : 0;
}
