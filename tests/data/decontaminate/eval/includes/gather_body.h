__kernel void gather(__global const float* values, __global const int* indices, __global float* out, const int n) {
  int i = get_global_id(0);
  if (i < n) {
    out[i] = values[indices[i]];
  }
}
