// kernel: img
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
union Bits { float f; uint u; };
struct Inner { int k; };
struct Outer { struct Inner in; float w; };

uint bits_of(float f) { union Bits b; b.f = f; return b.u; }

__kernel void img(read_only image2d_t src, __global uint* out, __global struct Outer* o) {
  int2 pos = (int2)(get_global_id(0), get_global_id(1));
  float4 px = read_imagef(src, smp, pos);
  out[pos.x] = bits_of(px.x) + o[0].in.k;
}
// kernel: other
struct Lonely { int z; };

__kernel void other(__global float* x) { x[0] = (float)sizeof(struct Lonely) + 1.0f; x[1] = 2.0f; }
