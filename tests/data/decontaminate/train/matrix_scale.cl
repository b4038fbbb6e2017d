__kernel void matrix_scale(__global const float* input, __global float* output, const float factor,
                           const int width) {
  int row = get_global_id(0);
  int col = get_global_id(1);
  float value = input[row * width + col];
  output[row * width + col] = value * factor + 1.0f;
}
