__kernel void k(__global float *a) { a[0] = some_undeclared_value_xyz; }
