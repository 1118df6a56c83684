/** @file porta_bench.c
 *  Porta against hand-written OpenMP, in one run, BabelStream style.
 *
 *  Every benchmark runs a Porta kernel (bench_kernels.c, shared with
 *  porta-bench-gpu) and a hand-written OpenMP loop over raw pointers (this
 *  file), compiled with identical flags, on arrays of the same allocator. After
 *  one warm-up of each, reps are interleaved so machine noise hits both: in rep
 *  r Porta works on data set r % 2 and the hand-written loop on the other, and
 *  set 0 always runs first, so each side alternates sets and positions (ABBA).
 *  That cancels the few per cent by which one allocation can be faster than
 *  another (measured: the set allocated first was slower).
 *  Results (the last rep of each side, and through the BabelStream chain the
 *  earlier ones) are checked after the timed runs; a failed check makes the exit
 *  status non-zero, a missed performance criterion only prints MISS.
 *
 *  Build with -falign-loops=64 (scripts/bench/CMakeLists.txt does): otherwise a
 *  hot in-cache loop that straddles a 64-byte line can run up to 2x slower on
 *  either side, depending only on where the linker put it.
 *
 *    porta-bench [--n=ELEMENTS] [--reps=K] [--only=LIST] [--stencil=SIDE] [--spmv=SIDE]
 *                [--porta-*]
 *
 *  LIST: copy,scale,add,triad,dot,launch,stencil,spmv,scan,det,sdot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

#include "bench_kernels.h"

/* Keeps the hand-written empty loop body from being optimised away. */
#if defined(__GNUC__)
#define BENCH_BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#define BENCH_BARRIER() ((void)0)
#endif

#define LAUNCHES_PER_REP 10000
#define SPMV_ROWS_PER_TEAM 256

static const double start_a = 0.1, start_b = 0.2, start_c = 0.0, start_scalar = 0.4;

/* The Porta kernels (bk_*) and their argument structs: bench_kernels.h, shared with
 * porta-bench-gpu. */

/* ======================================================================== */
/* Hand-written OpenMP                                                      */
/* ======================================================================== */

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
/** A dot product written by hand for one core: four accumulators, so the adds do not wait on
 *  each other (what an expert writes instead of one running sum). */
static double hand_dot4(const double *a, const double *b, int64_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}
static void hand_empty(int nt) {
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 0; i < nt; ++i) BENCH_BARRIER();
}
static void hand_stencil(const double *in, double *out, int64_t m, int nt) {
  (void)nt; /* unused without OpenMP */
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 1; i < m - 1; ++i)
    for (int64_t j = 1; j < m - 1; ++j)
      out[i * m + j] = 0.2 * (in[i * m + j] + in[(i - 1) * m + j] + in[(i + 1) * m + j] +
                              in[i * m + j + 1] + in[i * m + j - 1]);
}
static void hand_spmv(const int64_t *rowptr, const int32_t *col, const double *val, const double *x,
                      double *y, int64_t nrows, int nt) {
  (void)nt; /* unused without OpenMP */
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t r = 0; r < nrows; ++r) {
    double sum = 0.0;
    for (int64_t k = rowptr[r]; k < rowptr[r + 1]; ++k) sum += val[k] * x[col[k]];
    y[r] = sum;
  }
}
/* Two-pass exclusive scan: block sums, prefix of the block sums, rescan. */
static int64_t hand_scan(const int64_t *in, int64_t *out, int64_t n, int nt, int64_t *part) {
  (void)nt; /* unused without OpenMP */
  int64_t total = 0;
  PORTA_OMP(parallel num_threads(nt)) {
    int t = 0, nthr = 1;
#if defined(_OPENMP)
    t = omp_get_thread_num();
    nthr = omp_get_num_threads();
#endif
    const int64_t q = n / nthr, r = n % nthr;
    const int64_t lo = q * t + (t < r ? t : r), hi = lo + q + (t < r ? 1 : 0);
    int64_t s = 0;
    for (int64_t i = lo; i < hi; ++i) s += in[i];
    part[8 * t] = s;
    PORTA_OMP(barrier)
    s = 0;
    for (int u = 0; u < t; ++u) s += part[8 * u];
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t v = in[i];
      out[i] = s;
      s += v;
    }
    if (t == nthr - 1) total = s;
  }
  return total;
}

/* ======================================================================== */
/* Harness                                                                  */
/* ======================================================================== */

enum {
  B_COPY,
  B_SCALE,
  B_ADD,
  B_TRIAD,
  B_DOT,
  B_LAUNCH,
  B_STENCIL,
  B_SPMV,
  B_SCAN,
  B_DET,
  B_SDOT,
  B_COUNT
};
static const char *const bench_names[B_COUNT] = {
    "copy", "scale", "add", "triad", "dot", "launch", "stencil", "spmv", "scan", "det", "sdot"};

