/** @file bench_host_stream.c
 *  porta-bench: BabelStream's copy, scale, add, triad and dot on two array sets, and the cost
 *  of an empty launch, each against a hand-written OpenMP loop (bench_host.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_host.h"

/* Keeps the hand-written empty loop body from being optimised away. */
#if defined(__GNUC__)
#define BENCH_BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#define BENCH_BARRIER() ((void)0)
#endif

static const double start_a = 0.1, start_b = 0.2, start_c = 0.0, start_scalar = 0.4;

static void hand_copy(const double *a, double *c, int64_t n, int nt) {
  (void)nt; /* unused without OpenMP */
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 0; i < n; ++i) c[i] = a[i];
}
static void hand_scale(double *b, const double *c, double scalar, int64_t n, int nt) {
  (void)nt; /* unused without OpenMP */
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 0; i < n; ++i) b[i] = scalar * c[i];
}
static void hand_add(const double *a, const double *b, double *c, int64_t n, int nt) {
  (void)nt; /* unused without OpenMP */
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
static void hand_triad(double *a, const double *b, const double *c, double scalar, int64_t n,
                       int nt) {
  (void)nt; /* unused without OpenMP */
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
}
static double hand_dot(const double *a, const double *b, int64_t n, int nt) {
  (void)nt; /* unused without OpenMP */
  double sum = 0.0;
  PORTA_OMP(parallel for num_threads(nt) reduction(+ : sum))
  for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}
static void hand_empty(int nt) {
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 0; i < nt; ++i) BENCH_BARRIER();
}

/* ---- stream: copy, scale, add, triad, dot ------------------------------- */

/** One array set and the values every element should hold. */
typedef struct stream_set {
  porta_view_f64 a, b, c;
  double ga, gb, gc; /**< gold values */
  double dot;        /**< last dot result */
} stream_set;

static int stream_set_create(stream_set *s, const char *tag, int64_t n, int nt) {
  (void)nt; /* unused without OpenMP */
  char la[32], lb[32], lc[32];
  snprintf(la, sizeof la, "%s_a", tag);
  snprintf(lb, sizeof lb, "%s_b", tag);
  snprintf(lc, sizeof lc, "%s_c", tag);
  PORTA_CHECK(porta_view_f64_create1(&s->a, la, n));
  PORTA_CHECK(porta_view_f64_create1(&s->b, lb, n));
  PORTA_CHECK(porta_view_f64_create1(&s->c, lc, n));
  double *a = s->a.data, *b = s->b.data, *c = s->c.data;
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 0; i < n; ++i) {
    a[i] = start_a;
    b[i] = start_b;
    c[i] = start_c;
  }
  s->ga = start_a;
  s->gb = start_b;
  s->gc = start_c;
  s->dot = 0.0;
  return PORTA_SUCCESS;
}
static void stream_set_release(stream_set *s) {
  porta_view_f64_release(&s->a);
  porta_view_f64_release(&s->b);
  porta_view_f64_release(&s->c);
}

/** Run stream kernel k on set s, with Porta (porta != 0) or by hand; update the gold values. */
static double stream_run(bench *B, int k, stream_set *s, int porta) {
  const int64_t n = B->n;
  stream_args args;
  args.a = s->a;
  args.b = s->b;
  args.c = s->c;
  args.d = s->a; /* triad writes a (BabelStream's chain) */
  args.scalar = start_scalar;
  const porta_range_policy rg = porta_range(0, n);
  int rc = PORTA_SUCCESS;
  double t0 = porta_wtime();
  switch (k) {
  case B_COPY:
    if (porta)
      rc = PORTA_PARALLEL_FOR_LABELED("copy", bk_copy, B->ex, rg, &args);
    else
      hand_copy(s->a.data, s->c.data, n, B->nt);
    break;
  case B_SCALE:
    if (porta)
      rc = PORTA_PARALLEL_FOR_LABELED("scale", bk_scale, B->ex, rg, &args);
    else
      hand_scale(s->b.data, s->c.data, start_scalar, n, B->nt);
    break;
  case B_ADD:
    if (porta)
      rc = PORTA_PARALLEL_FOR_LABELED("add", bk_add, B->ex, rg, &args);
    else
      hand_add(s->a.data, s->b.data, s->c.data, n, B->nt);
    break;
  case B_TRIAD:
    if (porta)
      rc = PORTA_PARALLEL_FOR_LABELED("triad", bk_triad, B->ex, rg, &args);
    else
      hand_triad(s->a.data, s->b.data, s->c.data, start_scalar, n, B->nt);
    break;
  default:
    if (porta)
      rc = PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, B->ex, rg, &args, &s->dot);
    else
      s->dot = hand_dot(s->a.data, s->b.data, n, B->nt);
    break;
  }
  if (porta) rc |= porta_exec_fence(B->ex, "stream");
  const double t = porta_wtime() - t0;
  note_rc(B, rc);
  switch (k) {
  case B_COPY: s->gc = s->ga; break;
  case B_SCALE: s->gb = start_scalar * s->gc; break;
  case B_ADD: s->gc = s->ga + s->gb; break;
  case B_TRIAD: s->ga = s->gb + start_scalar * s->gc; break;
  default: break;
  }
  return t;
}

/** |error| relative to `gold` (absolute when gold is 0). */
static double rel_err(double err, double gold) { return gold != 0 ? fabs(err / gold) : fabs(err); }

