/** @file bench_gpu_stream.c
 *  porta-bench-gpu: BabelStream's copy, triad and dot, the cost of an empty launch and the
 *  latency of a small reduction, each against hand-written CUDA (bench_gpu.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_gpu.h"

#if defined(__CUDACC__)

static const double start_a = 0.1, start_b = 0.2, start_scalar = 0.4;

/* ---- hand-written CUDA: BabelStream kernels, one element per thread ---- */

static __global__ void hand_copy_k(const double *a, double *c, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i];
}
static __global__ void hand_triad_k(const double *b, const double *c, double *d, double scalar,
                                    int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = b[i] + scalar * c[i];
}

static __device__ __forceinline__ double warp_sum(double v) {
  for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
  return v;
}
/** Sum over the block (any multiple of 32 threads up to 1024); the result on thread 0. */
static __device__ __forceinline__ double block_sum(double v) {
  __shared__ double w[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) w[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? w[lane] : 0.0;
    v = warp_sum(v);
  }
  return v;
}
/** Dot, pass 1: a persistent grid, grid-stride, one partial per block. */
static __global__ void hand_dot_part_k(const double *a, const double *b, int64_t n, double *part) {
  double acc = 0.0;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    acc += a[i] * b[i];
  acc = block_sum(acc);
  if (threadIdx.x == 0) part[blockIdx.x] = acc;
}
/** Dot, pass 2: one block sums the partials into (mapped, pinned) host memory. */
static __global__ void hand_dot_final_k(const double *part, int np, double *out) {
  double acc = 0.0;
  for (int j = threadIdx.x; j < np; j += blockDim.x) acc += part[j];
  acc = block_sum(acc);
  if (threadIdx.x == 0) *out = acc;
}
/** A small dot in one block, straight into host memory. */
static __global__ void hand_dot_small_k(const double *a, const double *b, int64_t n, double *out) {
  double acc = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) acc += a[i] * b[i];
  acc = block_sum(acc);
  if (threadIdx.x == 0) *out = acc;
}

static __global__ void hand_empty_k(void) {}

/* ---- initialisation and checker (never timed) ---- */

static __global__ void fill_f64_k(double *p, int64_t n, double v) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) p[i] = v;
}
/** Count the elements of p that are not within tol of gold (NaN counts). */
static __global__ void count_bad_f64_k(const double *p, int64_t n, double gold, double tol,
                                       unsigned long long *bad) {
  unsigned long long mine = 0;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    mine += !(fabs(p[i] - gold) <= tol);
  if (mine) atomicAdd(bad, mine);
}

/** Criterion: reference time / Porta time >= need_ratio and Porta's bandwidth >= need_tbs. */
static void crit_bw(bench_row *r, double need_ratio, double need_tbs) {
  const double tbs = r->bytes / r->p_med * 1e-12;
  r->has_crit = 1;
  r->crit_ok = r->ratio >= need_ratio && tbs >= need_tbs;
  snprintf(r->accept, sizeof r->accept, ">= %.2f hand, >= %.1f TB/s: %.3f, %.2f %s", need_ratio,
           need_tbs, r->ratio, tbs, r->crit_ok ? "PASS" : "MISS");
}

/* ---- stream: copy, triad, dot ------------------------------------------- */

typedef struct stream_ctx {
  bench *B;
  stream_args s;
  int kernel; /**< B_COPY, B_TRIAD or B_DOT */
  double dot_p, dot_h;
} stream_ctx;

static double hand_dot(bench *B, const double *a, const double *b, int64_t n) {
  const unsigned g = check_grid(B);
  hand_dot_part_k<<<g, HAND_BLOCK>>>(a, b, n, B->part);
  hand_dot_final_k<<<1, 1024>>>(B->part, (int)g, B->pinned_dev);
  CU_LAUNCHED(B);
  CU(B, cudaStreamSynchronize(0));
  return B->pinned[0];
}

static double stream_side(void *vctx, int porta, int rep) {
  (void)rep;
  stream_ctx *c = (stream_ctx *)vctx;
  bench *B = c->B;
  const int64_t n = B->n;
  const porta_range_policy rg = porta_range(0, n);
  const unsigned g = blocks_for(n, HAND_BLOCK);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    switch (c->kernel) {
    case B_COPY:
      if (porta)
        rc |= PORTA_PARALLEL_FOR_LABELED("copy", bk_copy, B->ex, rg, &c->s);
      else
        hand_copy_k<<<g, HAND_BLOCK>>>(c->s.a.data, c->s.c.data, n);
      break;
    case B_TRIAD:
      if (porta)
        rc |= PORTA_PARALLEL_FOR_LABELED("triad", bk_triad, B->ex, rg, &c->s);
      else
        hand_triad_k<<<g, HAND_BLOCK>>>(c->s.b.data, c->s.c.data, c->s.d.data, c->s.scalar, n);
      break;
    default:
      if (porta)
        rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, B->ex, rg, &c->s, &c->dot_p);
      else
        c->dot_h = hand_dot(B, c->s.a.data, c->s.b.data, n);
      break;
    }
  }
  if (porta)
    rc |= porta_exec_fence(B->ex, "stream");
  else
    CU(B, cudaStreamSynchronize(0));
  const double t = porta_wtime() - t0;
  CU_LAUNCHED(B);
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

