// A helper header, included by scale_lerp.cl beside it.
float lerp_to(const float a, const float b, const float t) { return a + (b - a) * t; }
