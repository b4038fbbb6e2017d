// One argument of every kind, for payload and read/write analysis tests.
kernel void args_mix(global const float4* in, global float* out, global int* inout,
                     local float* scratch, constant int* table, const int n,
                     const float scale, global uint* written_via_call) {
  int i = get_global_id(0);
  int l = get_local_id(0);
  scratch[l] = in[i].x * scale;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = scratch[l] + (float)table[i % 4];
  inout[i] += n;
  atomic_add(&written_via_call[0], 1u);
}
