#ifndef M_PI_F
#define M_PI_F 3.14159265358979323846
#endif
#ifdef cl_khr_fp64
#define HAVE_FP64 1
#endif
__kernel void k(__global float *a) {
  a[0] = M_PI_F * as_float(as_int(a[1]));
}
