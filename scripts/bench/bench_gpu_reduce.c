/** @file bench_gpu_reduce.c
 *  porta-bench-gpu: the deterministic dot and the exact dot (against the default one, their bits
 *  against the Serial back end's) and the exclusive scan (against a Porta copy of the same arrays)
 *  (bench_gpu.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_gpu.h"
#include "bench_matrix.h"

#if defined(__CUDACC__)

/* ---- initialisation and checker (never timed) ---- */

/** Dot data whose products are exact (25- and 26-bit integers over 2^26), so fused and
 *  unfused multiply-adds agree, while the sums round: only the order of the additions
 *  decides the bits. */
static __global__ void det_init_k(double *x, double *y, int64_t n) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    const uint64_t u = (uint64_t)i * 2654435761u, w = (uint64_t)i * 40503u + 12345u;
    x[i] = ((double)(int64_t)(u % 33554432u) - 16777216.0) / 67108864.0 * 2.0;
    y[i] = (double)(1 + w % 67108863u) / 67108864.0;
  }
}
static __global__ void scan_init_k(int64_t *in, int64_t n) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    in[i] = bench_scan_in(i);
}
/** Exclusive scan check: out[0] == 0 and out[i + 1] - out[i] == in[i]; total == last sum. */
static __global__ void scan_check_k(const int64_t *in, const int64_t *out, int64_t n, int64_t total,
                                    unsigned long long *bad) {
  unsigned long long mine = 0;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    if (i == 0 && out[0] != 0) ++mine;
    const int64_t next = i + 1 < n ? out[i + 1] : total;
    if (next - out[i] != in[i]) ++mine;
  }
  if (mine) atomicAdd(bad, mine);
}

/* ---- deterministic dot -------------------------------------------------- */

/** The dot rows' data in a and b (det_init_k), and their arguments. */
static stream_args dot_data(bench *B, porta_view_f64 *a, porta_view_f64 *b) {
  stream_args s;
  memset(&s, 0, sizeof s);
  s.a = *a;
  s.b = *b;
  s.c = *a;
  s.d = *a;
  det_init_k<<<check_grid(B), HAND_BLOCK>>>(a->data, b->data, B->n);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  return s;
}

/** The Serial back end's dot of host copies of a and b, deterministic (bk_dot) or exact
 *  (bk_exact_dot, rounded), with the long double sum of the products and of their magnitudes
 *  for the tolerance; NaN when the copies failed. */
static double serial_dot(bench *B, const porta_view_f64 *a, const porta_view_f64 *b, int exact,
                         long double *ref, long double *mag) {
  const int64_t n = B->n;
  porta_view_f64 hx, hy;
  const porta_view_options ho = host_options();
  note_rc(B, porta_view_f64_create(&hx, "dot_hx", 1, &n, &ho));
  note_rc(B, porta_view_f64_create(&hy, "dot_hy", 1, &n, &ho));
  double v = NAN;
  *ref = *mag = 0;
  if (!B->porta_rc) {
    note_rc(B, porta_deep_copy(hx, *a));
    note_rc(B, porta_deep_copy(hy, *b));
    stream_args hs;
    memset(&hs, 0, sizeof hs);
    hs.a = hx;
    hs.b = hy;
    hs.c = hx;
    hs.d = hx;
    const porta_exec serial = porta_exec_backend(PORTA_BACKEND_SERIAL);
    if (exact) {
      porta_xsum_f64_value x;
      note_rc(B, PORTA_PARALLEL_REDUCE_LABELED("exact_dot", bk_exact_dot, serial, porta_range(0, n),
                                               &hs, &x));
      v = porta_xsum_f64_round(&x);
    } else {
      porta_set_deterministic(1);
      note_rc(B, PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, serial, porta_range(0, n), &hs, &v));
      porta_set_deterministic(B->det0);
    }
    for (int64_t i = 0; i < n; ++i) {
      const long double p = (long double)hx.data[i] * hy.data[i];
      *ref += p;
      *mag += fabsl(p);
    }
  }
  porta_view_f64_release(&hx);
  porta_view_f64_release(&hy);
  return v;
}

