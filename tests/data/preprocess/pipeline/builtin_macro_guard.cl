// The header defines M_PI_F (a float); this fallback (a double) must not win
// when the macros are expanded, or float4 arithmetic with it stops compiling.
#ifndef M_PI_F
#define M_PI_F 3.14159265358979323846
#endif
#define TWO_PI (2.0f * M_PI_F)

__kernel void rotate(__global float4 *v, const float angle) {
  const int i = get_global_id(0);
  v[i] = v[i] * (float4)(angle / TWO_PI) + M_PI_F * v[i];
}
