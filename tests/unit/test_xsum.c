/** @file test_xsum.c
 *  porta_xsum_f64, the exact summation reducer (porta/xsum.h): known exact answers (cancellation,
 *  ties, 1e100 + 1 - 1e100), sums of random doubles that are bitwise the same in any order, in
 *  any split into partial accumulators (merged by join, or by adding normalised limbs as
 *  MPI_SUM would), through PORTA_REDUCE / PORTA_MDREDUCE2 on every back end and thread count,
 *  deterministic mode on and off, and within 1 ulp of a compensated long-double reference;
 *  addends outside the window are reported (NaN / status bits).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

#define PT_N 200003

static uint64_t pt_state = 0x2545f4914f6cdd1dull; /**< the LCG of harness.h */
/** Random sign, magnitude log-uniform in [1e-20, 1e20). */
static double pt_value(void) { return pt_lcg_signed(&pt_state, -20.0, 20.0); }

static int pt_same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static double pt_xsum(const double *x, int64_t n) {
  porta_xsum_f64_value v;
  porta_xsum_f64_init(&v);
  for (int64_t i = 0; i < n; ++i) porta_xsum_f64_add(&v, x[i]);
  return porta_xsum_f64_round(&v);
}

/** Compensated (Neumaier) sum in long double. */
static double pt_reference_sum(const double *x, int64_t n) {
  long double s = 0, c = 0;
  for (int64_t i = 0; i < n; ++i) {
    long double v = x[i], t = s + v;
    if (fabsl(s) >= fabsl(v))
      c += (s - t) + v;
    else
      c += (v - t) + s;
    s = t;
  }
  return (double)(s + c);
}