/** One line of the table. Times in seconds (per launch for `launch`). */
typedef struct row {
  int ran;
  int check_ok;
  double p_med, p_min, h_med, h_min;
  double speed; /**< median over reps of hand time / Porta time (same rep: adjacent runs) */
  double bytes; /**< bytes moved per run; 0: no GB/s */
  int has_crit, crit_ok; /**< performance criterion */
  char accept[72];       /**< criterion and measured value */
  const char *ref_label; /**< what the "hand" column holds when not a hand-written loop */
} row;

typedef struct bench {
  int64_t n;
  int reps;
  int64_t stencil_side, spmv_side;
  int nt; /**< threads of both sides */
  porta_exec ex;
  int only[B_COUNT];
  row rows[B_COUNT];
  double *tp, *th; /**< per-rep times, reps entries each */
  int porta_rc;    /**< OR of Porta return codes */
  int det_threads; /**< OpenMP threads of the third deterministic run */
  char scan_note[160];
} bench;

static int cmp_double(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}
static double median_of(const double *t, int k, double *min_out) {
  double *s = (double *)malloc((size_t)k * sizeof(double));
  double med;
  memcpy(s, t, (size_t)k * sizeof(double));
  qsort(s, (size_t)k, sizeof(double), cmp_double);
  med = k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
  *min_out = s[0];
  free(s);
  return med;
}
/** Median over reps of x[k] / y[k] (ratio != 0) or x[k] - y[k]: runs of one rep are adjacent
 *  in time, so pairing them cancels slow drifts of the machine that medians alone keep. */
static double paired_median(const double *x, const double *y, int k, int ratio) {
  double *q = (double *)malloc((size_t)k * sizeof(double)), qmin, med;
  for (int i = 0; i < k; ++i) q[i] = ratio ? x[i] / y[i] : x[i] - y[i];
  med = median_of(q, k, &qmin);
  free(q);
  return med;
}
static void set_stats(bench *B, row *r) {
  r->p_med = median_of(B->tp, B->reps, &r->p_min);
  r->h_med = median_of(B->th, B->reps, &r->h_min);
  r->speed = paired_median(B->th, B->tp, B->reps, 1);
  r->ran = 1;
}
static void note_rc(bench *B, int rc) {
  if (rc != PORTA_SUCCESS) {
    if (!B->porta_rc) fprintf(stderr, "porta-bench: %s\n", porta_last_error_message());
    B->porta_rc |= 1;
  }
}
static void fmt_time(char *buf, size_t len, double t, int us) {
  if (us || t < 1e-3)
    snprintf(buf, len, "%.3f us", t * 1e6);
  else
    snprintf(buf, len, "%.3f ms", t * 1e3);
}
static void fmt_bw(char *buf, size_t len, double bytes, double t) {
  if (bytes > 0 && t > 0)
    snprintf(buf, len, "%.2f", bytes / t * 1e-9);
  else
    snprintf(buf, len, "-");
}

/** Speed criterion: reference time / Porta time >= need. */
static void crit_speed(row *r, double need) {
  const double v = r->speed;
  r->has_crit = 1;
  r->crit_ok = v >= need;
  snprintf(r->accept, sizeof r->accept, ">= %.2f hand: %.3f %s", need, v,
           r->crit_ok ? "PASS" : "MISS");
}

/** Rep r (-1: warm-up) runs Porta on set porta_set(r) first when porta_first(r). */
static int porta_set(int r) { return r < 0 ? 1 : r % 2; }
static int porta_first(int r) { return !porta_set(r); }

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

