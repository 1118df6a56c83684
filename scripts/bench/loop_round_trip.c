/** @file loop_round_trip.c
 *  A solver-like loop with and without the host round trip (scripts/bench-round-trip): each
 *  iteration y += a x, s = y.y, x *= 1 - c s (a kernel that needs the sum), as the host loop
 *  (a blocking reduction: the value goes to the host, which passes it to the next kernel) and as
 *  a porta_loop (the sum reduced into device memory and read there, a one-thread kernel deciding
 *  whether another iteration runs). Both end with the same bits in x, y and s (checked before any
 *  time is reported); one table of microseconds per iteration, medians over reps, for a small
 *  and a large vector. Any back end: on the host the two differ by a function call.
 *
 *    porta-bench-loop [--porta-backend=cuda] [REPS (5)] [ITERATIONS (2000)]
 *
 *  Kernel file (C++17 compatible). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

typedef struct {
  porta_view_f64 x, y, s; /**< s[0]: the sum y.y of this iteration */
  double a, c;
  double host_s; /**< the host loop's sum */
} iter_args;

PORTA_FOR(lrt_axpy, iter_args, p, i) { PORTA_AT1(p->y, i) += p->a * PORTA_AT1(p->x, i); }

PORTA_REDUCE(lrt_dot, iter_args, p, i, porta_sum_f64, acc) {
  *acc += PORTA_AT1(p->y, i) * PORTA_AT1(p->y, i);
}

/** x *= 1 - c s, s from the host (the host loop) */
PORTA_FOR(lrt_scale_host, iter_args, p, i) { PORTA_AT1(p->x, i) *= 1.0 - p->c * p->host_s; }

/** x *= 1 - c s, s from device memory (the recorded loop) */
PORTA_FOR(lrt_scale_dev, iter_args, p, i) { PORTA_AT1(p->x, i) *= 1.0 - p->c * PORTA_AT1(p->s, 0); }

typedef struct {
  porta_view_i64 count; /**< [0] iterations run, [1] the limit */
  porta_view_i32 repeat;
} decide_args;

PORTA_FOR(lrt_decide, decide_args, p, i) {
  PORTA_AT1(p->repeat, 0) = ++PORTA_AT1(p->count, 0) < PORTA_AT1(p->count, 1);
}

PORTA_FOR(lrt_init, iter_args, p, i) {
  PORTA_AT1(p->x, i) = 1.0 + 1e-3 * (double)(i % 101);
  PORTA_AT1(p->y, i) = 0.5 - 1e-4 * (double)(i % 37);
}

typedef struct {
  iter_args it;
  decide_args d;
  int64_t n;
} loop_ctx;

