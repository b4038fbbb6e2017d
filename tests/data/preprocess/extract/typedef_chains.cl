// Field types of typedef'd anonymous structs are reached even when the
// kernel never names the field; an enum constant brings its whole
// typedef'd enum; an unused constant is dropped.
typedef struct { int k; } Inner;
typedef struct { Inner in; float w; } Outer;
typedef enum { RED, GREEN = 3 } Color;
__constant int unused = 2;
int f(void) { return 1; }
__kernel void k(__global Outer* o, __global float* c) {
  c[0] = o->w + GREEN + f();
}