#define PT_BITS(got, want)                                                                         \
  do {                                                                                             \
    double pt_g_ = (got), pt_w_ = (want);                                                          \
    if (!pt_same_bits(pt_g_, pt_w_)) {                                                             \
      fprintf(stderr, "  %s = %.17g (%a), want %.17g (%a)\n", #got, pt_g_, pt_g_, pt_w_, pt_w_);   \
      PT_CHECK(pt_same_bits(pt_g_, pt_w_));                                                        \
    }                                                                                              \
  } while (0)

/* ------------------------------------------------------------------------------------------ */

static void test_exact_cases(void) {
  {
    const double x[3] = {1e100, 1.0, -1e100};
    PT_BITS(pt_xsum(x, 3), 1.0);
  }
  {
    double x[10];
    for (int i = 0; i < 10; ++i) x[i] = 0.1;
    PT_BITS(pt_xsum(x, 10), 1.0); /* the exact sum of ten 0.1s rounds to 1; a loop gives less */
  }
  {
    const double e = ldexp(1.0, -53);
    const double a[2] = {1.0, e}; /* a tie: to even */
    PT_BITS(pt_xsum(a, 2), 1.0);
    const double b[3] = {1.0, e, ldexp(1.0, -250)}; /* just above the tie */
    PT_BITS(pt_xsum(b, 3), nextafter(1.0, 2.0));
    const double c[2] = {1.0 + 2 * e, e}; /* a tie from an odd significand: up */
    PT_BITS(pt_xsum(c, 2), 1.0 + 4 * e);
    const double d[3] = {-1.0, -e, -ldexp(1.0, -250)};
    PT_BITS(pt_xsum(d, 3), -nextafter(1.0, 2.0));
    const double f[3] = {1.0, -e / 2, ldexp(1.0, -280)}; /* below 1, not a tie */
    PT_BITS(pt_xsum(f, 3), 1.0);
  }
  {
    const double z[2] = {5.0, -5.0};
    PT_BITS(pt_xsum(z, 2), 0.0);
    PT_BITS(pt_xsum(z, 0), 0.0);
  }
  {
    /* the window's ends, and sums beyond an addend's limit */
    const double lo = ldexp(1.0, PORTA_XSUM_MIN_EXP);
    const double l3[3] = {lo, lo, lo};
    PT_BITS(pt_xsum(l3, 3), 3 * lo);
    const double big = ldexp(1.0, PORTA_XSUM_MAX_EXP - 1);
    const double b2[2] = {big, big};
    PT_BITS(pt_xsum(b2, 2), 2 * big);
    const double mix[4] = {big, lo, -big, lo};
    PT_BITS(pt_xsum(mix, 4), 2 * lo);
  }
  {
    /* huge cancellation: +-x_i in a scrambled order, plus 0.1 -> exactly 0.1 */
    enum { M = 20001 };
    double *x = (double *)malloc(2 * M * sizeof(double));
    for (int i = 0; i < M; ++i) {
      x[2 * i] = pt_value() * 1e40;
      x[2 * i + 1] = -x[2 * i];
    }
    for (int i = 2 * M - 1; i > 0; --i) {
      int j = (int)(pt_lcg_u01(&pt_state) * (i + 1));
      double t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
    porta_xsum_f64_value v;
    porta_xsum_f64_init(&v);
    for (int i = 0; i < 2 * M; ++i) {
      porta_xsum_f64_add(&v, x[i]);
      if (i == M) porta_xsum_f64_add(&v, 0.1);
    }
    PT_BITS(porta_xsum_f64_round(&v), 0.1);
    PT_EQ_I64(porta_xsum_f64_status(&v), 0);
    free(x);
  }
}

/** IEEE a + b is correctly rounded (ties to even), so the xsum of {a, b} must give its bits:
 *  random pairs with every exponent difference from 0 to 70, signs mixed, ties included. */
static void test_pairs_correctly_rounded(void) {
  int bad = 0;
  for (int i = 0; i < 200000 && bad < 5; ++i) {
    double a = (1.0 + pt_lcg_u01(&pt_state)) * ldexp(1.0, (int)(pt_lcg_u01(&pt_state) * 200) - 100);
    const int gap = i % 71;
    double b = (1.0 + pt_lcg_u01(&pt_state)) * ldexp(a, -gap);
    if (i % 7 == 0) b = ldexp(floor(ldexp(b, 30)), -30); /* short significands: ties happen */
    if (pt_lcg_u01(&pt_state) < 0.5) a = -a;
    if (pt_lcg_u01(&pt_state) < 0.5) b = -b;
    const double x[2] = {a, b}, x3[3] = {b, a, -b};
    if (!pt_same_bits(pt_xsum(x, 2), a + b) || !pt_same_bits(pt_xsum(x3, 3), a)) {
      fprintf(stderr, "  a = %a, b = %a: xsum %a, a + b %a\n", a, b, pt_xsum(x, 2), a + b);
      ++bad;
    }
  }
  PT_EQ_I64(bad, 0);
}

static void test_window_reported(void) {
  porta_xsum_f64_value v;
  porta_xsum_f64_init(&v);
  porta_xsum_f64_add(&v, 1.0);
  porta_xsum_f64_add(&v, ldexp(1.0, PORTA_XSUM_MAX_EXP));
  PT_CHECK(porta_xsum_f64_status(&v) & PORTA_XSUM_OVERFLOW);
  PT_CHECK(isnan(porta_xsum_f64_round(&v)));

  porta_xsum_f64_init(&v);
  porta_xsum_f64_add(&v, -INFINITY);
  PT_CHECK(porta_xsum_f64_status(&v) & PORTA_XSUM_NONFINITE);
  PT_CHECK(isnan(porta_xsum_f64_round(&v)));
  porta_xsum_f64_init(&v);
  porta_xsum_f64_add(&v, nan(""));
  PT_CHECK(isnan(porta_xsum_f64_round(&v)));

  /* below the window: dropped, flagged, the rest still exact (and order-independent) */
  porta_xsum_f64_init(&v);
  porta_xsum_f64_add(&v, 1e-100);
  porta_xsum_f64_add(&v, 1.0);
  PT_EQ_I64(porta_xsum_f64_status(&v), PORTA_XSUM_INEXACT);
  PT_BITS(porta_xsum_f64_round(&v), 1.0);
  porta_xsum_f64_init(&v);
  porta_xsum_f64_add(&v, 3 * ldexp(1.0, PORTA_XSUM_MIN_EXP - 1)); /* 1.5 grid steps -> 1 */
  PT_EQ_I64(porta_xsum_f64_status(&v), PORTA_XSUM_INEXACT);
  PT_BITS(porta_xsum_f64_round(&v), ldexp(1.0, PORTA_XSUM_MIN_EXP));
  porta_xsum_f64_add(&v, -3 * ldexp(1.0, PORTA_XSUM_MIN_EXP - 1));
  PT_BITS(porta_xsum_f64_round(&v), 0.0);

  /* joins carry the flags */
  porta_xsum_f64_value w;
  porta_xsum_f64_init(&w);
  porta_xsum_f64_add(&w, INFINITY);
  porta_xsum_f64_join(&v, &w);
  PT_CHECK(isnan(porta_xsum_f64_round(&v)));
}

static void test_normalisation(void) {
  /* an accumulator about to normalise (limbs live, count near the bound) keeps the exact value:
   * terms from 1e-80 to 1e80 overflow the expansion, so some go on into the limbs */
  porta_xsum_f64_value v, w;
  porta_xsum_f64_init(&v);
  v.count = PORTA_XSUM_NORM_EVERY_ - 3;
  double *x = (double *)malloc(1000 * sizeof(double));
  for (int i = 0; i < 1000; ++i) x[i] = pt_lcg_signed(&pt_state, -80.0, 80.0);
  for (int i = 0; i < 1000; ++i) porta_xsum_f64_add(&v, x[i]);
  PT_CHECK(v.count < PORTA_XSUM_NORM_EVERY_ - 3); /* it normalised */
  PT_BITS(porta_xsum_f64_round(&v), pt_xsum(x, 1000));
  /* many near-maximal digits into one limb: 2^21 normalised values of (2^32 - 1) 2^k joined
   * (count 2^21), then as many negated, then 0.5 */
  porta_xsum_f64_init(&w);
  const double d = ldexp(4294967295.0, 40);
  for (int sign = 1; sign >= -1; sign -= 2)
    for (int i = 0; i < (1 << 21); ++i) {
      porta_xsum_f64_value t;
      porta_xsum_f64_init(&t);
      porta_xsum_f64_add(&t, sign * d);
      porta_xsum_f64_normalize(&t); /* into the limbs: count 1 */
      porta_xsum_f64_join(&w, &t);
      if (sign == 1 && i == (1 << 21) - 1) {
        PT_CHECK(w.count == (1 << 21) + 0 || w.count == (1 << 21) + 1);
        PT_BITS(porta_xsum_f64_round(&w), d * (double)(1 << 21));
      }
    }
  porta_xsum_f64_add(&w, 0.5);
  PT_BITS(porta_xsum_f64_round(&w), 0.5);
  free(x);
}

/* The host adds through the expansion or flat into the limbs, as its terms fare (xsum.h,
 * PORTA_XSUM_RARE_*): terms over 530 binades send a long stream flat, pieces of 8 of them
 * (too few to switch) stay in the expansion, and terms near one binade keep a long stream
 * there; every way, one sum and one status, and a join passes on no choice of add. */
static void test_host_add_modes(void) {
  enum { N = 4000 };
  double *x = (double *)malloc(N * sizeof(double));
  for (int i = 0; i < N; ++i) x[i] = pt_lcg_signed(&pt_state, -80.0, 80.0);
  porta_xsum_f64_value flat, pieces;
  porta_xsum_f64_init(&flat);
  porta_xsum_f64_init(&pieces);
  for (int i = 0; i < N; ++i) porta_xsum_f64_add(&flat, x[i]);
  for (int p = 0; p < N; p += 8) {
    porta_xsum_f64_value t;
    porta_xsum_f64_init(&t);
    for (int i = p; i < p + 8; ++i) porta_xsum_f64_add(&t, x[i]);
    porta_xsum_f64_join(&pieces, &t);
  }
  porta_xsum_f64_value joined;
  porta_xsum_f64_init(&joined);
  porta_xsum_f64_join(&joined, &flat);
#if !PORTA_DEVICE_PASS
  PT_CHECK(flat.flags & PORTA_XSUM_FLAT_);
  PT_CHECK((joined.flags & ~PORTA_XSUM_STATUS_BITS_) == 0); /* a join takes the status only */
#endif
  PT_CHECK(porta_xsum_f64_status(&flat) == PORTA_XSUM_INEXACT); /* 1e-80: bits below the window */
  PT_CHECK(porta_xsum_f64_status(&pieces) == PORTA_XSUM_INEXACT);
  PT_CHECK(porta_xsum_f64_status(&joined) == PORTA_XSUM_INEXACT);
  const double sum = porta_xsum_f64_round(&flat);
  PT_BITS(porta_xsum_f64_round(&pieces), sum);
  PT_BITS(porta_xsum_f64_round(&joined), sum);
  /* a flat accumulator takes zeros, a subnormal (below the window: dropped), then a term past
   * the window's top and an Inf as the expansion does */
  porta_xsum_f64_add(&flat, 0.0);
  porta_xsum_f64_add(&flat, -0.0);
  porta_xsum_f64_add(&flat, 4.9406564584124654e-324);
  PT_BITS(porta_xsum_f64_round(&flat), sum);
  PT_CHECK(porta_xsum_f64_status(&flat) == PORTA_XSUM_INEXACT);
  porta_xsum_f64_value huge = flat, inf = flat;
  porta_xsum_f64_add(&huge, 1e300);
  PT_CHECK(porta_xsum_f64_status(&huge) == (PORTA_XSUM_INEXACT | PORTA_XSUM_OVERFLOW));
  PT_CHECK(isnan(porta_xsum_f64_round(&huge)));
  porta_xsum_f64_add(&inf, -INFINITY);
  PT_CHECK(porta_xsum_f64_status(&inf) == (PORTA_XSUM_INEXACT | PORTA_XSUM_NONFINITE));
  PT_CHECK(isnan(porta_xsum_f64_round(&inf)));
  /* terms of one binade stay in the expansion */
  porta_xsum_f64_value near;
  porta_xsum_f64_init(&near);
  for (int i = 0; i < N; ++i) porta_xsum_f64_add(&near, 1.0 + ldexp((double)(i % 97), -20));
#if !PORTA_DEVICE_PASS
  PT_CHECK(!(near.flags & PORTA_XSUM_FLAT_));
#endif
  double want = 0.0;
  for (int i = 0; i < N; ++i) want += 1.0 + ldexp((double)(i % 97), -20); /* exact: few bits */
  PT_BITS(porta_xsum_f64_round(&near), want);
  free(x);
}

static double *pt_x;

static void test_orders_and_merges(void) {
  const double want = pt_xsum(pt_x, PT_N);
  const double ref = pt_reference_sum(pt_x, PT_N);
  printf("  xsum %.17g, compensated long double %.17g\n", want, ref);
  PT_CHECK(fabs(want - ref) <= nextafter(fabs(ref), INFINITY) - fabs(ref));
  /* reverse order */
  porta_xsum_f64_value v;
  porta_xsum_f64_init(&v);
  for (int64_t i = PT_N - 1; i >= 0; --i) porta_xsum_f64_add(&v, pt_x[i]);
  PT_BITS(porta_xsum_f64_round(&v), want);
  /* shuffled */
  double *y = (double *)malloc(PT_N * sizeof(double));
  memcpy(y, pt_x, PT_N * sizeof(double));
  for (int64_t i = PT_N - 1; i > 0; --i) {
    int64_t j = (int64_t)(pt_lcg_u01(&pt_state) * (double)(i + 1));
    double t = y[i];
    y[i] = y[j];
    y[j] = t;
  }
  PT_BITS(pt_xsum(y, PT_N), want);
  /* partial accumulators of uneven pieces, joined in a scrambled order, and merged as an MPI
   * sum would: normalise each, add the limbs as integers */
  enum { P = 7 };
  porta_xsum_f64_value part[P], joined, merged;
  int64_t cut[P + 1] = {0, 1, 17, 5000, 77777, 100000, 150001, PT_N};
  for (int p = 0; p < P; ++p) {
    porta_xsum_f64_init(&part[p]);
    for (int64_t i = cut[p]; i < cut[p + 1]; ++i) porta_xsum_f64_add(&part[p], y[i]);
  }
  porta_xsum_f64_init(&joined);
  for (int p = 0; p < P; ++p) porta_xsum_f64_join(&joined, &part[(3 * p + 2) % P]);
  PT_BITS(porta_xsum_f64_round(&joined), want);
  porta_xsum_f64_init(&merged);
  for (int p = P - 1; p >= 0; --p) {
    porta_xsum_f64_normalize(&part[p]);
    for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) merged.limb[i] += part[p].limb[i];
    merged.flags |= part[p].flags;
  }
  merged.count = P;
  PT_BITS(porta_xsum_f64_round(&merged), want);
  free(y);
}

/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_f64 x;
  int64_t cols;
} pt_args;

