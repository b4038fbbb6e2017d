#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// global memory, local memory and constant memory
/* a kernel reads read_only images and writes write_only ones */
kernel void literals(global int* global_ids, local int* local_tile) {
  int constant_ = 'k';
  printf("kernel global local constant private read_only write_only read_write\n");
  global_ids[0] = local_tile[0] + constant_;  // private
}
