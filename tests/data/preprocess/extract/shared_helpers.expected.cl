// kernel: first
enum Mode { MODE_ADD, MODE_MUL = 7 };

float twice(float v);

__kernel void first(__global float* a) {
  int i = get_global_id(0);
  a[i] = twice(a[i]) + MODE_MUL;
}

float twice(float v) { return v * 2.0f; }
// kernel: second
__constant int lo = 1, hi = 2;

typedef struct { float x, y; } Point;

float twice(float v);

float inner(float v) { return v + lo; }

float outer(float v) { return inner(v) * 2.0f; }

__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void second(__global Point* p, __global float* b) {
  int i = get_global_id(0);
  b[i] = twice(p[i].x) + outer(p[i].y) + sizeof(Point);
}

float twice(float v) { return v * 2.0f; }
