// The evaluation set's pair_sum, followed by more code of its own.
__kernel void pair_sum(__global const int* data, __global int* sums, const int count) {
  int i = get_global_id(0);
  if (2 * i + 1 < count) {
    sums[i] = data[2 * i] + data[2 * i + 1];
  }
}

__kernel void prefix_step(__global int* values, __global const int* offsets, const int stride, const int count) {
  int j = get_global_id(0);
  if (j >= stride && j < count) {
    int shifted = values[j - stride];
    values[j] = values[j] + shifted + offsets[j % stride];
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
}
