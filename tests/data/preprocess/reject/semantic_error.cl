__kernel void k(__global float *a) { float4 v = a; a[0] = v.x; }
