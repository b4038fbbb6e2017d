// Two kernels share a helper declared before and defined after them; one of
// them also calls a helper that calls another helper.
enum Mode { MODE_ADD, MODE_MUL = 7 };
__constant int lo = 1, hi = 2;

typedef struct { float x, y; } Point;
typedef struct { int unused; } Other;

float twice(float v);

float inner(float v) { return v + lo; }

float outer(float v) { return inner(v) * 2.0f; }

__kernel void first(__global float* a) {
  int i = get_global_id(0);
  a[i] = twice(a[i]) + MODE_MUL;
}

__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void second(__global Point* p, __global float* b) {
  int i = get_global_id(0);
  b[i] = twice(p[i].x) + outer(p[i].y) + sizeof(Point);
}

float twice(float v) { return v * 2.0f; }
