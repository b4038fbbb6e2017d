// Messages that talk about kernels without holding one.
const char* a = "every __kernel returns void; build(kernel) fails otherwise";
const char* b = "kernel void is the signature { see the manual }";
const char* c = "the kernel main(x) { ... } runs per work-item";
const char* d = "__kernel void broken(__global int* v";
