__kernel void k(__global my_unknown_type_xyz *a) { a[0] = 1; }
