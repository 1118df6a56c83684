// expect: typed launch: ARGS must point to
/* A typed launch with another kernel's argument struct does not compile (the untyped call
 * would have run the kernel on the wrong bytes). */
#include "porta/porta.h"

typedef struct scale_args {
  porta_view_f64 x;
  double a;
} scale_args;
typedef struct shift_args {
  porta_view_f64 x;
  int64_t by;
} shift_args;

PORTA_FOR(scale, scale_args, p, i) { PORTA_AT1(p->x, i) *= p->a; }

int launch(porta_exec e, scale_args *sa, shift_args *sh) {
  (void)sh;
#ifdef PORTA_CF_CONTROL
  return PORTA_PARALLEL_FOR(scale, e, porta_range(0, 8), sa);
#else
  (void)sa;
  return PORTA_PARALLEL_FOR(scale, e, porta_range(0, 8), sh);
#endif
}

int main(void) { return 0; }
