/** @file bench_host_reduce.c
 *  porta-bench: the exclusive scan (against a hand-written two-pass OpenMP scan and a Porta
 *  copy of the same arrays), the deterministic dot (against the default one, with its bits on
 *  Serial and OpenMP) and the Serial back end's dot (against a four-accumulator loop)
 *  (bench_host.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host.h"
#include "bench_matrix.h"

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

/* ---- exclusive scan ----------------------------------------------------- */

typedef struct scan_ctx {
  bench *B;
  porta_view_i64 in, out[2];
  int64_t *part; /**< the hand-written scan's block sums */
  double *tc;    /**< per-rep times of the copy reference */
  int64_t tot_p, tot_h;
  int rc;
} scan_ctx;

/** The copy reference of rep r: a Porta copy of the same int64 arrays into Porta's output. */
static void scan_copy(scan_ctx *c, int r) {
  scan_args ca;
  ca.in = c->in;
  ca.out = c->out[bench_porta_set(r)];
  const double t0 = porta_wtime();
  c->rc |=
      PORTA_PARALLEL_FOR_LABELED("copy_i64", bk_copy_i64, c->B->ex, porta_range(0, c->B->n), &ca);
  c->rc |= porta_exec_fence(c->B->ex, "copy_i64");
  if (r >= 0) c->tc[r] = porta_wtime() - t0;
}

/** The copy reference runs first in every rep (the scans then overwrite its output). */
static double scan_side(void *ctx, int porta, int r) {
  scan_ctx *c = (scan_ctx *)ctx;
  bench *B = c->B;
  if (porta == bench_porta_first(r)) scan_copy(c, r);
  const int o = porta ? bench_porta_set(r) : !bench_porta_set(r);
  const double t0 = porta_wtime();
  if (porta) {
    scan_args sa;
    sa.in = c->in;
    sa.out = c->out[o];
    c->rc |=
        PORTA_PARALLEL_SCAN_LABELED("scan", bk_scan, B->ex, porta_range(0, B->n), &sa, &c->tot_p);
    c->rc |= porta_exec_fence(B->ex, "scan");
  } else {
    c->tot_h = hand_scan(c->in.data, c->out[o].data, B->n, B->nt, c->part);
  }
  return porta_wtime() - t0;
}

/** The last scan of each side and both totals against a serial scan; the wrong values. */
static int64_t scan_check(const scan_ctx *c, int reps) {
  const int64_t n = c->B->n, *in = c->in.data;
  const int64_t *po = c->out[bench_porta_set(reps - 1)].data,
                *ho = c->out[!bench_porta_set(reps - 1)].data;
  int64_t s = 0, bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (po[i] != s || ho[i] != s)
      if (bad++ == 0)
        fprintf(stderr, "porta-bench: scan [%lld]: porta %lld hand %lld expected %lld\n",
                (long long)i, (long long)po[i], (long long)ho[i], (long long)s);
    s += in[i];
  }
  if (c->tot_p != s || c->tot_h != s) {
    fprintf(stderr, "porta-bench: scan total: porta %lld hand %lld expected %lld\n",
            (long long)c->tot_p, (long long)c->tot_h, (long long)s);
    ++bad;
  }
  return bad;
}

/** The scan's row against the copy reference: its note and criterion. */
static void scan_verdict(bench *B, bench_row *rw, const double *tc) {
  double cmin;
  const double cmed = bench_median(tc, B->reps, &cmin);
  char ct[24];
  fmt_time(ct, sizeof ct, cmed, 0);
  snprintf(B->scan_note, sizeof B->scan_note,
           "hand = 2-pass omp scan; copy reference = Porta copy of the same int64 arrays, "
           "interleaved: median %s, %.2f GB/s",
           ct, rw->bytes / cmed * 1e-9);
  rw->ref_label = B->scan_note;
  const double v = bench_paired_median(tc, B->tp, B->reps, 1); /* same bytes: bandwidth ratio */
  rw->has_crit = 1;
  rw->crit_ok = v >= 0.6;
  snprintf(rw->accept, sizeof rw->accept, ">= 0.60 copy: %.3f %s", v,
           rw->crit_ok ? "PASS" : "MISS");
}

