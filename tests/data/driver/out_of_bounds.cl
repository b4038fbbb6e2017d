// Crash: writes terabytes past the end of its buffer.
kernel void out_of_bounds(global float* data) {
  long i = get_global_id(0);
  data[i * 1000000000L + 4000000000000L] = 1.0f;
}