static void bench_stream(bench *B) {
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
    stream_set *ps = &set[porta_set(r)], *hs = &set[!porta_set(r)];
    for (int j = 0; j < nk; ++j) {
      double t_p, t_h;
      if (porta_first(r)) {
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
    row *rw = &B->rows[ks[j]];
    memcpy(B->tp, &tp[j * B->reps], (size_t)B->reps * sizeof(double));
    memcpy(B->th, &th[j * B->reps], (size_t)B->reps * sizeof(double));
    set_stats(B, rw);
    rw->bytes = (double)arrays[ks[j] - B_COPY] * sizeof(double) * (double)B->n;
    rw->check_ok = ok && B->porta_rc == 0;
    if (ks[j] == B_TRIAD || ks[j] == B_DOT) crit_speed(rw, 0.97);
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

static void bench_launch(bench *B) {
  row *rw = &B->rows[B_LAUNCH];
  launch_porta(B);
  launch_hand(B);
  for (int r = 0; r < B->reps; ++r) {
    if (porta_first(r)) {
      B->tp[r] = launch_porta(B);
      B->th[r] = launch_hand(B);
    } else {
      B->th[r] = launch_hand(B);
      B->tp[r] = launch_porta(B);
    }
  }
  set_stats(B, rw);
  rw->check_ok = B->porta_rc == 0;
  const double d = paired_median(B->tp, B->th, B->reps, 0) * 1e6;
  rw->has_crit = 1;
  rw->crit_ok = d <= 0.2;
  snprintf(rw->accept, sizeof rw->accept, "<= hand+0.20us: %+.3fus %s", d,
           rw->crit_ok ? "PASS" : "MISS");
}

/* ---- 2D 5-point stencil ------------------------------------------------- */

static void bench_stencil_run(bench *B) {
  row *rw = &B->rows[B_STENCIL];
  const int64_t m = B->stencil_side + 2; /* with the halo */
  porta_view_f64 vin, vout[2];
  note_rc(B, porta_view_f64_create2(&vin, "st_in", m, m));
  note_rc(B, porta_view_f64_create2(&vout[0], "st_out0", m, m));
  note_rc(B, porta_view_f64_create2(&vout[1], "st_out1", m, m));
  if (B->porta_rc) return;
  if (porta_stride(vin, 0) != m || porta_stride(vin, 1) != 1) {
    fprintf(stderr, "porta-bench: stencil view is not row-major with stride %lld\n", (long long)m);
    rw->ran = 1;
    return;
  }
  double *in = vin.data;
  PORTA_OMP(parallel for num_threads(B->nt))
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) in[i * m + j] = (double)((i * 31 + j * 17) % 101) * 0.01;
  const porta_mdrange_policy box = porta_mdrange2(1, m - 1, 1, m - 1);
  int rc = PORTA_SUCCESS;
  for (int r = -1; r < B->reps; ++r) {
    for (int side = 0; side < 2; ++side) {
      const int porta = (side == 0) == porta_first(r);
      const int o = porta ? porta_set(r) : !porta_set(r);
      const double t0 = porta_wtime();
      if (porta) {
        stencil_args sa;
        sa.in = vin;
        sa.out = vout[o];
        rc |= PORTA_PARALLEL_FOR_LABELED("stencil", bk_stencil, B->ex, box, &sa);
        rc |= porta_exec_fence(B->ex, "stencil");
      } else {
        hand_stencil(in, vout[o].data, m, B->nt);
      }
      const double t = porta_wtime() - t0;
      if (r >= 0) (porta ? B->tp : B->th)[r] = t;
    }
  }
  note_rc(B, rc);
  set_stats(B, rw);
  /* check: the last sweep of each side against a serial sweep, interior only */
  const double *po = vout[porta_set(B->reps - 1)].data, *ho = vout[!porta_set(B->reps - 1)].data;
  int ok = B->porta_rc == 0;
  int64_t bad = 0;
  for (int64_t i = 1; i < m - 1; ++i)
    for (int64_t j = 1; j < m - 1; ++j) {
      const double ref = 0.2 * (in[i * m + j] + in[(i - 1) * m + j] + in[(i + 1) * m + j] +
                                in[i * m + j + 1] + in[i * m + j - 1]);
      const double p = po[i * m + j], h = ho[i * m + j];
      if (fabs(p - ref) > 1e-14 * fabs(ref) || fabs(h - ref) > 1e-14 * fabs(ref))
        if (bad++ == 0)
          fprintf(stderr, "porta-bench: stencil (%lld,%lld): porta %.17g hand %.17g ref %.17g\n",
                  (long long)i, (long long)j, p, h, ref);
    }
  if (bad) ok = 0;
  rw->check_ok = ok;
  rw->bytes = 2.0 * sizeof(double) * (double)B->stencil_side * (double)B->stencil_side;
  crit_speed(rw, 0.97);
  porta_view_f64_release(&vin);
  porta_view_f64_release(&vout[0]);
  porta_view_f64_release(&vout[1]);
}

/* ---- team-based CSR SpMV ------------------------------------------------ */

static void bench_spmv_run(bench *B) {
  row *rw = &B->rows[B_SPMV];
  const int64_t g = B->spmv_side, nrows = g * g, nnz = 5 * g * g - 4 * g;
  spmv_args s;
  porta_view_f64 y[2];
  note_rc(B, porta_view_i64_create1(&s.rowptr, "rowptr", nrows + 1));
  note_rc(B, porta_view_i32_create1(&s.col, "col", nnz));
  note_rc(B, porta_view_f64_create1(&s.val, "val", nnz));
  note_rc(B, porta_view_f64_create1(&s.x, "x", nrows));
  note_rc(B, porta_view_f64_create1(&y[0], "y0", nrows));
  note_rc(B, porta_view_f64_create1(&y[1], "y1", nrows));
  if (B->porta_rc) return;
  s.nrows = nrows;
  s.rows_per_team = SPMV_ROWS_PER_TEAM;
  int64_t *rp = s.rowptr.data, k = 0;
  int32_t *col = s.col.data;
  double *val = s.val.data, *x = s.x.data;
  for (int64_t i = 0; i < g; ++i)
    for (int64_t j = 0; j < g; ++j) {
      const int64_t r = i * g + j;
      rp[r] = k;
      if (i > 0) {
        col[k] = (int32_t)(r - g);
        val[k++] = -1.0;
      }
      if (j > 0) {
        col[k] = (int32_t)(r - 1);
        val[k++] = -1.0;
      }
      col[k] = (int32_t)r;
      val[k++] = 4.0;
      if (j < g - 1) {
        col[k] = (int32_t)(r + 1);
        val[k++] = -1.0;
      }
      if (i < g - 1) {
        col[k] = (int32_t)(r + g);
        val[k++] = -1.0;
      }
      x[r] = 1.0 + 0.001 * (double)((r * 7919) % 1009);
    }
  rp[nrows] = k;
  if (k != nnz) {
    fprintf(stderr, "porta-bench: spmv built %lld nonzeros, expected %lld\n", (long long)k,
            (long long)nnz);
    rw->ran = 1;
    return;
  }
  const porta_team_policy tp = porta_team_policy_make(
      (nrows + SPMV_ROWS_PER_TEAM - 1) / SPMV_ROWS_PER_TEAM, PORTA_AUTO, PORTA_AUTO);
  int rc = PORTA_SUCCESS;
  for (int r = -1; r < B->reps; ++r) {
    for (int side = 0; side < 2; ++side) {
      const int porta = (side == 0) == porta_first(r);
      const int o = porta ? porta_set(r) : !porta_set(r);
      const double t0 = porta_wtime();
      if (porta) {
        s.y = y[o];
        rc |= PORTA_PARALLEL_FOR_LABELED("spmv", bk_spmv, B->ex, tp, &s);
        rc |= porta_exec_fence(B->ex, "spmv");
      } else {
        hand_spmv(rp, col, val, x, y[o].data, nrows, B->nt);
      }
      const double t = porta_wtime() - t0;
      if (r >= 0) (porta ? B->tp : B->th)[r] = t;
    }
  }
  note_rc(B, rc);
  set_stats(B, rw);
  const double *py = y[porta_set(B->reps - 1)].data, *hy = y[!porta_set(B->reps - 1)].data;
  int64_t bad = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    double ref = 0.0;
    for (int64_t q = rp[r]; q < rp[r + 1]; ++q) ref += val[q] * x[col[q]];
    const double p = py[r], h = hy[r], tol = 1e-13 * 12.0; /* |val| * |x| summed <= 16 */
    if (fabs(p - ref) > tol || fabs(h - ref) > tol)
      if (bad++ == 0)
        fprintf(stderr, "porta-bench: spmv row %lld: porta %.17g hand %.17g ref %.17g\n",
                (long long)r, p, h, ref);
  }
  rw->check_ok = B->porta_rc == 0 && bad == 0;
  rw->bytes = (double)nnz * (sizeof(double) + sizeof(int32_t)) +
              (double)(nrows + 1) * sizeof(int64_t) + 2.0 * (double)nrows * sizeof(double);
  crit_speed(rw, 0.95);
  porta_view_i64_release(&s.rowptr);
  porta_view_i32_release(&s.col);
  porta_view_f64_release(&s.val);
  porta_view_f64_release(&s.x);
  porta_view_f64_release(&y[0]);
  porta_view_f64_release(&y[1]);
}

/* ---- exclusive scan ----------------------------------------------------- */

static void bench_scan_run(bench *B) {
  row *rw = &B->rows[B_SCAN];
  const int64_t n = B->n;
  porta_view_i64 vin, vout[2];
  note_rc(B, porta_view_i64_create1(&vin, "scan_in", n));
  note_rc(B, porta_view_i64_create1(&vout[0], "scan_out0", n));
  note_rc(B, porta_view_i64_create1(&vout[1], "scan_out1", n));
  if (B->porta_rc) return;
  int64_t *in = vin.data;
  PORTA_OMP(parallel for num_threads(B->nt))
  for (int64_t i = 0; i < n; ++i) in[i] = (i * 37) % 11 - 3;
  int64_t *part = (int64_t *)calloc((size_t)(8 * (B->nt + 1)), sizeof(int64_t));
  double *tc = (double *)malloc((size_t)B->reps * sizeof(double));
  int64_t tot_p = 0, tot_h = 0;
  int rc = PORTA_SUCCESS;
  for (int r = -1; r < B->reps; ++r) {
    { /* the copy reference first: the scans then overwrite its output */
      scan_args ca;
      ca.in = vin;
      ca.out = vout[porta_set(r)];
      const double t0 = porta_wtime();
      rc |= PORTA_PARALLEL_FOR_LABELED("copy_i64", bk_copy_i64, B->ex, porta_range(0, n), &ca);
      rc |= porta_exec_fence(B->ex, "copy_i64");
      if (r >= 0) tc[r] = porta_wtime() - t0;
    }
    for (int side = 0; side < 2; ++side) {
      const int porta = (side == 0) == porta_first(r);
      const int o = porta ? porta_set(r) : !porta_set(r);
      const double t0 = porta_wtime();
      if (porta) {
        scan_args sa;
        sa.in = vin;
        sa.out = vout[o];
        rc |= PORTA_PARALLEL_SCAN_LABELED("scan", bk_scan, B->ex, porta_range(0, n), &sa, &tot_p);
        rc |= porta_exec_fence(B->ex, "scan");
      } else {
        tot_h = hand_scan(in, vout[o].data, n, B->nt, part);
      }
      const double t = porta_wtime() - t0;
      if (r >= 0) (porta ? B->tp : B->th)[r] = t;
    }
  }
  note_rc(B, rc);
  set_stats(B, rw);
  const int64_t *po = vout[porta_set(B->reps - 1)].data, *ho = vout[!porta_set(B->reps - 1)].data;
  int64_t s = 0, bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (po[i] != s || ho[i] != s)
      if (bad++ == 0)
        fprintf(stderr, "porta-bench: scan [%lld]: porta %lld hand %lld expected %lld\n",
                (long long)i, (long long)po[i], (long long)ho[i], (long long)s);
    s += in[i];
  }
  if (tot_p != s || tot_h != s) {
    fprintf(stderr, "porta-bench: scan total: porta %lld hand %lld expected %lld\n",
            (long long)tot_p, (long long)tot_h, (long long)s);
    ++bad;
  }
  rw->check_ok = B->porta_rc == 0 && bad == 0;
  rw->bytes = 2.0 * sizeof(int64_t) * (double)n;
  double cmin;
  const double cmed = median_of(tc, B->reps, &cmin);
  char ct[24];
  fmt_time(ct, sizeof ct, cmed, 0);
  snprintf(B->scan_note, sizeof B->scan_note,
           "hand = 2-pass omp scan; copy reference = Porta copy of the same int64 arrays, "
           "interleaved: median %s, %.2f GB/s",
           ct, rw->bytes / cmed * 1e-9);
  rw->ref_label = B->scan_note;
  const double v = paired_median(tc, B->tp, B->reps, 1); /* same bytes: bandwidth ratio */
  rw->has_crit = 1;
  rw->crit_ok = v >= 0.6;
  snprintf(rw->accept, sizeof rw->accept, ">= 0.60 copy: %.3f %s", v,
           rw->crit_ok ? "PASS" : "MISS");
  free(tc);
  free(part);
  porta_view_i64_release(&vin);
  porta_view_i64_release(&vout[0]);
  porta_view_i64_release(&vout[1]);
}

