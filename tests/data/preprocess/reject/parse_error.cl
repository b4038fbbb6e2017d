__kernel void k(__global float *a) { a[0] = 1 }
