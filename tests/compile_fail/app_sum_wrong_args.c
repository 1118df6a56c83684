// expect: typed launch: ARGS must point to
/* The apps' global sums are typed launches too: APP_SUM_REDUCE_INTO (a device loop's sum)
 * with another kernel's argument struct does not compile (the untyped call it replaced, through
 * the kernel's descriptor, would have run the kernel on the wrong bytes). */
#include "app_sum.h"

typedef struct dot_args {
  porta_view_f64 x, y;
} dot_args;
typedef struct norm_args {
  porta_view_f64 x;
} norm_args;

APP_SUM_KERNEL(dot, dot_args, a, i) { return PORTA_AT1(a->x, i) * PORTA_AT1(a->y, i); }

int launch(porta_exec e, const dot_args *d, const norm_args *n, app_sum_to out) {
  (void)n;
#ifdef PORTA_CF_CONTROL
  return APP_SUM_REDUCE_INTO(dot, "dot", e, porta_range(0, 8), d, out);
#else
  (void)d;
  return APP_SUM_REDUCE_INTO(dot, "dot", e, porta_range(0, 8), n, out);
#endif
}

int main(void) { return 0; }
