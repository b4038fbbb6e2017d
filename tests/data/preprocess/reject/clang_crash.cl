// Clang's own debugging pragma crashes the compiler on purpose (an LLVM fatal
// error: `__debug crash` would leave a timer registered in the abandoned
// stack frame of a process that goes on compiling).
#pragma clang __debug llvm_fatal_error
__kernel void k(__global float *a) { a[0] = 1; }
