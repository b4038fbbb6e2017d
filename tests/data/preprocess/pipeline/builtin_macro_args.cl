// Variables passed to macros of the builtin header (as_int, as_float) are
// written in the input and renamed there.
__kernel void bits(__global float4 *in, __global int *out, const int n) {
  int index = get_global_id(0);
  float4 value = in[index];
  int handle = as_int(value.w);
  if (index < n) {
    out[index] = handle + as_int(as_float(handle) * value.x);
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
}
