// expect: typed launch: .*parallel_for kernel
/* PORTA_PARALLEL_REDUCE of a parallel_for kernel does not compile, with a message that says
 * which launch fits (not only that scale2_value_t is unknown). */
#include "porta/porta.h"

typedef struct sum_args {
  porta_view_f64 x;
} sum_args;

PORTA_FOR(scale2, sum_args, p, i) { PORTA_AT1(p->x, i) *= 2.0; }
PORTA_REDUCE(total, sum_args, p, i, porta_sum_f64, acc) { *acc += PORTA_AT1(p->x, i); }

int launch(porta_exec e, const sum_args *a) {
  double sum;
#ifdef PORTA_CF_CONTROL
  return PORTA_PARALLEL_REDUCE(total, e, porta_range(0, 8), a, &sum);
#else
  return PORTA_PARALLEL_REDUCE(scale2, e, porta_range(0, 8), a, &sum);
#endif
}

int main(void) { return 0; }