/** The first value a side gave (*first, once *have), and whether every later one has its bits
 *  (*same cleared at the first that differs). */
static void track_bits(double v, double *first, int *have, int *same) {
  if (!*have) {
    *first = v;
    *have = 1;
  } else if (memcmp(first, &v, sizeof v) != 0) {
    *same = 0;
  }
}

typedef struct det_ctx {
  bench *B;
  stream_args s;
  double v_det, v_def, first_det;
  int have_first, same;
} det_ctx;

/** The Porta side is the deterministic dot, the reference the default one. */
static double det_side(void *vctx, int porta, int rep) {
  (void)rep;
  det_ctx *c = (det_ctx *)vctx;
  bench *B = c->B;
  const porta_range_policy rg = porta_range(0, B->n);
  int rc = PORTA_SUCCESS;
  porta_set_deterministic(porta);
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, B->ex, rg, &c->s,
                                        porta ? &c->v_det : &c->v_def);
    if (porta) track_bits(c->v_det, &c->first_det, &c->have_first, &c->same);
  }
  rc |= porta_exec_fence(B->ex, "dot");
  const double t = porta_wtime() - t0;
  porta_set_deterministic(B->det0);
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

void bench_det(bench *B, porta_view_f64 *a, porta_view_f64 *b) {
  bench_row *rw = &B->rows[B_DET];
  const int64_t n = B->n;
  det_ctx c;
  memset(&c, 0, sizeof c);
  c.B = B;
  c.same = 1;
  c.s = dot_data(B, a, b);
  measure(B, rw, det_side, &c);
  rw->bytes = 2.0 * sizeof(double) * (double)n;
  rw->ref_label = "ref = the same Porta dot, deterministic off";

  long double ref = 0, mag = 0;
  const double v_serial = serial_dot(B, a, b, 0, &ref, &mag);
  B->det_bits[0] = c.v_det;
  B->det_bits[1] = v_serial;
  B->det_bits[2] = c.v_def;
  B->det_same_reps = c.same;
  int ok = !B->porta_rc && c.same && memcmp(&c.v_det, &v_serial, sizeof(double)) == 0;
  const double tol = 1e-12 * (double)mag;
  if (!(fabs(c.v_det - (double)ref) <= tol && fabs(c.v_def - (double)ref) <= tol)) {
    fprintf(stderr, "porta-bench-gpu: dot: deterministic %.17g default %.17g reference %.17Lg\n",
            c.v_det, c.v_def, ref);
    ok = 0;
  }
  rw->check_ok = ok;
  bench_crit_ratio(rw, 0.90, "default");
}

/* ---- exact dot ---------------------------------------------------------- */

typedef struct exact_ctx {
  bench *B;
  stream_args s;
  porta_xsum_f64_value v;
  double v_def, first;
  int have_first, same;
} exact_ctx;

/** The Porta side is the exact dot (porta_xsum_f64), the reference the default one. */
static double exact_side(void *vctx, int porta, int rep) {
  (void)rep;
  exact_ctx *c = (exact_ctx *)vctx;
  bench *B = c->B;
  const porta_range_policy rg = porta_range(0, B->n);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (porta) {
      rc |= PORTA_PARALLEL_REDUCE_LABELED("exact_dot", bk_exact_dot, B->ex, rg, &c->s, &c->v);
      track_bits(porta_xsum_f64_round(&c->v), &c->first, &c->have_first, &c->same);
    } else {
      rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, B->ex, rg, &c->s, &c->v_def);
    }
  }
  rc |= porta_exec_fence(B->ex, "exact_dot");
  const double t = porta_wtime() - t0;
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

/** The exact dot against the default one on the det-dot row's data (products exact, sums that
 *  round); its bits must be the Serial back end's exact dot on a host copy. */
