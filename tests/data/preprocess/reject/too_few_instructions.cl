__kernel void nothing(__global float *a) { }
