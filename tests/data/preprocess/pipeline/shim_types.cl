// Relies on the shim for FLOAT_T and WG_SIZE.
__kernel void fill(__global FLOAT_T *out) {
  __local FLOAT_T tile[WG_SIZE];
  int l = get_local_id(0);
  tile[l] = (FLOAT_T)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[WG_SIZE - 1 - l];
}
