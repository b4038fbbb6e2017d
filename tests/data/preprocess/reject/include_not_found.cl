#include "../../../etc/passwd"
__kernel void k(__global float *a) { a[0] = 1; }