void bench_scan_run(bench *B) {
  bench_row *rw = &B->rows[B_SCAN];
  const int64_t n = B->n;
  scan_ctx c;
  memset(&c, 0, sizeof c);
  c.B = B;
  note_rc(B, porta_view_i64_create1(&c.in, "scan_in", n));
  note_rc(B, porta_view_i64_create1(&c.out[0], "scan_out0", n));
  note_rc(B, porta_view_i64_create1(&c.out[1], "scan_out1", n));
  if (B->porta_rc) return;
  int64_t *in = c.in.data;
  PORTA_OMP(parallel for num_threads(B->nt))
  for (int64_t i = 0; i < n; ++i) in[i] = bench_scan_in(i);
  c.part = (int64_t *)calloc((size_t)(8 * (B->nt + 1)), sizeof(int64_t));
  c.tc = (double *)malloc((size_t)B->reps * sizeof(double));
  bench_abba(B->reps, bench_porta_first(-1), scan_side, &c, B->tp, B->th);
  note_rc(B, c.rc);
  bench_row_stats(rw, B->tp, B->th, B->reps);
  const int64_t bad = scan_check(&c, B->reps);
  rw->check_ok = B->porta_rc == 0 && bad == 0;
  rw->bytes = 2.0 * sizeof(int64_t) * (double)n;
  scan_verdict(B, rw, c.tc);
  free(c.tc);
  free(c.part);
  porta_view_i64_release(&c.in);
  porta_view_i64_release(&c.out[0]);
  porta_view_i64_release(&c.out[1]);
}

/* ---- the dots' data ------------------------------------------------------ */

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

/** A dot benchmark's state: the arrays (a . b), the exact-ish answer and the sides' results. */
typedef struct dot_ctx {
  bench *B;
  stream_args d;
  long double ref, mag;
  porta_range_policy rg;
  porta_exec serial;
  double v_p, v_h; /**< det: deterministic, default; sdot: Porta, hand */
  int rc;
} dot_ctx;

/** The arrays of a dot benchmark, `tag`_x and `tag`_y, filled by nt threads; 0 if they exist. */
static int dot_create(dot_ctx *c, bench *B, const char *tag, int nt) {
  char lx[16], ly[16];
  snprintf(lx, sizeof lx, "%s_x", tag);
  snprintf(ly, sizeof ly, "%s_y", tag);
  memset(c, 0, sizeof *c);
  c->B = B;
  note_rc(B, porta_view_f64_create1(&c->d.a, lx, B->n));
  note_rc(B, porta_view_f64_create1(&c->d.b, ly, B->n));
  if (B->porta_rc) return 1;
  c->d.c = c->d.d = c->d.a;
  c->d.scalar = 0.0;
  dot_data(&c->d, B->n, nt, &c->ref, &c->mag);
  c->rg = porta_range(0, B->n);
  c->serial = porta_exec_backend(PORTA_BACKEND_SERIAL);
  return 0;
}

static void dot_release(dot_ctx *c) {
  porta_view_f64_release(&c->d.a);
  porta_view_f64_release(&c->d.b);
}

/* ---- deterministic dot -------------------------------------------------- */

/** The Porta side is the deterministic dot, the reference the default one. */
static double det_side(void *ctx, int det, int r) {
  (void)r;
  dot_ctx *c = (dot_ctx *)ctx;
  porta_set_deterministic(det);
  const double t0 = porta_wtime();
  c->rc |=
      PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, c->B->ex, c->rg, &c->d, det ? &c->v_p : &c->v_h);
  c->rc |= porta_exec_fence(c->B->ex, "dot");
  return porta_wtime() - t0;
}

