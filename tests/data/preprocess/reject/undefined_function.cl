// The helper's definition lives in a file this text never includes: it
// compiles, but no OpenCL implementation can link it.
float scale(float v, float by);

__kernel void apply(__global float* a, const float by) {
  int i = get_global_id(0);
  a[i] = scale(a[i], by);
}
