// y = alpha * x + y
__kernel void saxpy(__global const float* x, __global float* y, const float alpha, const int n) {
  int i = get_global_id(0);
  if (i < n) {
    y[i] = alpha * x[i] + y[i];
  }
}
