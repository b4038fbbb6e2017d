typedef struct {
  float x;
  float y;
  int a;
} Particle;

__kernel void A(__global Particle* b, float c) {
  int d = get_global_id(0);
  Particle e = b[d];
  e.x += e.y * c;
  e.a = d;
  b[d] = e;
}
