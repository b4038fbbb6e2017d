typedef struct { int a; int b; } pair;
int helper(int value, pair p) { return value + p.a + p.b; }
__kernel void main_kernel(__global int *out, __global pair *pairs) {
  int idx = get_global_id(0);
  int total = helper(idx, pairs[idx]);
  out[idx] = total + max(total, 0);
}
