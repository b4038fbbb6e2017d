// One kernel using a helper, a struct, a macro constant, a __constant array
// and a typedef; a helper, a table and a type it does not use are dropped.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define SCALE 4

typedef float real;

struct Pair {
  real a;
  int b;
};

__constant float weights[3] = {0.25f, 0.5f, 0.25f};

__constant int unused_table[2] = {1, 2};

static float unused_helper(float x) { return x * 3.0f; }

float weigh(struct Pair p, int i) {
  return p.a * weights[i] + p.b;
}

typedef struct { int n; } Unused;

__kernel void apply(__global struct Pair* pairs, __global double* out) {
  int i = get_global_id(0);
  out[i] = weigh(pairs[i], i % 3) * SCALE;
}
