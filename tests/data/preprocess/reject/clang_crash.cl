// Clang's own debugging pragma crashes the compiler on purpose.
#pragma clang __debug crash
__kernel void k(__global float *a) { a[0] = 1; }