/** Poison the output, run side once, count wrong elements. */
static unsigned long long stream_verify(bench *B, stream_ctx *c, int side) {
  const int porta = side == 0;
  const int64_t n = B->n;
  if (c->kernel == B_DOT) {
    c->dot_p = c->dot_h = NAN;
    stream_side(c, porta, -1);
    const double gold = start_a * start_b * (double)n, v = porta ? c->dot_p : c->dot_h;
    if (!(fabs(v - gold) <= 1e-8 * fabs(gold))) {
      fprintf(stderr, "porta-bench-gpu: dot (%s) %.17g, expected %.17g\n", porta ? "porta" : "hand",
              v, gold);
      return 1;
    }
    return 0;
  }
  double *out = c->kernel == B_COPY ? c->s.c.data : c->s.d.data;
  const double gold = c->kernel == B_COPY ? start_a : start_b + start_scalar * start_a;
  CU(B, cudaMemset(out, 0xff, (size_t)n * sizeof(double)));
  stream_side(c, porta, -1);
  bad_reset(B);
  count_bad_f64_k<<<check_grid(B), HAND_BLOCK>>>(out, n, gold, 1e-15, B->bad);
  const unsigned long long bad = bad_read(B);
  if (bad)
    fprintf(stderr, "porta-bench-gpu: %s (%s): %llu of %lld elements wrong\n", row_names[c->kernel],
            porta ? "porta" : "hand", bad, (long long)n);
  return bad;
}

void bench_stream(bench *B) {
  const int64_t n = B->n;
  porta_view_f64 a, b, c, d;
  note_rc(B, dev_f64(&a, "a", n));
  note_rc(B, dev_f64(&b, "b", n));
  note_rc(B, dev_f64(&c, "c", n));
  note_rc(B, dev_f64(&d, "d", n));
  if (B->porta_rc) return;
  fill_f64_k<<<check_grid(B), HAND_BLOCK>>>(a.data, n, start_a);
  fill_f64_k<<<check_grid(B), HAND_BLOCK>>>(b.data, n, start_b);
  fill_f64_k<<<check_grid(B), HAND_BLOCK>>>(c.data, n, start_a);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  stream_ctx sc;
  memset(&sc, 0, sizeof sc);
  sc.B = B;
  sc.s.a = a;
  sc.s.b = b;
  sc.s.c = c;
  sc.s.d = d;
  sc.s.scalar = start_scalar;
  static const double arrays[3] = {2, 3, 2};
  for (int k = B_COPY; k <= B_DOT; ++k) {
    if (!B->only[k] || B->porta_rc || B->cuda_rc) continue;
    bench_row *rw = &B->rows[k];
    sc.kernel = k;
    measure(B, rw, stream_side, &sc);
    const unsigned long long bad = stream_verify(B, &sc, 0) + stream_verify(B, &sc, 1);
    rw->check_ok = bad == 0 && !B->porta_rc && !B->cuda_rc;
    rw->bytes = arrays[k - B_COPY] * sizeof(double) * (double)n;
    crit_bw(rw, 0.97, 2.9);
  }
  if (B->only[B_DET] && !B->porta_rc && !B->cuda_rc) bench_det(B, &a, &b);
  if (B->only[B_EXACT] && !B->porta_rc && !B->cuda_rc) bench_exact(B, &a, &b);
  porta_view_f64_release(&a);
  porta_view_f64_release(&b);
  porta_view_f64_release(&c);
  porta_view_f64_release(&d);
}

/* ---- launch cost and small-reduction latency ---------------------------- */

typedef struct launch_ctx {
  bench *B;
  empty_args e;
} launch_ctx;

static double launch_side(void *vctx, int porta, int rep) {
  (void)rep;
  launch_ctx *c = (launch_ctx *)vctx;
  bench *B = c->B;
  int rc = PORTA_SUCCESS;
  const porta_range_policy one = porta_range(0, 1);
  const double t0 = porta_wtime();
  if (porta) {
    for (int l = 0; l < LAUNCHES; ++l)
      rc |= PORTA_PARALLEL_FOR_LABELED("empty", bk_empty, B->ex, one, &c->e);
    rc |= porta_exec_fence(B->ex, "empty");
  } else {
    for (int l = 0; l < LAUNCHES; ++l) hand_empty_k<<<1, 1>>>();
    CU(B, cudaStreamSynchronize(0));
  }
  const double t = porta_wtime() - t0;
  CU_LAUNCHED(B);
  note_rc(B, rc);
  return t / LAUNCHES;
}