PORTA_REDUCE(xs_sum, pt_args, a, i, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, PORTA_AT1(a->x, i));
}

/** The rows x cols box of x viewed as a matrix, each element times 3 (exact products). */
PORTA_MDREDUCE2(xs_md_sum, pt_args, a, i, j, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, 3.0 * PORTA_AT1(a->x, i * a->cols + j));
}

/** The execution spaces every kernel test runs on: the default one, Serial and OpenMP (where
 *  built); returns how many. */
static int pt_execs(porta_exec execs[3]) {
  int ne = 0;
  execs[ne++] = porta_exec_default();
  execs[ne++] = porta_exec_backend(PORTA_BACKEND_SERIAL);
  if (porta_backend_available(PORTA_BACKEND_OPENMP))
    execs[ne++] = porta_exec_backend(PORTA_BACKEND_OPENMP);
  return ne;
}

static void test_kernels(void) {
  pt_args a;
  PT_OK(porta_view_f64_create1(&a.x, "x", PT_N));
  memcpy(a.x.data, pt_x, PT_N * sizeof(double));
  a.cols = 401; /* 401 x 498 = 199698 elements */
  double *t3 = (double *)malloc(PT_N * sizeof(double));
  for (int i = 0; i < PT_N; ++i) t3[i] = 3.0 * pt_x[i];
  const int threads = porta_num_threads(), det = porta_deterministic();
  const int64_t sizes[4] = {0, 1, 2049, PT_N};
  porta_exec execs[3];
  const int ne = pt_execs(execs);
  for (int d = 0; d < 2; ++d) {
    porta_set_deterministic(d);
    for (int e = 0; e < ne; ++e)
      for (int t = 1; t <= 3; ++t) {
        if (execs[e].backend == PORTA_BACKEND_OPENMP) PT_OK(porta_set_num_threads(t));
        for (int s = 0; s < 4; ++s) {
          porta_xsum_f64_value r;
          PT_OK(
              porta_parallel_reduce("xs_sum", execs[e], porta_range(0, sizes[s]), &xs_sum, &a, &r));
          PT_BITS(porta_xsum_f64_round(&r), pt_xsum(pt_x, sizes[s]));
          PT_EQ_I64(porta_xsum_f64_status(&r), 0);
        }
        porta_xsum_f64_value m;
        PT_OK(porta_parallel_reduce_md("xs_md_sum", execs[e], porta_mdrange2(0, 498, 0, 401),
                                       &xs_md_sum, &a, &m));
        PT_BITS(porta_xsum_f64_round(&m), pt_xsum(t3, 498 * 401));
        /* boxes narrower than a GPU tile's 32 points across index 0, offset, and empty (the
           CUDA back end takes its tiled kernel for every exact box) */
        static const int64_t box[6][4] = {{0, 5, 0, 401},   {7, 8, 3, 400},   {3, 35, 10, 11},
                                          {31, 64, 1, 399}, {10, 10, 0, 401}, {0, 498, 7, 7}};
        for (int b = 0; b < 6; ++b) {
          porta_xsum_f64_value want;
          porta_xsum_f64_init(&want);
          for (int64_t j = box[b][2]; j < box[b][3]; ++j)
            for (int64_t i = box[b][0]; i < box[b][1]; ++i)
              porta_xsum_f64_add(&want, t3[i * 401 + j]);
          PT_OK(porta_parallel_reduce_md("xs_md_sum", execs[e],
                                         porta_mdrange2(box[b][0], box[b][1], box[b][2], box[b][3]),
                                         &xs_md_sum, &a, &m));
          PT_BITS(porta_xsum_f64_round(&m), porta_xsum_f64_round(&want));
          PT_EQ_I64(porta_xsum_f64_status(&m), 0);
        }
      }
  }
  PT_OK(porta_set_num_threads(threads));
  porta_set_deterministic(det);
  free(t3);
  porta_view_f64_release(&a.x);
}

