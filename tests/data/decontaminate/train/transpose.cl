__kernel void transpose(__global const float* in, __global float* out, const int rows, const int cols,
                        __local float* tile) {
  int gx = get_global_id(0);
  int gy = get_global_id(1);
  int lx = get_local_id(0);
  int ly = get_local_id(1);
  int size = get_local_size(0);
  if (gx < cols && gy < rows) {
    tile[ly * size + lx] = in[gy * cols + gx];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gx < cols && gy < rows) {
    out[gx * rows + gy] = tile[ly * size + lx];
  }
}
