// Timeout: never terminates.
kernel void infinite_loop(global volatile int* data) {
  int i = get_global_id(0);
  while (data[i] >= 0) {
    data[i] = data[i] | 1;
  }
}
