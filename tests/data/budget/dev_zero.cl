// An include of an endless device: Clang's in-memory file system has no /dev, so it is not found.
#include "/dev/zero"
__kernel void dev_zero(__global int* a) { a[get_global_id(0)] = 1; }
