// expect: typed launch: ARGS must point to
/* A kernel defined in another file, declared with its types, checks launches here too. */
#include "porta/porta.h"

typedef struct axpy_args {
  porta_view_f64 x, y;
  double a;
} axpy_args;
typedef struct copy_args {
  porta_view_f64 x, y;
} copy_args;

PORTA_DECLARE_KERNEL(axpy, axpy_args)

int launch(porta_exec e, axpy_args *aa, copy_args *ca) {
  (void)aa;
  (void)ca;
#ifdef PORTA_CF_CONTROL
  return PORTA_PARALLEL_FOR(axpy, e, porta_range(0, 8), aa);
#else
  return PORTA_PARALLEL_FOR(axpy, e, porta_range(0, 8), ca);
#endif
}

int main(void) { return 0; }
