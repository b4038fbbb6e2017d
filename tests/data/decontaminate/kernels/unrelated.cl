// A kernel of its own: a bucketed count of the set bits of each word, with a
// local histogram merged into the global one.
__kernel void popcount_histogram(__global const uint* words, __global uint* buckets, __local uint* local_buckets,
                                 const uint count) {
  uint lid = get_local_id(0);
  uint gid = get_global_id(0);
  if (lid < 33) local_buckets[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gid < count) {
    uint v = words[gid];
    uint bits = 0;
    while (v != 0) {
      v &= v - 1;
      bits++;
    }
    atomic_inc(&local_buckets[bits]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 33) atomic_add(&buckets[lid], local_buckets[lid]);
}
