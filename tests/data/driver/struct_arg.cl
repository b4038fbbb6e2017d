// Unsupported arguments: a pointer to a struct.
typedef struct { float x; int y; } pair_t;
kernel void struct_arg(global pair_t* pairs, global float* out) {
  int i = get_global_id(0);
  out[i] = pairs[i].x + pairs[i].y;
}
