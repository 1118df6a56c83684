/** @file main.c
 *  A program outside the Porta tree: initialise, run one kernel on the default
 *  back end (generated here, so this file must get the OpenMP flags from the
 *  package), check the values, finalise. */
#include <stdio.h>

#include "porta/porta.h"

typedef struct fill_args {
  porta_view_f64 x;
} fill_args;

PORTA_FOR(consumer_fill, fill_args, a, i) { PORTA_AT1(a->x, i) = 2.0 * (double)i; }

int main(int argc, char **argv) {
  if (porta_initialize(&argc, &argv) != PORTA_SUCCESS) {
    fprintf(stderr, "porta_initialize failed: %s\n", porta_last_error_message());
    return 1;
  }
  const int64_t n = 1000;
  fill_args args;
  int bad = 0;
  if (porta_view_f64_create1(&args.x, "x", n) != PORTA_SUCCESS ||
      porta_parallel_for("fill", porta_exec_default(), porta_range(0, n), &consumer_fill, &args) !=
          PORTA_SUCCESS ||
      porta_fence("fill") != PORTA_SUCCESS) {
    fprintf(stderr, "porta call failed: %s\n", porta_last_error_message());
    bad = 1;
  } else {
    for (int64_t i = 0; i < n; ++i)
      if (args.x.data[i] != 2.0 * (double)i) ++bad;
  }
  porta_view_f64_release(&args.x);
  if (porta_finalize() != PORTA_SUCCESS) bad = 1;
  printf("porta consumer: %s\n", bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}
