/* A header comment. */
#define TYPE float
#define TWICE(v) ((v) + (v))
#if 1
// kept branch
__kernel void k(__global TYPE *a) { a[0] = TWICE(a[1]); }  // trailing
#else
__kernel void gone(void) {}
#endif
