// Does not compile: compared by its raw tokens.
__kernel void broken(__global float* p) {
  p[get_global_id(0)] = 2.0f +;
}