/** Hostile terms for the kernels, in a pattern of 13 (prime to the CUDA tests' thread counts,
 *  so that a GPU thread's batches mix them): zeros of both signs, subnormals, terms below the
 *  window's grid and below its fast range, terms on its grid, cancelling pairs and ordinary
 *  ones. With `tiny` only the terms below the fast range and on the grid are kept, so that the
 *  sum's bits are theirs (a wrong truncation shows). */
static double pt_hostile(int64_t i, int tiny) {
  const double r = pt_value();
  switch (i % 13) {
  case 0: return 0.0;
  case 1: return -0.0;
  case 2: return ldexp((double)(i % 977), -1074);          /* subnormal */
  case 3: return r * 1e-100;                               /* below the window: truncated */
  case 4: return -r * 1e-80;                               /* below the fast range */
  case 5: return ldexp(1.0, -300) * (double)(1 + i % 5);   /* on the window's grid */
  case 6: return tiny ? 0.0 : (i / 13 % 2 ? 1e30 : -1e30); /* cancels with the next case 6 */
  default: return tiny ? 0.0 : r;
  }
}

/** The body adds a second term on every third point and none on every seventh: a body that is
 *  not one term a point (the CUDA launchers' capture must hand such a body an accumulator). */
PORTA_REDUCE(xs_uneven, pt_args, a, i, porta_xsum_f64, acc) {
  if (i % 7 == 3) return;
  porta_xsum_f64_add(acc, PORTA_AT1(a->x, i));
  if (i % 3 == 0) porta_xsum_f64_add(acc, 0.5 * PORTA_AT1(a->x, i));
}

