// Two kernels sharing a helper.
__kernel void vector_add(__global const float *x, __global const float *y, __global float *out) {
  int gid = get_global_id(0);
  out[gid] = x[gid] + y[gid];
}

__kernel void vector_scale(__global float *data, float factor)
{
  int gid = get_global_id(0); data[gid] *= factor;
}
