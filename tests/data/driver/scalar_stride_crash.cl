// Crashes with cldrive's scalar rule (n = the global size sends the write
// terabytes past the buffer); with n = 1 it doubles its input.
kernel void scalar_stride_crash(global const float* in, global float* out, int n) {
  long i = get_global_id(0);
  out[i + (long)(n - 1) * 1000000000L] = in[i] * 2.0f;
}
