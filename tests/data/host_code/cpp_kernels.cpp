// A host program that keeps its kernels in string literals.
#include <CL/cl.h>
static const char* add_src =
    "__kernel void add(__global const float* a,\n"
    "                  __global float* b) {\n"
    "  b[get_global_id(0)] += a[get_global_id(0)];\n"
    "}\n";

static const char* scale_src = R"CLC(
__kernel void scale(__global float* x, float k) {
  x[get_global_id(0)] *= k; // "quoted" stays as is
}
)CLC";

#define NEGATE_SRC "kernel void negate(global int* v) { v[get_global_id(0)] = -v[get_global_id(0)]; }"

const char* log_src = "__kernel void log_it(__global int* v) {"
                      " printf(\"v = \\\"%d\\\"\\n\", v[0]); }";

#define STRINGIFY(src) #src
const char* fill_src = STRINGIFY(
__kernel void fill(__global int* v) { v[get_global_id(0)] = 7; }
);

const char* message = "could not build the __kernel; see the log";
const char quote = '"';
int main() { return quote == 0; }
