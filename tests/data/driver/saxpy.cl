// Passes: y = a*x + y depends on both inputs, deterministically.
kernel void saxpy(const float a, global const float* x, global float* y, const int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
