/** Exercise 02, solution: reductions. A dot product with a built-in reducer, the minimum and
 *  the maximum together with a custom reducer, and deterministic reductions.
 *
 *  The serial original:
 *
 *    double dot = 0, lo = INFINITY, hi = -INFINITY, s = 0;
 *    for (i = 0; i < n; ++i) dot += x[i] * y[i];
 *    for (i = 0; i < n; ++i) { if (z[i] < lo) lo = z[i]; if (z[i] > hi) hi = z[i]; }
 *    for (i = 0; i < n; ++i) s += w[i];      (w: magnitudes 1e-8 .. 1e8)
 *
 *  Answers: dot = 4000002 (x(i) = 1 + i % 3, y(i) = i % 5: integers, so exact in any order);
 *  min = -500000, max = 500002 (z(i) = (7919 i mod n) - 500000 with n = 1000003, a prime, so
 *  7919 i mod n takes every value 0 .. n-1 once); and the sum of w is bitwise the same on the
 *  Serial back end and on OpenMP with 1 and 2 threads when reductions are deterministic.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tutorial.h"

typedef struct {
  porta_view_f64 x, y, z;
} vec_args;

/* 1. A built-in reducer: porta_sum_f64 (its value type is double). The body adds its term to
 *    *acc, the thread's private partial; Porta joins the partials.
 *    Kokkos: parallel_reduce(n, KOKKOS_LAMBDA(int64_t i, double &acc) { acc += x(i) * y(i); },
 *    dot); */
PORTA_REDUCE(dot_k, vec_args, a, i, porta_sum_f64, acc) {
  *acc += PORTA_AT1(a->x, i) * PORTA_AT1(a->y, i);
}

/* 2. A custom reducer R is three names: R_value (the type), R_init (the identity) and R_join
 *    (combine two partials). Kokkos: a custom reducer class, or a struct value type with
 *    init() and join(). Both functions must be callable on the device: PORTA_INLINE_FUNCTION. */
typedef struct {
  double min, max;
} minmax_value;
PORTA_INLINE_FUNCTION void minmax_init(minmax_value *v) {
  v->min = HUGE_VAL; /* identities: min of nothing is +inf, max of nothing -inf */
  v->max = -HUGE_VAL;
}
PORTA_INLINE_FUNCTION void minmax_join(minmax_value *d, const minmax_value *s) {
  if (s->min < d->min) d->min = s->min;
  if (s->max > d->max) d->max = s->max;
}

PORTA_REDUCE(minmax_k, vec_args, a, i, minmax, acc) {
  const double v = PORTA_AT1(a->z, i);
  if (v < acc->min) acc->min = v;
  if (v > acc->max) acc->max = v;
}

/* 3. A plain sum, for the deterministic mode. */
typedef struct {
  porta_view_f64 w;
} sum_args;
PORTA_REDUCE(sum_k, sum_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->w, i); }