/** xs_uneven over the rows x cols box (the box kernel is the one a GPU batches), and on every
 *  eleventh point a third term joined from an accumulator of its own. */
PORTA_MDREDUCE2(xs_md_uneven, pt_args, a, i, j, porta_xsum_f64, acc) {
  const int64_t k = i * a->cols + j;
  if (k % 7 == 3) return;
  porta_xsum_f64_add(acc, PORTA_AT1(a->x, k));
  if (k % 3 == 0) porta_xsum_f64_add(acc, 0.5 * PORTA_AT1(a->x, k));
  if (k % 11 == 5) {
    porta_xsum_f64_value o;
    porta_xsum_f64_init(&o);
    porta_xsum_f64_add(&o, 0.25 * PORTA_AT1(a->x, k));
    porta_xsum_f64_join(acc, &o);
  }
}

static double pt_uneven_sum(const double *x, int64_t n, int joins, int *status) {
  porta_xsum_f64_value v;
  porta_xsum_f64_init(&v);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 7 == 3) continue;
    porta_xsum_f64_add(&v, x[i]);
    if (i % 3 == 0) porta_xsum_f64_add(&v, 0.5 * x[i]);
    if (joins && i % 11 == 5) porta_xsum_f64_add(&v, 0.25 * x[i]);
  }
  *status = porta_xsum_f64_status(&v);
  return porta_xsum_f64_round(&v);
}

