// Makes Clang's front end crash (its own debugging pragma): the driver's
// argument analysis must recover and record a crash.
#pragma clang __debug crash
kernel void front_end_crash(global float* a) { a[get_global_id(0)] = 1.0f; }
