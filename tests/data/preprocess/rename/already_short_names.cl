__kernel void B(__global float *b, __global float *a) {
  int c = get_global_id(0);
  a[c] = b[c];
}
