// expect: typed launch: TOTAL must point to
/* A scan's total is the kernel's value type (or NULL). */
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
  int64_t n64 = 0;
  int n32 = 0;
  (void)n64;
  (void)n32;
#ifdef PORTA_CF_CONTROL
  int rc = PORTA_PARALLEL_SCAN(offsets, e, porta_range(0, 8), a, &n64);
  return rc | PORTA_PARALLEL_SCAN(offsets, e, porta_range(0, 8), a, NULL);
#else
  return PORTA_PARALLEL_SCAN(offsets, e, porta_range(0, 8), a, &n32);
#endif
}

int main(void) { return 0; }
