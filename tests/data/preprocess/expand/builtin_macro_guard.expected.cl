





__kernel void k(__global float *a) {
  a[0] = M_PI_F * as_float(as_int(a[1]));
}
