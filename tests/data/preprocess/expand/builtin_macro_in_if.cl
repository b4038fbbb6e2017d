// An #if that tests a builtin header's macro evaluates it as a compile does;
// the header's macros are then expanded in the whole output.
#if FLT_DIG > 5
#define SCALE 2.0f
#else
#define SCALE 1.0f
#endif
__kernel void k(__global float *a) {
  a[0] = SCALE * M_PI_F;
}
