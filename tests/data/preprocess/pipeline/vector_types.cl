__kernel void blend(__global float4 *a, __global const float4 *b, const float t) {
    int i = get_global_id(0);
    float4 v = mix(a[i], b[i], (float4)(t));
    uint2 mask = (uint2)(1, 2);
    a[i] = v * (float)(mask.x + mask.y);
    a[i].xy = v.zw;
}