/** BabelStream's check: mean relative error of each array, and of the dot product. */
static int stream_check(const stream_set *s, int64_t n, int with_dot, const char *who) {
  const double eps = 1.0e-8;
  double ea = 0, eb = 0, ec = 0;
  for (int64_t i = 0; i < n; ++i) {
    ea += fabs(s->a.data[i] - s->ga);
    eb += fabs(s->b.data[i] - s->gb);
    ec += fabs(s->c.data[i] - s->gc);
  }
  ea /= (double)n;
  eb /= (double)n;
  ec /= (double)n;
  int ok = 1;
  if (!(rel_err(ea, s->ga) <= eps && rel_err(eb, s->gb) <= eps && rel_err(ec, s->gc) <= eps)) {
    fprintf(stderr, "porta-bench: %s arrays wrong: mean |a-%g| %g, |b-%g| %g, |c-%g| %g\n", who,
            s->ga, ea, s->gb, eb, s->gc, ec);
    ok = 0;
  }
  if (with_dot) {
    const double gold = s->ga * s->gb * (double)n;
    if (!(rel_err(s->dot - gold, gold) <= eps)) {
      fprintf(stderr, "porta-bench: %s dot %.17g, expected %.17g\n", who, s->dot, gold);
      ok = 0;
    }
  }
  return ok;
}

void bench_stream(bench *B) {
  stream_set set[2];
  int ks[5], nk = 0;
  for (int k = B_COPY; k <= B_DOT; ++k)
    if (B->only[k]) ks[nk++] = k;
  if (nk == 0) return;
  note_rc(B, stream_set_create(&set[0], "set0", B->n, B->nt));
  note_rc(B, stream_set_create(&set[1], "set1", B->n, B->nt));
  if (B->porta_rc) return;
  double *tp = (double *)malloc((size_t)nk * B->reps * sizeof(double));
  double *th = (double *)malloc((size_t)nk * B->reps * sizeof(double));
  for (int r = -1; r < B->reps; ++r) {
    stream_set *ps = &set[bench_porta_set(r)], *hs = &set[!bench_porta_set(r)];
    for (int j = 0; j < nk; ++j) {
      double t_p, t_h;
      if (bench_porta_first(r)) {
        t_p = stream_run(B, ks[j], ps, 1);
        t_h = stream_run(B, ks[j], hs, 0);
      } else {
        t_h = stream_run(B, ks[j], hs, 0);
        t_p = stream_run(B, ks[j], ps, 1);
      }
      if (r >= 0) {
        tp[j * B->reps + r] = t_p;
        th[j * B->reps + r] = t_h;
      }
    }
  }
  const int with_dot = B->only[B_DOT];
  const int ok = stream_check(&set[0], B->n, with_dot, "set 0") &
                 stream_check(&set[1], B->n, with_dot, "set 1");
  static const int arrays[5] = {2, 2, 3, 3, 2};
  for (int j = 0; j < nk; ++j) {
    bench_row *rw = &B->rows[ks[j]];
    bench_row_stats(rw, &tp[j * B->reps], &th[j * B->reps], B->reps);
    rw->bytes = (double)arrays[ks[j] - B_COPY] * sizeof(double) * (double)B->n;
    rw->check_ok = ok && B->porta_rc == 0;
    if (ks[j] == B_TRIAD || ks[j] == B_DOT) bench_crit_ratio(rw, 0.97, "hand");
  }
  free(tp);
  free(th);
  stream_set_release(&set[0]);
  stream_set_release(&set[1]);
}

/* ---- empty launch ------------------------------------------------------- */

static double launch_porta(bench *B) {
  empty_args e;
  e.unused = 0;
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int l = 0; l < LAUNCHES_PER_REP; ++l)
    rc |= PORTA_PARALLEL_FOR_LABELED("empty", bk_empty, B->ex, porta_range(0, B->nt), &e);
  rc |= porta_exec_fence(B->ex, "empty");
  const double t = porta_wtime() - t0;
  note_rc(B, rc);
  return t / LAUNCHES_PER_REP;
}
static double launch_hand(bench *B) {
  const double t0 = porta_wtime();
  for (int l = 0; l < LAUNCHES_PER_REP; ++l) hand_empty(B->nt);
  return (porta_wtime() - t0) / LAUNCHES_PER_REP;
}

/** The launch benchmark's sides: LAUNCHES_PER_REP launches, the time per launch. */
static double launch_side(void *ctx, int porta, int rep) {
  (void)rep;
  bench *B = (bench *)ctx;
  return porta ? launch_porta(B) : launch_hand(B);
}

void bench_launch(bench *B) {
  bench_row *rw = &B->rows[B_LAUNCH];
  bench_abba(B->reps, 1, launch_side, B, B->tp, B->th);
  bench_row_stats(rw, B->tp, B->th, B->reps);
  rw->us = 1;
  rw->check_ok = B->porta_rc == 0;
  const double d = bench_paired_median(B->tp, B->th, B->reps, 0) * 1e6;
  rw->has_crit = 1;
  rw->crit_ok = d <= 0.2;
  snprintf(rw->accept, sizeof rw->accept, "<= hand+0.20us: %+.3fus %s", d,
           rw->crit_ok ? "PASS" : "MISS");
}
