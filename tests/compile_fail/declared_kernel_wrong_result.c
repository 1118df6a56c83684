// expect: typed launch: RESULT must point to
/* A reduction defined in another file, declared with its reducer: a float result for its
 * porta_sum_f64 does not compile here either, in the labeled form too. */
#include "porta/porta.h"

typedef struct dot_args {
  porta_view_f64 x, y;
} dot_args;

PORTA_DECLARE_KERNEL(dot, dot_args, porta_sum_f64)

int launch(porta_exec e, const dot_args *a) {
#ifdef PORTA_CF_CONTROL
  double d;
#else
  float d;
#endif
  return PORTA_PARALLEL_REDUCE_LABELED("dot_halo", dot, e, porta_range(0, 8), a, &d);
}

int main(void) { return 0; }