/** Kernels on every back end (on a GPU in the launchers' batches, PORTA_CUDA_GRID_LIMIT=3 for
 *  long ones) give a sequential loop's bits and status on hostile terms, with a huge term, an
 *  Inf or a NaN at a point or none, and with bodies that add 0, 1 or 2 terms a point or join
 *  another accumulator. */
static void test_kernels_hostile(void) {
  pt_args a;
  PT_OK(porta_view_f64_create1(&a.x, "x", PT_N));
  a.cols = 401;
  double *h = (double *)malloc(PT_N * sizeof(double)),
         *ht = (double *)malloc(PT_N * sizeof(double)),
         *t3 = (double *)malloc(PT_N * sizeof(double));
  for (int64_t i = 0; i < PT_N; ++i) {
    h[i] = pt_hostile(i, 0);
    ht[i] = pt_hostile(i, 1);
  }
  /* sets 1-3: a huge term, an Inf, a NaN at one point; set 4: the tiny terms alone */
  const double odd[5] = {0.0, ldexp(1.0, 980), INFINITY, NAN, 0.0};
  const int64_t at[5] = {0, 12345, 199001, 77, 0};
  porta_exec execs[3];
  const int ne = pt_execs(execs);
  for (int o = 0; o < 5; ++o) {
    memcpy(a.x.data, o == 4 ? ht : h, PT_N * sizeof(double));
    if (o > 0 && o < 4) a.x.data[at[o]] = odd[o];
    for (int64_t i = 0; i < PT_N; ++i) t3[i] = 3.0 * a.x.data[i];
    porta_xsum_f64_value w;
    porta_xsum_f64_init(&w);
    for (int64_t i = 0; i < PT_N; ++i) porta_xsum_f64_add(&w, a.x.data[i]);
    const double want = porta_xsum_f64_round(&w);
    const int want_status = porta_xsum_f64_status(&w);
    PT_CHECK(want_status & PORTA_XSUM_INEXACT);              /* the terms below the grid were met */
    if (o == 4) PT_CHECK(want != 0.0 && fabs(want) < 1e-50); /* their bits, not a big term's */
    int uneven_status = 0;
    const double uneven = pt_uneven_sum(a.x.data, PT_N, 0, &uneven_status);
    int md_uneven_status = 0;
    const double md_uneven = pt_uneven_sum(a.x.data, 498 * 401, 1, &md_uneven_status);
    porta_xsum_f64_value w3;
    porta_xsum_f64_init(&w3);
    for (int64_t i = 0; i < 498 * 401; ++i) porta_xsum_f64_add(&w3, t3[i]);
    for (int e = 0; e < ne; ++e) {
      porta_xsum_f64_value r;
      PT_OK(porta_parallel_reduce("xs_sum", execs[e], porta_range(0, PT_N), &xs_sum, &a, &r));
      PT_BITS(porta_xsum_f64_round(&r), want);
      PT_EQ_I64(porta_xsum_f64_status(&r), want_status);
      PT_OK(porta_parallel_reduce("xs_uneven", execs[e], porta_range(0, PT_N), &xs_uneven, &a, &r));
      PT_BITS(porta_xsum_f64_round(&r), uneven);
      PT_EQ_I64(porta_xsum_f64_status(&r), uneven_status);
      PT_OK(porta_parallel_reduce_md("xs_md_sum", execs[e], porta_mdrange2(0, 498, 0, 401),
                                     &xs_md_sum, &a, &r));
      PT_BITS(porta_xsum_f64_round(&r), porta_xsum_f64_round(&w3));
      PT_EQ_I64(porta_xsum_f64_status(&r), porta_xsum_f64_status(&w3));
      PT_OK(porta_parallel_reduce_md("xs_md_uneven", execs[e], porta_mdrange2(0, 498, 0, 401),
                                     &xs_md_uneven, &a, &r));
      PT_BITS(porta_xsum_f64_round(&r), md_uneven);
      PT_EQ_I64(porta_xsum_f64_status(&r), md_uneven_status);
    }
  }
  free(h);
  free(ht);
  free(t3);
  porta_view_f64_release(&a.x);
}

