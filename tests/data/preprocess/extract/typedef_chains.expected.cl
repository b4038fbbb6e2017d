// kernel: k
typedef struct { int k; } Inner;
typedef struct { Inner in; float w; } Outer;
typedef enum { RED, GREEN = 3 } Color;
int f(void) { return 1; }
__kernel void k(__global Outer* o, __global float* c) {
  c[0] = o->w + GREEN + f();
}