/* ---- deterministic dot -------------------------------------------------- */

/** The dot benchmarks' data (host views): x in [-0.5, 0.5) from a hash, y = 1 / (1 + i % 977),
 *  written by nt threads (first touch), and the exact-ish answer with its magnitude. */
static void dot_data(const stream_args *d, int64_t n, int nt, long double *ref, long double *mag) {
  (void)nt; /* unused without OpenMP */
  double *x = d->a.data, *y = d->b.data;
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 0; i < n; ++i) {
    x[i] = (double)((i * 2654435761LL) % 1000003) / 1000003.0 - 0.5;
    y[i] = 1.0 / (double)(1 + i % 977);
  }
  *ref = *mag = 0;
  for (int64_t i = 0; i < n; ++i) {
    *ref += (long double)x[i] * y[i];
    *mag += fabsl((long double)x[i] * y[i]);
  }
}

typedef struct det_bits {
  int have;
  double v;
} det_bits;

static void bench_det(bench *B, det_bits bits[3]) {
  row *rw = &B->rows[B_DET];
  const int64_t n = B->n;
  stream_args d; /* the dot of a and b */
  note_rc(B, porta_view_f64_create1(&d.a, "det_x", n));
  note_rc(B, porta_view_f64_create1(&d.b, "det_y", n));
  if (B->porta_rc) return;
  d.c = d.a;
  d.d = d.a;
  d.scalar = 0.0;
  long double ref, mag;
  dot_data(&d, n, B->nt, &ref, &mag);
  const int det0 = porta_deterministic(), nt0 = porta_num_threads();
  const porta_range_policy rg = porta_range(0, n);
  double v_det = 0, v_def = 0;
  int rc = PORTA_SUCCESS;
  for (int r = -1; r < B->reps; ++r) {
    for (int side = 0; side < 2; ++side) {
      const int det = (side == 0) == porta_first(r);
      porta_set_deterministic(det);
      const double t0 = porta_wtime();
      rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, B->ex, rg, &d, det ? &v_det : &v_def);
      rc |= porta_exec_fence(B->ex, "dot");
      const double t = porta_wtime() - t0;
      if (r >= 0) (det ? B->tp : B->th)[r] = t;
    }
  }
  set_stats(B, rw);
  /* the deterministic result on Serial, OpenMP 1 thread, OpenMP nt threads */
  porta_set_deterministic(1);
  bits[0].have = 1;
  rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, porta_exec_backend(PORTA_BACKEND_SERIAL), rg,
                                      &d, &bits[0].v);
  if (porta_backend_available(PORTA_BACKEND_OPENMP)) {
    const porta_exec omp = porta_exec_backend(PORTA_BACKEND_OPENMP);
    const int nt2 = nt0 > 1 ? nt0 : 2;
    B->det_threads = nt2;
    rc |= porta_set_num_threads(1);
    rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, omp, rg, &d, &bits[1].v);
    bits[1].have = 1;
    rc |= porta_set_num_threads(nt2);
    rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, omp, rg, &d, &bits[2].v);
    bits[2].have = 1;
    rc |= porta_set_num_threads(nt0);
  }
  porta_set_deterministic(det0);
  note_rc(B, rc);
  int ok = B->porta_rc == 0;
  const double tol = 1e-12 * (double)mag;
  if (fabs(v_det - (double)ref) > tol || fabs(v_def - (double)ref) > tol) {
    fprintf(stderr, "porta-bench: dot: deterministic %.17g default %.17g reference %.17Lg\n", v_det,
            v_def, ref);
    ok = 0;
  }
  for (int q = 0; q < 3; ++q)
    if (bits[q].have && memcmp(&bits[q].v, &v_det, sizeof(double)) != 0) ok = 0;
  rw->check_ok = ok;
  rw->bytes = 2.0 * sizeof(double) * (double)n;
  rw->ref_label = "hand = same Porta dot, deterministic off";
  const double v = paired_median(B->tp, B->th, B->reps, 1);
  rw->has_crit = 1;
  rw->crit_ok = v >= 0.95 && v <= 1.10; /* default as fast as det; det at most 10 % slower */
  snprintf(rw->accept, sizeof rw->accept, "0.95 <= det/default time <= 1.10: %.3f %s", v,
           rw->crit_ok ? "PASS" : "MISS");
  porta_view_f64_release(&d.a);
  porta_view_f64_release(&d.b);
}

