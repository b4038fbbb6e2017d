#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define STEPS 4
__kernel void k(__global float *a) {
#pragma unroll STEPS
  for (int i = 0; i < STEPS; i++) a[i] = FLT_MAX;
  barrier(CLK_GLOBAL_MEM_FENCE);
}
