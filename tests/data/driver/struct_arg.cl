// A pointer to a struct: fed as the struct's bytes (the device's own argument info cannot describe it).
typedef struct { float x; int y; } pair_t;
kernel void struct_arg(global pair_t* pairs, global float* out) {
  int i = get_global_id(0);
  out[i] = pairs[i].x + pairs[i].y;
}
