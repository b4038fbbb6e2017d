// An untyped buffer the kernel casts to the type it uses: fed as raw bytes.
typedef struct { uint a; uint b; } pair_t;
kernel void void_pointer(global void* in, global uint* out) {
  int i = get_global_id(0);
  global const pair_t* p = (global const pair_t*)in;
  out[i] = p[i].a ^ p[i].b;
}