/** A fixed-seed LCG: the next value in [0, 1). */
static double next_u01(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

int main(int argc, char **argv) {
  TUT_CHECK(porta_initialize(&argc, &argv));
  const int64_t n = 1000003;
  const porta_exec space = porta_exec_default();
  int ok = 1;

  /* ---- data: views in the default space, filled through host mirrors ---- */
  vec_args v;
  TUT_CHECK(porta_view_f64_create1(&v.x, "x", n));
  TUT_CHECK(porta_view_f64_create1(&v.y, "y", n));
  TUT_CHECK(porta_view_f64_create1(&v.z, "z", n));
  porta_mirror_f64 hx;
  porta_mirror_f64 hy;
  porta_mirror_f64 hz;
  TUT_CHECK(porta_view_f64_create_mirror_view(&hx, &v.x));
  TUT_CHECK(porta_view_f64_create_mirror_view(&hy, &v.y));
  TUT_CHECK(porta_view_f64_create_mirror_view(&hz, &v.z));
  double want_dot = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    PORTA_S1(hx, i) = (double)(1 + i % 3);
    PORTA_S1(hy, i) = (double)(i % 5);
    PORTA_S1(hz, i) = (double)((i * 7919) % n) - 500000.0;
    want_dot += PORTA_S1(hx, i) * PORTA_S1(hy, i); /* the serial loop: exact (integers) */
  }
  TUT_CHECK(porta_deep_copy(v.x, hx));
  TUT_CHECK(porta_deep_copy(v.y, hy));
  TUT_CHECK(porta_deep_copy(v.z, hz));

  /* ---- 1. dot product: the result lands in a host variable (the call is blocking) ---- */
  double dot = -1.0;
  TUT_CHECK(PORTA_PARALLEL_REDUCE(dot_k, space, porta_range(0, n), &v, &dot));
  if (dot != want_dot) {
    fprintf(stderr, "dot = %.17g, want %.17g\n", dot, want_dot);
    ok = 0;
  }

  /* ---- 2. min and max in one pass with the custom reducer ---- */
  minmax_value mm;
  TUT_CHECK(PORTA_PARALLEL_REDUCE(minmax_k, space, porta_range(0, n), &v, &mm));
  if (mm.min != -500000.0 || mm.max != 500002.0) {
    fprintf(stderr, "min = %.17g, max = %.17g, want -500000 and 500002\n", mm.min, mm.max);
    ok = 0;
  }
  /* The init must be the identity of the join: over z(0:1) alone (one value, -500000) the
   * minimum and the maximum are both that value on every back end (a thread with no element
   * contributes the init alone). An init of 0 passes the full range but not this one. */
  minmax_value one;
  TUT_CHECK(PORTA_PARALLEL_REDUCE(minmax_k, space, porta_range(0, 1), &v, &one));
  if (one.min != -500000.0 || one.max != -500000.0) {
    fprintf(stderr,
            "over z(0:1): min = %.17g, max = %.17g, want -500000 and -500000 (is init "
            "the identity?)\n",
            one.min, one.max);
    ok = 0;
  }

  /* ---- 3. deterministic reductions ----
   * A floating-point sum depends on its order, and the order depends on the thread count. In
   * deterministic mode (porta_set_deterministic(1), --porta-deterministic or
   * PORTA_DETERMINISTIC=1) Porta sums fixed chunks in a fixed tree, so the bits are the same
   * for any thread count. The host back ends need host memory: the view is made in
   * PORTA_HOST_SPACE explicitly (on a CUDA run the default space is the GPU's). */
  sum_args s;
  porta_view_options host_opt;
  host_opt.space = PORTA_HOST_SPACE;
  host_opt.layout = PORTA_LAYOUT_DEFAULT;
  host_opt.flags = PORTA_VIEW_UNINITIALIZED;
  host_opt.stride = NULL;
  TUT_CHECK(porta_view_f64_create(&s.w, "w", 1, &n, &host_opt));
  uint64_t state = 0x853c49e6748fea9bull;
  long double ref = 0.0L;
  for (int64_t i = 0; i < n; ++i) {
    PORTA_S1(s.w, i) = pow(10.0, -8.0 + 16.0 * next_u01(&state));
    ref += PORTA_S1(s.w, i);
  }

  const int was_deterministic = porta_deterministic();
  const int threads = porta_num_threads();
  porta_set_deterministic(1);
  double sums[3];
  const char *names[3] = {"serial", "openmp x1", "openmp x2"};
  int nsums = 0;
  TUT_CHECK(PORTA_PARALLEL_REDUCE(sum_k, porta_exec_backend(PORTA_BACKEND_SERIAL),
                                  porta_range(0, n), &s, &sums[nsums++]));
  if (porta_backend_available(PORTA_BACKEND_OPENMP)) {
    for (int t = 1; t <= 2; ++t) {
      TUT_CHECK(porta_set_num_threads(t));
      TUT_CHECK(PORTA_PARALLEL_REDUCE(sum_k, porta_exec_backend(PORTA_BACKEND_OPENMP),
                                      porta_range(0, n), &s, &sums[nsums++]));
    }
    TUT_CHECK(porta_set_num_threads(threads));
  }
  porta_set_deterministic(was_deterministic);

  int same = 1;
  for (int k = 1; k < nsums; ++k)
    if (!same_bits(sums[k], sums[0])) {
      fprintf(stderr, "sum on %s = %.17g differs from serial %.17g\n", names[k], sums[k], sums[0]);
      same = 0;
    }
  if (!same) ok = 0;
  /* any order is accurate to about n * 1e-16 relative here; deterministic is not exact */
  if (!(fabs(sums[0] - (double)ref) <= 1e-10 * (double)ref)) {
    fprintf(stderr, "sum = %.17g, long double reference %.17g\n", sums[0], (double)ref);
    ok = 0;
  }

  printf("02_reductions: backend=%s dot=%.0f min=%.0f max=%.0f deterministic_sum=%.17g "
         "bitwise_equal=%s (%d runs) %s\n",
         porta_backend_name(space.backend), dot, mm.min, mm.max, sums[0], same ? "yes" : "no",
         nsums, ok ? "PASS" : "FAIL");

  porta_view_f64_release(&s.w);
  porta_mirror_f64_release(&hx);
  porta_mirror_f64_release(&hy);
  porta_mirror_f64_release(&hz);
  porta_view_f64_release(&v.x);
  porta_view_f64_release(&v.y);
  porta_view_f64_release(&v.z);
  TUT_CHECK(porta_finalize());
  return ok ? 0 : 1;
}
