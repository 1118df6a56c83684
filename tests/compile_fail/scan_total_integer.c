// expect: (typed launch: TOTAL must point to|invalid conversion from [^ ]*int[^ ]* to)
/* A scan's total is a pointer: an integer variable (the count itself, not its address) does
 * not compile. C++ takes NULL, which is an integer there, and nothing else of that kind. */
#include <stddef.h>

#include "porta/porta.h"

typedef struct count_args {
  porta_view_i64 flags, offsets;
} count_args;

PORTA_SCAN(offsets, count_args, p, i, porta_sum_i64, upd, fin) {
  if (fin) PORTA_AT1(p->offsets, i) = *upd;
  *upd += PORTA_AT1(p->flags, i);
}

int launch(porta_exec e, const count_args *a) {
  int n = 0;
#ifdef PORTA_CF_CONTROL
  (void)n;
  return PORTA_PARALLEL_SCAN(offsets, e, porta_range(0, 8), a, NULL);
#else
  return PORTA_PARALLEL_SCAN(offsets, e, porta_range(0, 8), a, n);
#endif
}

int main(void) { return 0; }
