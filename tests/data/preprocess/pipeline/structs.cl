typedef struct {
  float x;
  float y;
  int a;
} Particle;

__kernel void step(__global Particle *particles, float dt) {
  int i = get_global_id(0);
  Particle p = particles[i];
  p.x += p.y * dt;
  p.a = i;
  particles[i] = p;
}
