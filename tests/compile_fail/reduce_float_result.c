// expect: typed launch: RESULT must point to
/* A porta_sum_f64 reduction into a float does not compile (the untyped call writes 8 bytes
 * into a 4-byte float). */
#include "porta/porta.h"

typedef struct sum_args {
  porta_view_f64 x;
} sum_args;

PORTA_REDUCE(total, sum_args, p, i, porta_sum_f64, acc) { *acc += PORTA_AT1(p->x, i); }

int launch(porta_exec e, const sum_args *a) {
#ifdef PORTA_CF_CONTROL
  double sum;
#else
  float sum;
#endif
  return PORTA_PARALLEL_REDUCE(total, e, porta_range(0, 8), a, &sum);
}

int main(void) { return 0; }