static int pass(porta_exec ex, void *ctx) {
  loop_ctx *l = (loop_ctx *)ctx;
  PORTA_CHECK(PORTA_PARALLEL_FOR(lrt_axpy, ex, porta_range(0, l->n), &l->it));
  PORTA_CHECK(PORTA_PARALLEL_REDUCE_INTO(lrt_dot, ex, porta_range(0, l->n), &l->it,
                                         &PORTA_AT1(l->it.s, 0)));
  PORTA_CHECK(PORTA_PARALLEL_FOR(lrt_scale_dev, ex, porta_range(0, l->n), &l->it));
  return PORTA_PARALLEL_FOR(lrt_decide, ex, porta_range(0, 1), &l->d);
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != PORTA_SUCCESS) {                                                                 \
      fprintf(stderr, "porta-bench-loop: %s\n", porta_last_error_message());                       \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int k) {
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/** The host loop's run: `iters` iterations from the initial values; its last sum. */
static double host_run(loop_ctx *l, int64_t iters, porta_exec ex) {
  CHECK(PORTA_PARALLEL_FOR(lrt_init, ex, porta_range(0, l->n), &l->it));
  double s = 0.0;
  for (int64_t k = 0; k < iters; ++k) {
    CHECK(PORTA_PARALLEL_FOR(lrt_axpy, ex, porta_range(0, l->n), &l->it));
    CHECK(PORTA_PARALLEL_REDUCE(lrt_dot, ex, porta_range(0, l->n), &l->it, &s));
    l->it.host_s = s;
    CHECK(PORTA_PARALLEL_FOR(lrt_scale_host, ex, porta_range(0, l->n), &l->it));
  }
  CHECK(porta_exec_fence(ex, "host loop"));
  return s;
}

/** The recorded loop's run (the count and limit set by a kernel, as a solver's start would). */
static void loop_run(loop_ctx *l, porta_loop *loop, porta_exec ex) {
  CHECK(PORTA_PARALLEL_FOR(lrt_init, ex, porta_range(0, l->n), &l->it));
  CHECK(porta_loop_run(loop));
  CHECK(porta_exec_fence(ex, "recorded loop"));
}

/** Copies of x and y on the host, to compare the two loops' ends bit for bit. */
static void snapshot(const loop_ctx *l, double *x, double *y) {
  porta_mirror_f64 hx, hy;
  CHECK(porta_view_f64_create_mirror_view(&hx, &l->it.x));
  CHECK(porta_view_f64_create_mirror_view(&hy, &l->it.y));
  CHECK(porta_deep_copy(hx, l->it.x));
  CHECK(porta_deep_copy(hy, l->it.y));
  memcpy(x, hx.data, (size_t)l->n * sizeof(double));
  memcpy(y, hy.data, (size_t)l->n * sizeof(double));
  porta_mirror_f64_release(&hx);
  porta_mirror_f64_release(&hy);
}

/** One row: check, then time both ways `reps` times, alternating. 0 when the check failed. */
static int row(int64_t n, int64_t iters, int reps) {
  const porta_exec ex = porta_exec_default();
  loop_ctx l;
  memset(&l, 0, sizeof l);
  l.n = n;
  l.it.a = 1e-3;
  l.it.c = 1e-12 / (double)n;
  CHECK(porta_view_f64_create1(&l.it.x, "x", n));
  CHECK(porta_view_f64_create1(&l.it.y, "y", n));
  CHECK(porta_view_f64_create1(&l.it.s, "s", 1));
  CHECK(porta_view_i64_create1(&l.d.count, "count", 2));
  CHECK(porta_view_i32_create1(&l.d.repeat, "repeat", 1));
  porta_mirror_i64 hc;
  porta_mirror_f64 hs;
  CHECK(porta_view_i64_create_mirror_view(&hc, &l.d.count));
  CHECK(porta_view_f64_create_mirror_view(&hs, &l.it.s));
  porta_loop *loop = NULL;
  CHECK(
      porta_loop_create("loop_round_trip", ex, pass, &l, &PORTA_AT1(l.d.repeat, 0), iters, &loop));
  double *xh = (double *)malloc((size_t)n * 2 * sizeof(double));
  double *xl = (double *)malloc((size_t)n * 2 * sizeof(double));
  if (!xh || !xl) exit(2);
  double t_host[64], t_loop[64], s_host = 0.0, s_loop = -1.0;
  int ok = 1;
  for (int r = -1; r < reps; ++r) { /* r = -1: the check (and warm-up) */
    for (int side = 0; side < 2; ++side) {
      const int host = (side == 0) == (r % 2 == 0);
      hc.data[0] = 0; /* count 0, limit iters (on the host hc is l.d.count itself) */
      hc.data[1] = iters;
      CHECK(porta_deep_copy(l.d.count, hc));
      const double t0 = porta_wtime();
      double s = 0.0;
      if (host)
        s = host_run(&l, iters, ex);
      else
        loop_run(&l, loop, ex);
      const double us = 1e6 * (porta_wtime() - t0) / (double)iters;
      if (r >= 0) (host ? t_host : t_loop)[r] = us;
      if (r < 0) {
        snapshot(&l, host ? xh : xl, (host ? xh : xl) + n);
        if (host) {
          s_host = s;
        } else { /* the count, the passes and the last sum as the host loop's */
          CHECK(porta_deep_copy(hc, l.d.count));
          CHECK(porta_deep_copy(hs, l.it.s));
          int64_t passes = 0;
          CHECK(porta_loop_passes(loop, &passes));
          ok &= hc.data[0] == iters && passes == iters;
          s_loop = hs.data[0];
        }
      }
    }
    if (r < 0)
      ok &= memcmp(xh, xl, (size_t)n * 2 * sizeof(double)) == 0 &&
            memcmp(&s_host, &s_loop, sizeof s_host) == 0;
  }
  const double mh = median(t_host, reps), ml = median(t_loop, reps);
  printf("%12lld %10lld %14.2f %14.2f %10.2f %8s\n", (long long)n, (long long)iters, mh, ml,
         mh / ml, ok ? "same" : "DIFFER");
  free(xh);
  free(xl);
  CHECK(porta_loop_destroy(loop));
  porta_mirror_i64_release(&hc);
  porta_mirror_f64_release(&hs);
  porta_view_f64_release(&l.it.x);
  porta_view_f64_release(&l.it.y);
  porta_view_f64_release(&l.it.s);
  porta_view_i64_release(&l.d.count);
  porta_view_i32_release(&l.d.repeat);
  return ok;
}

int main(int argc, char **argv) {
  if (porta_initialize(&argc, &argv) != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench-loop: %s\n", porta_last_error_message());
    return 2;
  }
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  const long long iters = argc > 2 ? atoll(argv[2]) : 2000;
  if (reps < 1 || reps > 64 || iters < 1) {
    fprintf(stderr, "usage: porta-bench-loop [--porta-backend=B] [REPS 1..64 (5)] [ITERATIONS "
                    "(2000)]\n");
    return 2;
  }
  printf("a solver's loop (y += a x; s = y.y; x *= 1 - c s) with the host round trip and as a "
         "recorded loop (porta_loop): %s back end%s%s, %lld iterations, %d reps\n",
         porta_backend_name(porta_exec_default().backend), *porta_device_name() ? ", " : "",
         porta_device_name(), iters, reps);
  printf("%12s %10s %14s %14s %10s %8s\n", "elements", "iterations", "host us/it", "loop us/it",
         "host/loop", "answers");
  int ok = row(1 << 10, iters, reps);
  ok &= row(8000000, iters / 10 > 0 ? iters / 10 : 1, reps);
  printf("answers: the loop's x, y and iteration count %s the host loop's, bit for bit\n",
         ok ? "equal" : "DO NOT EQUAL");
  porta_finalize();
  return ok ? 0 : 1;
}
