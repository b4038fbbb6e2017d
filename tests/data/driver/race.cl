// Nondeterministic: the slot each work-item writes depends on the order in
// which concurrently running work-groups reach the shared counter; a busy
// loop keeps the work-groups running long enough to interleave.
kernel void race(global int* counter, global int* out, const int n) {
  int gid = get_global_id(0);
  float x = (float)gid;
  for (int k = 0; k < 1000 + (gid * 7919) % 1000; ++k) x = x * 0.999f + 1.0f;
  int slot = atomic_inc(&counter[0]);
  out[slot % n] = gid + (x > 1e30f ? 1 : 0);
}