void bench_launch(bench *B) {
  bench_row *rw = &B->rows[B_LAUNCH];
  launch_ctx c;
  c.B = B;
  c.e.unused = 0;
  measure(B, rw, launch_side, &c);
  rw->us = 1;
  rw->check_ok = !B->porta_rc && !B->cuda_rc;
  rw->ref_label = "ref = raw hand_empty_k<<<1,1>>> launches; both: 10000 back-to-back, one sync";
  const double d = bench_paired_median(B->tp, B->th, B->reps, 0) * 1e6;
  rw->has_crit = 1;
  rw->crit_ok = d <= 0.5;
  snprintf(rw->accept, sizeof rw->accept, "<= raw + 0.50 us: %+.3f us %s", d,
           rw->crit_ok ? "PASS" : "MISS");
}

typedef struct latency_ctx {
  bench *B;
  stream_args s;
  empty_args e;
  double v;
} latency_ctx;

static double latency_side(void *vctx, int porta, int rep) {
  (void)rep;
  latency_ctx *c = (latency_ctx *)vctx;
  bench *B = c->B;
  int rc = PORTA_SUCCESS;
  const porta_range_policy small = porta_range(0, SMALL_N), one = porta_range(0, 1);
  const double t0 = porta_wtime();
  if (porta) {
    for (int l = 0; l < LATENCY_CALLS; ++l)
      rc |= PORTA_PARALLEL_REDUCE_LABELED("small_dot", bk_dot, B->ex, small, &c->s, &c->v);
  } else {
    for (int l = 0; l < LATENCY_CALLS; ++l) {
      rc |= PORTA_PARALLEL_FOR_LABELED("empty", bk_empty, B->ex, one, &c->e);
      rc |= porta_exec_fence(B->ex, "empty");
    }
  }
  const double t = porta_wtime() - t0;
  note_rc(B, rc);
  return t / LATENCY_CALLS;
}

void bench_latency(bench *B) {
  bench_row *rw = &B->rows[B_LATENCY];
  latency_ctx c;
  memset(&c, 0, sizeof c);
  c.B = B;
  note_rc(B, dev_f64(&c.s.a, "small_a", SMALL_N));
  note_rc(B, dev_f64(&c.s.b, "small_b", SMALL_N));
  if (B->porta_rc) return;
  c.s.c = c.s.a;
  c.s.d = c.s.a;
  fill_f64_k<<<4, HAND_BLOCK>>>(c.s.a.data, SMALL_N, start_a);
  fill_f64_k<<<4, HAND_BLOCK>>>(c.s.b.data, SMALL_N, start_b);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  measure(B, rw, latency_side, &c);
  rw->us = 1;
  B->launch_sync = rw->h_med;
  /* for the notes: a hand-written blocking reduction of the same size */
  double th[16];
  int nh = B->reps < 16 ? B->reps : 16;
  for (int k = 0; k < nh; ++k) {
    const double t0 = porta_wtime();
    for (int l = 0; l < LATENCY_CALLS; ++l) {
      hand_dot_small_k<<<1, HAND_BLOCK>>>(c.s.a.data, c.s.b.data, SMALL_N, B->pinned_dev + 1);
      CU(B, cudaStreamSynchronize(0));
    }
    th[k] = (porta_wtime() - t0) / LATENCY_CALLS;
  }
  CU_LAUNCHED(B);
  B->hand_small = bench_median(th, nh, NULL);
  const double gold = start_a * start_b * SMALL_N;
  c.v = NAN;
  latency_side(&c, 1, -1);
  int ok = !B->porta_rc && !B->cuda_rc && fabs(c.v - gold) <= 1e-12 * gold &&
           fabs(B->pinned[1] - gold) <= 1e-12 * gold;
  if (!ok)
    fprintf(stderr, "porta-bench-gpu: small dot: porta %.17g hand %.17g expected %.17g\n", c.v,
            B->pinned[1], gold);
  rw->check_ok = ok;
  snprintf(B->notes[B_LATENCY], sizeof B->notes[B_LATENCY],
           "ref = Porta empty parallel_for + fence per call (the launch cost of this "
           "criterion); hand-written %d-element reduce + sync: %.2f us",
           SMALL_N, B->hand_small * 1e6);
  rw->ref_label = B->notes[B_LATENCY];
  rw->has_crit = 1;
  rw->crit_ok = rw->p_med <= 2.0 * rw->h_med;
  snprintf(rw->accept, sizeof rw->accept, "<= 2x launch+sync: %.2fx %s", rw->p_med / rw->h_med,
           rw->crit_ok ? "PASS" : "MISS");
  porta_view_f64_release(&c.s.a);
  porta_view_f64_release(&c.s.b);
}

#endif /* __CUDACC__ */
