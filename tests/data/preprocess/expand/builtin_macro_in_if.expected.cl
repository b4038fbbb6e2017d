






__kernel void k(__global float *a) {
  a[0] = 2.0f * 3.14159265358979323846264338327950288f;
}
