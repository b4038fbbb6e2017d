#include "lerp.h"

__kernel void scale_lerp(__global const float* a, __global const float* b, __global float* out, const float t,
                         const int n) {
  int i = get_global_id(0);
  if (i < n) out[i] = lerp_to(a[i], b[i], t) * 0.5f + lerp_to(b[i], a[i], t) * 0.25f;
}
