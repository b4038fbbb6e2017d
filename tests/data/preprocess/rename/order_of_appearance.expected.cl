typedef struct { int a; int b; } pair;
int A(int c, pair d) { return c + d.a + d.b; }
__kernel void B(__global int *e, __global pair *f) {
  int g = get_global_id(0);
  int h = A(g, f[g]);
  e[g] = h + max(h, 0);
}
