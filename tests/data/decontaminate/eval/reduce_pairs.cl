__kernel void pair_sum(__global const int* data, __global int* sums, const int count) {
  int i = get_global_id(0);
  if (2 * i + 1 < count) {
    sums[i] = data[2 * i] + data[2 * i + 1];
  }
}
