// A typedef with an attribute after its name, a struct declared ahead of its
// definition, and a kernel declared before it is defined (its prototype is
// not reached: nothing the kernel reaches calls it).
typedef struct { float4 a; int n; } Params __attribute__((aligned(16)));
struct Node;
typedef struct Node Node;
struct Node { int value; };
struct Unused { int u; } __attribute__((packed));

__kernel void run(__global Params* p, __global Node* nodes);

__kernel void run(__global Params* p, __global Node* nodes) {
  nodes[get_global_id(0)].value = p->n + (int)p->a.x;
}
