#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void k(__global float *a) {
  for (int i = 0; i < 4; i++) a[i] = FLT_MAX;
  barrier(CLK_GLOBAL_MEM_FENCE);
}