/** An exact reduction into memory with a reduction's end (porta/reduce_end.h), over a range and
 *  a box, the deterministic mode on and off, on every back end: the value's bits, and the end's
 *  steps run after it (out[1] = out[0], out[2] = out[1] / out[3]). */
static void test_kernels_end(void) {
  pt_args a;
  PT_OK(porta_view_f64_create1(&a.x, "x", PT_N));
  memcpy(a.x.data, pt_x, PT_N * sizeof(double));
  a.cols = 401;
  double *t3 = (double *)malloc(PT_N * sizeof(double));
  for (int i = 0; i < PT_N; ++i) t3[i] = 3.0 * pt_x[i];
  const int64_t nv = (int64_t)(sizeof(porta_xsum_f64_value) / sizeof(double));
  porta_view_f64 buf;
  PT_OK(porta_view_f64_create1(&buf, "value and steps", nv + 4));
  porta_xsum_f64_value *r = (porta_xsum_f64_value *)(void *)buf.data;
  double *o = buf.data + nv;
  const int det = porta_deterministic();
  porta_exec execs[3];
  const int ne = pt_execs(execs);
  for (int d = 0; d < 2; ++d) {
    porta_set_deterministic(d);
    for (int e = 0; e < ne; ++e)
      for (int box = 0; box < 2; ++box) {
        PT_OK(porta_exec_fence(execs[e], "end"));
        o[0] = 5.0, o[1] = o[2] = 0.0, o[3] = 2.0;
        porta_reduce_end end;
        memset(&end, 0, sizeof end);
        PT_OK(porta_reduce_end_step(&end, PORTA_SCALAR_COPY, &o[1], &o[0], NULL));
        PT_OK(porta_reduce_end_step(&end, PORTA_SCALAR_DIV, &o[2], &o[1], &o[3]));
        PT_OK(porta_exec_end_next_reduction(execs[e], &end));
        if (box)
          PT_OK(PORTA_PARALLEL_REDUCE_INTO(xs_md_sum, execs[e], porta_mdrange2(0, 498, 0, 401), &a,
                                           r));
        else
          PT_OK(PORTA_PARALLEL_REDUCE_INTO(xs_sum, execs[e], porta_range(0, PT_N), &a, r));
        PT_OK(porta_exec_fence(execs[e], "end"));
        PT_BITS(porta_xsum_f64_round(r), box ? pt_xsum(t3, 498 * 401) : pt_xsum(pt_x, PT_N));
        PT_EQ_I64(porta_xsum_f64_status(r), 0);
        PT_CHECK(o[1] == 5.0 && o[2] == 2.5);
      }
  }
  porta_set_deterministic(det);
  porta_view_f64_release(&buf);
  free(t3);
  porta_view_f64_release(&a.x);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  pt_x = (double *)malloc(PT_N * sizeof(double));
  for (int64_t i = 0; i < PT_N; ++i) pt_x[i] = pt_value();
  PT_RUN(test_exact_cases);
  PT_RUN(test_pairs_correctly_rounded);
  PT_RUN(test_window_reported);
  PT_RUN(test_normalisation);
  PT_RUN(test_host_add_modes);
  PT_RUN(test_orders_and_merges);
  PT_RUN(test_kernels);
  PT_RUN(test_kernels_hostile);
  PT_RUN(test_kernels_end);
  free(pt_x);
  PT_END();
}