/* ---- Serial dot ---------------------------------------------------------- */

/** The Serial back end's default dot (one core) against hand_dot4: a host reduction must not be
 *  bound by the latency of one running sum. */
static void bench_sdot(bench *B) {
  row *rw = &B->rows[B_SDOT];
  const int64_t n = B->n;
  stream_args d;
  note_rc(B, porta_view_f64_create1(&d.a, "sdot_x", n));
  note_rc(B, porta_view_f64_create1(&d.b, "sdot_y", n));
  if (B->porta_rc) return;
  d.c = d.d = d.a;
  d.scalar = 0.0;
  long double ref, mag;
  dot_data(&d, n, 1, &ref, &mag);
  const int det0 = porta_deterministic();
  porta_set_deterministic(0);
  const porta_exec serial = porta_exec_backend(PORTA_BACKEND_SERIAL);
  const porta_range_policy rg = porta_range(0, n);
  double v_p = 0, v_h = 0;
  int rc = PORTA_SUCCESS;
  for (int r = -1; r < B->reps; ++r) {
    for (int side = 0; side < 2; ++side) {
      const int porta = (side == 0) == porta_first(r);
      const double t0 = porta_wtime();
      if (porta)
        rc |= PORTA_PARALLEL_REDUCE_LABELED("sdot", bk_dot, serial, rg, &d, &v_p);
      else
        v_h = hand_dot4(d.a.data, d.b.data, n);
      const double t = porta_wtime() - t0;
      if (r >= 0) (porta ? B->tp : B->th)[r] = t;
    }
  }
  porta_set_deterministic(det0);
  note_rc(B, rc);
  set_stats(B, rw);
  const double tol = 1e-12 * (double)mag;
  rw->check_ok =
      B->porta_rc == 0 && fabs(v_p - (double)ref) <= tol && fabs(v_h - (double)ref) <= tol;
  if (!rw->check_ok)
    fprintf(stderr, "porta-bench: sdot: porta %.17g hand %.17g reference %.17Lg\n", v_p, v_h, ref);
  rw->bytes = 2.0 * sizeof(double) * (double)n;
  rw->ref_label = "Serial back end, one core; hand = a loop with 4 accumulators";
  crit_speed(rw, 0.95);
  porta_view_f64_release(&d.a);
  porta_view_f64_release(&d.b);
}

