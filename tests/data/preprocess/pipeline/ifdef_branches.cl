#define USE_DOUBLE 0
#if USE_DOUBLE
typedef double real;
#else
typedef float real;
#endif

#ifdef NOT_DEFINED
__kernel void never(__global real *x) { x[0] = 0; }
#else
__kernel void always(__global real *x, int n) {
  int i = get_global_id(0);
#ifndef NOT_DEFINED
  if (i < n)
#endif
    x[i] = x[i] * 2;
}
#endif