void bench_exact(bench *B, porta_view_f64 *a, porta_view_f64 *b) {
  bench_row *rw = &B->rows[B_EXACT];
  const int64_t n = B->n;
  exact_ctx c;
  memset(&c, 0, sizeof c);
  c.B = B;
  c.same = 1;
  c.s = dot_data(B, a, b);
  measure(B, rw, exact_side, &c);
  rw->bytes = 2.0 * sizeof(double) * (double)n;
  rw->ref_label = "ref = the same Porta dot, summed in doubles (default)";

  long double ref = 0, mag = 0;
  const double v_serial = serial_dot(B, a, b, 1, &ref, &mag);
  B->exact_bits[0] = c.first;
  B->exact_bits[1] = v_serial;
  int ok = !B->porta_rc && c.have_first && c.same &&
           memcmp(&c.first, &v_serial, sizeof(double)) == 0 && porta_xsum_f64_status(&c.v) == 0;
  if (!(fabs(c.first - (double)ref) <= 1e-15 * (double)mag)) {
    fprintf(stderr, "porta-bench-gpu: exact dot %.17g, long double reference %.17Lg\n", c.first,
            ref);
    ok = 0;
  }
  rw->check_ok = ok;
  bench_crit_ratio(rw, 0.95, "default");
}

/* ---- exclusive scan ----------------------------------------------------- */

typedef struct scan_ctx {
  bench *B;
  scan_args s;
  int64_t total;
} scan_ctx;

/** The Porta side is the scan, the reference a Porta copy of the same arrays. */
static double scan_side(void *vctx, int porta, int rep) {
  (void)rep;
  scan_ctx *c = (scan_ctx *)vctx;
  bench *B = c->B;
  const porta_range_policy rg = porta_range(0, B->n);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (porta)
      rc |= PORTA_PARALLEL_SCAN_LABELED("scan", bk_scan, B->ex, rg, &c->s, &c->total);
    else
      rc |= PORTA_PARALLEL_FOR_LABELED("copy_i64", bk_copy_i64, B->ex, rg, &c->s);
  }
  rc |= porta_exec_fence(B->ex, "scan");
  const double t = porta_wtime() - t0;
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

void bench_scan(bench *B) {
  bench_row *rw = &B->rows[B_SCAN];
  const int64_t n = B->n;
  const porta_view_options o = dev_options(PORTA_LAYOUT_DEFAULT);
  scan_ctx c;
  memset(&c, 0, sizeof c);
  c.B = B;
  note_rc(B, porta_view_i64_create(&c.s.in, "scan_in", 1, &n, &o));
  note_rc(B, porta_view_i64_create(&c.s.out, "scan_out", 1, &n, &o));
  if (B->porta_rc) return;
  scan_init_k<<<check_grid(B), HAND_BLOCK>>>(c.s.in.data, n);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  measure(B, rw, scan_side, &c);
  /* check the Porta scan (the copy is only the bandwidth reference) */
  CU(B, cudaMemset(c.s.out.data, 0xff, (size_t)n * sizeof(int64_t)));
  c.total = -1;
  scan_side(&c, 1, -1);
  bad_reset(B);
  scan_check_k<<<check_grid(B), HAND_BLOCK>>>(c.s.in.data, c.s.out.data, n, c.total, B->bad);
  const unsigned long long bad = bad_read(B);
  /* the total: sum of bench_scan_in, (i*37)%11 - 3, over a whole number of periods of 11,
   * plus the rest */
  int64_t total = 0;
  for (int64_t i = 0; i < n % 11; ++i) total += bench_scan_in(n / 11 * 11 + i);
  total += n / 11 * (55 - 33);
  if (bad || c.total != total)
    fprintf(stderr, "porta-bench-gpu: scan: %llu wrong elements, total %lld expected %lld\n", bad,
            (long long)c.total, (long long)total);
  rw->check_ok = !bad && c.total == total && !B->porta_rc && !B->cuda_rc;
  rw->bytes = 2.0 * sizeof(int64_t) * (double)n;
  rw->ref_label = "ref = Porta copy of the same int64 arrays (same bytes): h/p = bandwidth ratio";
  bench_crit_ratio(rw, 0.60, "copy");
  porta_view_i64_release(&c.s.in);
  porta_view_i64_release(&c.s.out);
}

#endif /* __CUDACC__ */
