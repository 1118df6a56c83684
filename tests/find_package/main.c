/** @file main.c
 *  A program outside the Porta tree: initialise, run one kernel on the default
 *  back end (generated here, so this file must get the OpenMP flags from the
 *  package), check the values through a host mirror (on a GPU the view is in
 *  device memory), finalise. */
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
  porta_mirror_f64 host;
  int bad = 0;
  if (porta_view_f64_create1(&args.x, "x", n) != PORTA_SUCCESS ||
      PORTA_PARALLEL_FOR(consumer_fill, porta_exec_default(), porta_range(0, n), &args) !=
          PORTA_SUCCESS ||
      porta_view_f64_create_mirror_view(&host, &args.x) != PORTA_SUCCESS ||
      porta_deep_copy(host, args.x) != PORTA_SUCCESS) {
    fprintf(stderr, "porta call failed: %s\n", porta_last_error_message());
    return 1;
  }
  for (int64_t i = 0; i < n; ++i)
    if (host.data[i] != 2.0 * (double)i) ++bad;
  printf("porta consumer: %s back end, %s\n", porta_backend_name(porta_exec_default().backend),
         porta_memory_space_name((porta_memory_space)args.x.m.space));
  porta_mirror_f64_release(&host);
  porta_view_f64_release(&args.x);
  if (porta_finalize() != PORTA_SUCCESS) bad = 1;
  printf("porta consumer: %s\n", bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}