/* ---- output ------------------------------------------------------------- */

static void usage(FILE *out) {
  fprintf(out,
          "usage: porta-bench [--n=ELEMENTS] [--reps=K] [--only=LIST] [--stencil=SIDE]\n"
          "                   [--spmv=SIDE] [--porta-*]\n"
          "  --n        elements of the stream, scan and det arrays (default 2^25)\n"
          "  --reps     timed reps of each benchmark, after one warm-up (default 10)\n"
          "  --only     comma list of: copy,scale,add,triad,dot,launch,stencil,spmv,scan,det,\n"
          "             sdot\n"
          "  --stencil  interior side of the 2D stencil (default sqrt(n/2), 4096)\n"
          "  --spmv     side of the SpMV Laplacian grid (default sqrt(n/8), 2048)\n"
          "  --porta-help  Porta's own options\n");
}

static int parse_i64(const char *s, int64_t lo, int64_t *out) {
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || v < lo) return 0;
  *out = v;
  return 1;
}

int main(int argc, char **argv) {
  if (porta_initialize(&argc, &argv) != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench: %s\n", porta_last_error_message());
    return 2;
  }
  bench B;
  memset(&B, 0, sizeof B);
  B.n = (int64_t)1 << 25;
  B.reps = 10;
  for (int k = 0; k < B_COUNT; ++k) B.only[k] = 1;
  int64_t v;
  for (int a = 1; a < argc; ++a) {
    const char *s = argv[a];
    if (!strncmp(s, "--n=", 4) && parse_i64(s + 4, 1, &v)) {
      B.n = v;
    } else if (!strncmp(s, "--reps=", 7) && parse_i64(s + 7, 1, &v) && v < 1000000) {
      B.reps = (int)v;
    } else if (!strncmp(s, "--stencil=", 10) && parse_i64(s + 10, 1, &v)) {
      B.stencil_side = v;
    } else if (!strncmp(s, "--spmv=", 7) && parse_i64(s + 7, 2, &v) && v <= 46340) {
      B.spmv_side = v;
    } else if (!strncmp(s, "--only=", 7)) {
      for (int k = 0; k < B_COUNT; ++k) B.only[k] = 0;
      const char *p = s + 7;
      while (*p) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int k = 0; k < B_COUNT; ++k)
          if (strlen(bench_names[k]) == len && !strncmp(p, bench_names[k], len))
            B.only[k] = found = 1;
        if (!found) {
          fprintf(stderr, "porta-bench: unknown benchmark '%.*s' in --only\n", (int)len, p);
          usage(stderr);
          porta_finalize();
          return 2;
        }
        p += len;
        if (*p == ',') ++p;
      }
    } else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      usage(stdout);
      porta_finalize();
      return 0;
    } else {
      fprintf(stderr, "porta-bench: bad option '%s'\n", s);
      usage(stderr);
      porta_finalize();
      return 2;
    }
  }
  if (!B.stencil_side) B.stencil_side = (int64_t)sqrt((double)B.n / 2.0);
  if (B.stencil_side < 1) B.stencil_side = 1;
  if (!B.spmv_side) B.spmv_side = (int64_t)sqrt((double)B.n / 8.0);
  if (B.spmv_side < 2) B.spmv_side = 2;
  B.ex = porta_exec_default();
  if (B.ex.backend != PORTA_BACKEND_OPENMP && B.ex.backend != PORTA_BACKEND_SERIAL) {
    fprintf(stderr,
            "porta-bench: compares host back ends with host loops; the default back end "
            "is %s (use --porta-backend=openmp)\n",
            porta_backend_name(B.ex.backend));
    porta_finalize();
    return 2;
  }
  B.nt = B.ex.backend == PORTA_BACKEND_OPENMP ? porta_num_threads() : 1;
  B.tp = (double *)malloc((size_t)B.reps * sizeof(double));
  B.th = (double *)malloc((size_t)B.reps * sizeof(double));

  printf(
      "porta-bench: Porta kernels against hand-written OpenMP loops (same compiler, same flags)\n");
  porta_print_configuration(stdout);
  const char *bind = getenv("OMP_PROC_BIND");
  printf("  n = %lld (%.1f MiB per array), reps = %d after 1 warm-up, threads = %d, "
         "OMP_PROC_BIND=%s\n",
         (long long)B.n, (double)B.n * 8.0 / 1048576.0, B.reps, B.nt, bind ? bind : "(unset)");
  printf("  stencil %lld x %lld interior, spmv %lld x %lld grid (5-point Laplacian, %d rows per "
         "team)\n\n",
         (long long)B.stencil_side, (long long)B.stencil_side, (long long)B.spmv_side,
         (long long)B.spmv_side, SPMV_ROWS_PER_TEAM);
  fflush(stdout);

  det_bits bits[3];
  memset(bits, 0, sizeof bits);
  bench_stream(&B);
  if (B.only[B_LAUNCH] && !B.porta_rc) bench_launch(&B);
  if (B.only[B_STENCIL] && !B.porta_rc) bench_stencil_run(&B);
  if (B.only[B_SPMV] && !B.porta_rc) bench_spmv_run(&B);
  if (B.only[B_SCAN] && !B.porta_rc) bench_scan_run(&B);
  if (B.only[B_DET] && !B.porta_rc) bench_det(&B, bits);
  if (B.only[B_SDOT] && !B.porta_rc) bench_sdot(&B);

  printf("%-8s %12s %12s %12s %12s %8s %8s %8s  %-5s %s\n", "kernel", "porta med", "porta min",
         "hand med", "hand min", "h/p", "porta", "hand", "check", "acceptance");
  printf("%-8s %12s %12s %12s %12s %8s %8s %8s  %-5s %s\n", "", "", "", "", "", "speed", "GB/s",
         "GB/s", "", "");
  int all_ok = 1, n_crit = 0, n_pass = 0;
  for (int k = 0; k < B_COUNT; ++k) {
    const row *r = &B.rows[k];
    if (!B.only[k]) continue;
    if (!r->ran) {
      printf("%-8s %s\n", bench_names[k], "not run (an earlier error)");
      all_ok = 0;
      continue;
    }
    char pm[24], pn[24], hm[24], hn[24], pb[16], hb[16];
    const int us = k == B_LAUNCH;
    fmt_time(pm, sizeof pm, r->p_med, us);
    fmt_time(pn, sizeof pn, r->p_min, us);
    fmt_time(hm, sizeof hm, r->h_med, us);
    fmt_time(hn, sizeof hn, r->h_min, us);
    fmt_bw(pb, sizeof pb, r->bytes, r->p_med);
    fmt_bw(hb, sizeof hb, r->bytes, r->h_med);
    printf("%-8s %12s %12s %12s %12s %8.3f %8s %8s  %-5s %s\n", bench_names[k], pm, pn, hm, hn,
           r->speed, pb, hb, r->check_ok ? "OK" : "FAIL", r->has_crit ? r->accept : "-");
    all_ok &= r->check_ok;
    n_crit += r->has_crit;
    n_pass += r->has_crit && r->crit_ok;
  }
  printf("\n  med, min: median and minimum over the reps. h/p speed: median over the reps of\n"
         "  hand time / porta time within one rep (> 1: Porta faster); the criteria use such\n"
         "  per-rep pairs too (launch: difference, det: det/default, scan: copy/scan time).\n"
         "  GB/s from the medians with BabelStream byte counts: copy, scale, dot 2 arrays,\n"
         "  add, triad 3; stencil in + out; spmv val, col, rowptr, x, y; scan in + out.\n"
         "  launch: one empty parallel for over nthreads indices, reps of %d launches.\n",
         LAUNCHES_PER_REP);
  for (int k = 0; k < B_COUNT; ++k)
    if (B.only[k] && B.rows[k].ran && B.rows[k].ref_label)
      printf("  %s: %s\n", bench_names[k], B.rows[k].ref_label);
  if (B.only[B_DET] && B.rows[B_DET].ran) {
    printf("  deterministic dot bits:");
    char who2[32];
    snprintf(who2, sizeof who2, "openmp %d threads", B.det_threads);
    const char *const who[3] = {"serial", "openmp 1 thread", who2};
    int same = 1;
    for (int q = 0; q < 3; ++q) {
      if (!bits[q].have) {
        printf(" %s n/a;", who[q]);
        continue;
      }
      uint64_t u;
      memcpy(&u, &bits[q].v, sizeof u);
      printf(" %s %.17g (0x%016llx);", who[q], bits[q].v, (unsigned long long)u);
      same &= memcmp(&bits[q].v, &bits[0].v, sizeof(double)) == 0;
    }
    printf(" %s\n", same ? "IDENTICAL" : "DIFFERENT");
  }
  printf("\nperformance criteria: %d of %d PASS; correctness: %s\n", n_pass, n_crit,
         all_ok && !B.porta_rc ? "all OK" : "FAILED");
  free(B.tp);
  free(B.th);
  if (porta_finalize() != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench: %s\n", porta_last_error_message());
    return 1;
  }
  return all_ok && !B.porta_rc ? 0 : 1;
}
