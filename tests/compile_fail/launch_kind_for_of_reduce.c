// expect: typed launch: .*reduction or scan kernel
/* PORTA_PARALLEL_FOR of a reduction does not compile (the untyped call fails only when it runs,
 * with PORTA_ERROR_INVALID_ARGUMENT). */
#include "porta/porta.h"

typedef struct sum_args {
  porta_view_f64 x;
} sum_args;

PORTA_FOR(scale2, sum_args, p, i) { PORTA_AT1(p->x, i) *= 2.0; }
PORTA_REDUCE(total, sum_args, p, i, porta_sum_f64, acc) { *acc += PORTA_AT1(p->x, i); }

int launch(porta_exec e, const sum_args *a) {
#ifdef PORTA_CF_CONTROL
  return PORTA_PARALLEL_FOR(scale2, e, porta_range(0, 8), a);
#else
  return PORTA_PARALLEL_FOR(total, e, porta_range(0, 8), a);
#endif
}

int main(void) { return 0; }
