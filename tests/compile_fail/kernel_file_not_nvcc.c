// expect: Porta kernel scale_kernel is in a file that nvcc does not compile
// languages: c cxx
// requires: cuda
// host-kernels-only: no
/* In a CUDA build, a kernel file the host compiler compiles (not listed for nvcc) would get no
 * CUDA launcher and fail at its first launch on a GPU: the build stops instead, naming the
 * kernel. The control declares itself host-only. */
#ifdef PORTA_CF_CONTROL
#define PORTA_HOST_KERNELS_ONLY
#endif
#include "porta/porta.h"

typedef struct scale_args {
  porta_view_f64 x;
  double a;
} scale_args;

PORTA_FOR(scale_kernel, scale_args, p, i) { PORTA_AT1(p->x, i) *= p->a; }

int main(void) { return 0; }
