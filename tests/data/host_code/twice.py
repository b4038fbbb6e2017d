import pyopencl as cl

KERNEL = """
__kernel void twice(__global float *a)
{
    a[get_global_id(0)] *= 2.0f;
}
"""

HELP = "Build the __kernel first, then run it."  # prose: no kernel


def build(ctx, name="k"):
    src = ('__kernel void inc(__global int *a) '
           "{ a[get_global_id(0)] += 1; }")
    templ = f"__kernel void {name}(__global int *a) {{ a[0] = 1; }}"
    return cl.Program(ctx, KERNEL + src + templ).build()