/** The deterministic result on Serial, OpenMP 1 thread, OpenMP det_threads threads. */
static void det_bits_run(dot_ctx *c, det_bits bits[3]) {
  bench *B = c->B;
  const int nt0 = porta_num_threads();
  porta_set_deterministic(1);
  bits[0].have = 1;
  c->rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, c->serial, c->rg, &c->d, &bits[0].v);
  if (porta_backend_available(PORTA_BACKEND_OPENMP)) {
    const porta_exec omp = porta_exec_backend(PORTA_BACKEND_OPENMP);
    const int nt2 = nt0 > 1 ? nt0 : 2;
    B->det_threads = nt2;
    c->rc |= porta_set_num_threads(1);
    c->rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, omp, c->rg, &c->d, &bits[1].v);
    bits[1].have = 1;
    c->rc |= porta_set_num_threads(nt2);
    c->rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, omp, c->rg, &c->d, &bits[2].v);
    bits[2].have = 1;
    c->rc |= porta_set_num_threads(nt0);
  }
}

void bench_det(bench *B, det_bits bits[3]) {
  bench_row *rw = &B->rows[B_DET];
  dot_ctx c; /* the dot of a and b */
  if (dot_create(&c, B, "det", B->nt)) return;
  const int det0 = porta_deterministic();
  bench_abba(B->reps, bench_porta_first(-1), det_side, &c, B->tp, B->th);
  bench_row_stats(rw, B->tp, B->th, B->reps);
  det_bits_run(&c, bits);
  porta_set_deterministic(det0);
  note_rc(B, c.rc);
  int ok = B->porta_rc == 0;
  const double tol = 1e-12 * (double)c.mag;
  if (fabs(c.v_p - (double)c.ref) > tol || fabs(c.v_h - (double)c.ref) > tol) {
    fprintf(stderr, "porta-bench: dot: deterministic %.17g default %.17g reference %.17Lg\n", c.v_p,
            c.v_h, c.ref);
    ok = 0;
  }
  for (int q = 0; q < 3; ++q)
    if (bits[q].have && memcmp(&bits[q].v, &c.v_p, sizeof(double)) != 0) ok = 0;
  rw->check_ok = ok;
  rw->bytes = 2.0 * sizeof(double) * (double)B->n;
  rw->ref_label = "hand = same Porta dot, deterministic off";
  const double v = bench_paired_median(B->tp, B->th, B->reps, 1);
  rw->has_crit = 1;
  rw->crit_ok = v >= 0.95 && v <= 1.10; /* default as fast as det; det at most 10 % slower */
  snprintf(rw->accept, sizeof rw->accept, "0.95 <= det/default time <= 1.10: %.3f %s", v,
           rw->crit_ok ? "PASS" : "MISS");
  dot_release(&c);
}

/* ---- Serial dot ---------------------------------------------------------- */

static double sdot_side(void *ctx, int porta, int r) {
  (void)r;
  dot_ctx *c = (dot_ctx *)ctx;
  const double t0 = porta_wtime();
  if (porta)
    c->rc |= PORTA_PARALLEL_REDUCE_LABELED("sdot", bk_dot, c->serial, c->rg, &c->d, &c->v_p);
  else
    c->v_h = hand_dot4(c->d.a.data, c->d.b.data, c->B->n);
  return porta_wtime() - t0;
}

/** The Serial back end's default dot (one core) against hand_dot4: a host reduction must not be
 *  bound by the latency of one running sum. */
void bench_sdot(bench *B) {
  bench_row *rw = &B->rows[B_SDOT];
  dot_ctx c;
  if (dot_create(&c, B, "sdot", 1)) return;
  const int det0 = porta_deterministic();
  porta_set_deterministic(0);
  bench_abba(B->reps, bench_porta_first(-1), sdot_side, &c, B->tp, B->th);
  porta_set_deterministic(det0);
  note_rc(B, c.rc);
  bench_row_stats(rw, B->tp, B->th, B->reps);
  const double tol = 1e-12 * (double)c.mag;
  rw->check_ok =
      B->porta_rc == 0 && fabs(c.v_p - (double)c.ref) <= tol && fabs(c.v_h - (double)c.ref) <= tol;
  if (!rw->check_ok)
    fprintf(stderr, "porta-bench: sdot: porta %.17g hand %.17g reference %.17Lg\n", c.v_p, c.v_h,
            c.ref);
  rw->bytes = 2.0 * sizeof(double) * (double)B->n;
  rw->ref_label = "Serial back end, one core; hand = a loop with 4 accumulators";
  bench_crit_ratio(rw, 0.95, "hand");
  dot_release(&c);
}
