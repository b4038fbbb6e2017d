// Nondeterministic: the slot each work-item writes depends on the order in
// which work-groups reach the shared counter.
kernel void race(global int* counter, global int* out, const int n) {
  int slot = atomic_inc(&counter[0]);
  out[slot % n] = (int)get_global_id(0) + counter[1];
}
