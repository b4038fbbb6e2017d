// kernel: run
typedef struct { float4 a; int n; } Params __attribute__((aligned(16)));
struct Node;
typedef struct Node Node;
struct Node { int value; };

__kernel void run(__global Params* p, __global Node* nodes) {
  nodes[get_global_id(0)].value = p->n + (int)p->a.x;
}
