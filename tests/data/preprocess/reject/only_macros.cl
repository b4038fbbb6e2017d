#define N 1024
#define SQUARE(x) ((x) * (x))
#define KERNEL_NAME compute
