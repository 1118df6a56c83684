/** @file porta_bench_gpu.c
 *  Porta's CUDA back end against hand-written CUDA kernels, in one run.
 *
 *  Every row runs a Porta kernel (launched on porta_exec_backend(PORTA_BACKEND_CUDA))
 *  and a reference, normally a hand-written CUDA kernel over raw pointers. The Porta
 *  kernels are in bench_kernels.c (shared with porta-bench), the hand-written ones in
 *  this file; nvcc compiles both as CUDA (scripts/bench/CMakeLists.txt marks them with
 *  porta_kernel_sources), so both get the same compiler and flags. They work on the
 *  same device allocations (Porta views in CudaSpace, default layout: Left).
 *
 *  Timing: after one warm-up of each side, reps alternate which side runs first
 *  (ABBA). A sample is a fenced batch: K back-to-back calls, then one fence, timed
 *  with porta_wtime; the sample is the time per call. Rows report medians over the
 *  reps, and h/p = the median over reps of (reference time / Porta time) taken within
 *  one rep, so slow drifts of the machine cancel.
 *
 *  Checks: after the timed reps each side's outputs are poisoned (NaN / -1), the side
 *  runs once more, and a hand-written checker kernel compares every element with
 *  the expected value, so a side that skips elements fails. A failed check makes the
 *  exit status 1; a missed performance criterion only prints MISS.
 *
 *    porta-bench-gpu [--n=ELEMENTS] [--reps=K] [--only=LIST] [--stencil=SIDE]
 *                    [--spmv=SIDE] [--atoms=N] [--porta-*]
 *
 *  LIST: copy,triad,dot,det,launch,latency,scan,stencil,spmv,layout.
 *
 *  Without nvcc (a plain C11 compile) the file still compiles, and main says that
 *  the benchmark needs the CUDA back end.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

#include "bench_kernels.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

/* The Porta kernels (bk_*), their argument structs and NEIGHBOURS: bench_kernels.h, shared
 * with porta-bench. Every back end is generated; the Serial one serves the deterministic
 * dot's reference. */

#if defined(__CUDACC__)

/* ======================================================================== */
/* Hand-written CUDA                                                        */
/* ======================================================================== */

#define HAND_BLOCK 256
#define LAUNCHES 10000
#define LATENCY_CALLS 2000
#define SMALL_N 1000

/** Blocks for n items of `per_block` each. */
static unsigned blocks_for(int64_t n, int64_t per_block) {
  return (unsigned)((n + per_block - 1) / per_block);
}

/* ---- BabelStream kernels: one element per thread ---- */

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

/* ---- 2D 5-point stencil, Left layout: element (i, j) at i + j * ld ---- */

static __global__ void hand_stencil_k(const double *in, double *out, int64_t m, int64_t ld) {
  const int64_t i = 1 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t j = 1 + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m - 1 && j < m - 1) {
    const int64_t o = i + j * ld;
    out[o] = 0.2 * (in[o] + in[o - 1] + in[o + 1] + in[o - ld] + in[o + ld]);
  }
}

/* ---- vector CSR SpMV: VL lanes of a warp per row ---- */

template <int VL>
static __global__ void hand_spmv_k(const int64_t *rowptr, const int32_t *col, const double *val,
                                   const double *x, double *y, int64_t nrows) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t r = t / VL;
  const int lane = (int)(t % VL);
  double sum = 0.0;
  if (r < nrows) {
    const int64_t kb = rowptr[r], ke = rowptr[r + 1];
    for (int64_t k = kb + lane; k < ke; k += VL) sum += val[k] * x[col[k]];
  }
  for (int s = VL / 2; s > 0; s >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, s, VL);
  if (r < nrows && lane == 0) y[r] = sum;
}

/* ---- initialisation and checkers (never timed) ---- */

static __global__ void fill_f64_k(double *p, int64_t n, double v) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) p[i] = v;
}
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
    in[i] = (i * 37) % 11 - 3;
}
static __global__ void stencil_init_k(double *in, int64_t m, int64_t ld) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < m * m; q += step) {
    const int64_t i = q % m, j = q / m;
    in[i + j * ld] = (double)((i * 31 + j * 17) % 101) * 0.01;
  }
}
static __global__ void neigh_x_init_k(double *x, int64_t n) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    x[i] = 1.0 + (double)((i * 7919) % 1013) / 1024.0;
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
/** Count the elements where p and ref differ by more than tol. */
static __global__ void count_diff_f64_k(const double *p, const double *ref, int64_t n, double tol,
                                        unsigned long long *bad) {
  unsigned long long mine = 0;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    mine += !(fabs(p[i] - ref[i]) <= tol);
  if (mine) atomicAdd(bad, mine);
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
/** Stencil check of the interior against the formula, in the same order of additions. */
static __global__ void stencil_check_k(const double *in, const double *out, int64_t m, int64_t ld,
                                       unsigned long long *bad) {
  unsigned long long mine = 0;
  const int64_t step = (int64_t)gridDim.x * blockDim.x, w = m - 2;
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < w * w; q += step) {
    const int64_t o = 1 + q % w + (1 + q / w) * ld;
    const double ref = 0.2 * (in[o] + in[o - 1] + in[o + 1] + in[o - ld] + in[o + ld]);
    mine += !(fabs(out[o] - ref) <= 1e-14 * fabs(ref));
  }
  if (mine) atomicAdd(bad, mine);
}
/** SpMV reference: one thread per row, nonzeros in order. */
static __global__ void spmv_ref_k(const int64_t *rowptr, const int32_t *col, const double *val,
                                  const double *x, double *y, int64_t nrows) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < nrows; r += step) {
    double sum = 0.0;
    for (int64_t k = rowptr[r]; k < rowptr[r + 1]; ++k) sum += val[k] * x[col[k]];
    y[r] = sum;
  }
}
/** Neighbour-sum reference from the Left neighbour table (same order of additions). */
static __global__ void neigh_ref_k(const int32_t *nb, int64_t ld, const double *x, double *out,
                                   int64_t n) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    double sum = 0.0;
    for (int64_t k = 0; k < NEIGHBOURS; ++k) sum += x[nb[i + k * ld]];
    out[i] = sum;
  }
}

/* ======================================================================== */
/* Harness                                                                  */
/* ======================================================================== */

enum {
  B_COPY,
  B_TRIAD,
  B_DOT,
  B_DET,
  B_LAUNCH,
  B_LATENCY,
  B_SCAN,
  B_STENCIL,
  B_SPMV4,
  B_SPMV8,
  B_LAYOUT,
  B_COUNT
};
static const char *const row_names[B_COUNT] = {"copy",    "triad",   "dot",   "det-dot",
                                               "launch",  "red-lat", "scan",  "stencil",
                                               "spmv-v4", "spmv-v8", "layout"};
/** --only names: spmv selects both SpMV rows. */
static const char *const only_names[] = {"copy",    "triad", "dot",     "det",  "launch",
                                         "latency", "scan",  "stencil", "spmv", "layout"};
static const int only_rows[][2] = {
    {B_COPY, -1},    {B_TRIAD, -1}, {B_DOT, -1},     {B_DET, -1},        {B_LAUNCH, -1},
    {B_LATENCY, -1}, {B_SCAN, -1},  {B_STENCIL, -1}, {B_SPMV4, B_SPMV8}, {B_LAYOUT, -1}};
#define N_ONLY ((int)(sizeof only_names / sizeof only_names[0]))

/** One line of the table. Times in seconds per call. */
typedef struct row {
  int ran, check_ok;
  int us; /**< print times in microseconds */
  double p_med, h_med;
  double ratio; /**< median over reps of reference time / Porta time */
  double bytes; /**< per call; 0: no TB/s */
  int has_crit, crit_ok;
  char accept[96];
  const char *ref_label; /**< what the reference column holds */
} row;

typedef struct bench {
  int64_t n, stencil_side, spmv_side, atoms;
  int reps;
  porta_exec ex;
  int sms;
  int only[B_COUNT];
  row rows[B_COUNT];
  double *tp, *th;         /**< per-rep times of the Porta side and the reference side */
  int porta_rc;            /**< OR of Porta return codes */
  int cuda_rc;             /**< a CUDA runtime call failed */
  unsigned long long *bad; /**< device counter of the checkers */
  double *pinned;          /**< mapped pinned results of the hand-written reductions */
  double *pinned_dev;      /**< the same memory as the device sees it */
  double *part;            /**< partials of the hand-written dot */
  double launch_sync;      /**< Porta empty launch + fence per call (the latency reference) */
  double hand_small;       /**< hand-written 1000-element reduce + sync per call */
  double det_bits[3];      /**< CUDA det, Serial det, CUDA default */
  int det0;                /**< the deterministic setting at start, restored after each use */
  int det_same_reps;       /**< every timed det rep gave the same bits */
  char notes[B_COUNT][200];
} bench;

static void note_rc(bench *B, int rc) {
  if (rc != PORTA_SUCCESS) {
    if (!B->porta_rc) fprintf(stderr, "porta-bench-gpu: %s\n", porta_last_error_message());
    B->porta_rc |= 1;
  }
}
static void cu_check(bench *B, cudaError_t e, const char *what, int line) {
  if (e != cudaSuccess) {
    if (!B->cuda_rc)
      fprintf(stderr, "porta-bench-gpu: line %d: %s: %s\n", line, what, cudaGetErrorString(e));
    B->cuda_rc = 1;
  }
}
#define CU(B, call) cu_check((B), (call), #call, __LINE__)
#define CU_LAUNCHED(B) cu_check((B), cudaGetLastError(), "kernel launch", __LINE__)

static int cmp_double(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}
static double median_of(const double *t, int k) {
  double *s = (double *)malloc((size_t)k * sizeof(double)), med;
  memcpy(s, t, (size_t)k * sizeof(double));
  qsort(s, (size_t)k, sizeof(double), cmp_double);
  med = k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
  free(s);
  return med;
}
/** Median over reps of x[r] / y[r] (ratio != 0) or x[r] - y[r]. */
static double paired_median(const double *x, const double *y, int k, int ratio) {
  double *q = (double *)malloc((size_t)k * sizeof(double)), med;
  for (int i = 0; i < k; ++i) q[i] = ratio ? x[i] / y[i] : x[i] - y[i];
  med = median_of(q, k);
  free(q);
  return med;
}

/** A side of a comparison: run one fenced batch, return seconds per call. side 0: Porta. */
typedef double (*side_fn)(bench *B, void *ctx, int side);

/** Warm up both sides, then reps in ABBA order; fill B->tp, B->th and the row's stats. */
static void measure(bench *B, row *r, side_fn f, void *ctx) {
  f(B, ctx, 0);
  f(B, ctx, 1);
  for (int k = 0; k < B->reps; ++k) {
    if (k % 2 == 0) {
      B->tp[k] = f(B, ctx, 0);
      B->th[k] = f(B, ctx, 1);
    } else {
      B->th[k] = f(B, ctx, 1);
      B->tp[k] = f(B, ctx, 0);
    }
  }
  r->p_med = median_of(B->tp, B->reps);
  r->h_med = median_of(B->th, B->reps);
  r->ratio = paired_median(B->th, B->tp, B->reps, 1);
  r->ran = 1;
}

/** Reset the device counter, run a checker (the caller launches it), read the count. */
static void bad_reset(bench *B) { CU(B, cudaMemset(B->bad, 0, sizeof(unsigned long long))); }
static unsigned long long bad_read(bench *B) {
  unsigned long long h = 0;
  CU_LAUNCHED(B);
  CU(B, cudaMemcpy(&h, B->bad, sizeof h, cudaMemcpyDeviceToHost));
  return B->cuda_rc ? 1 : h;
}
static unsigned check_grid(bench *B) { return (unsigned)(B->sms * 8); }

static porta_view_options dev_options(porta_layout layout) {
  porta_view_options o;
  o.space = PORTA_CUDA_SPACE;
  o.layout = layout;
  o.flags = 0;
  o.stride = NULL;
  return o;
}
static porta_view_options host_options(void) {
  porta_view_options o;
  o.space = PORTA_HOST_SPACE;
  o.layout = PORTA_LAYOUT_DEFAULT;
  o.flags = PORTA_VIEW_UNINITIALIZED;
  o.stride = NULL;
  return o;
}
static int dev_f64(porta_view_f64 *v, const char *label, int64_t n) {
  const porta_view_options o = dev_options(PORTA_LAYOUT_DEFAULT);
  return porta_view_f64_create(v, label, 1, &n, &o);
}

static void crit_bw(row *r, double need_ratio, double need_tbs) {
  const double tbs = r->bytes / r->p_med * 1e-12;
  r->has_crit = 1;
  r->crit_ok = r->ratio >= need_ratio && tbs >= need_tbs;
  snprintf(r->accept, sizeof r->accept, ">= %.2f hand, >= %.1f TB/s: %.3f, %.2f %s", need_ratio,
           need_tbs, r->ratio, tbs, r->crit_ok ? "PASS" : "MISS");
}
static void crit_ratio(row *r, double need, const char *what) {
  r->has_crit = 1;
  r->crit_ok = r->ratio >= need;
  snprintf(r->accept, sizeof r->accept, ">= %.2f %s: %.3f %s", need, what, r->ratio,
           r->crit_ok ? "PASS" : "MISS");
}

/* ---- stream: copy, triad, dot ------------------------------------------- */

#define STREAM_BATCH 4
static const double start_a = 0.1, start_b = 0.2, start_scalar = 0.4;

typedef struct stream_ctx {
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

static double stream_side(bench *B, void *vctx, int side) {
  stream_ctx *c = (stream_ctx *)vctx;
  const int64_t n = B->n;
  const porta_range_policy rg = porta_range(0, n);
  const unsigned g = blocks_for(n, HAND_BLOCK);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    switch (c->kernel) {
    case B_COPY:
      if (side == 0)
        rc |= PORTA_PARALLEL_FOR_LABELED("copy", bk_copy, B->ex, rg, &c->s);
      else
        hand_copy_k<<<g, HAND_BLOCK>>>(c->s.a.data, c->s.c.data, n);
      break;
    case B_TRIAD:
      if (side == 0)
        rc |= PORTA_PARALLEL_FOR_LABELED("triad", bk_triad, B->ex, rg, &c->s);
      else
        hand_triad_k<<<g, HAND_BLOCK>>>(c->s.b.data, c->s.c.data, c->s.d.data, c->s.scalar, n);
      break;
    default:
      if (side == 0)
        rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, B->ex, rg, &c->s, &c->dot_p);
      else
        c->dot_h = hand_dot(B, c->s.a.data, c->s.b.data, n);
      break;
    }
  }
  if (side == 0)
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
  const int64_t n = B->n;
  if (c->kernel == B_DOT) {
    c->dot_p = c->dot_h = NAN;
    stream_side(B, c, side);
    const double gold = start_a * start_b * (double)n, v = side == 0 ? c->dot_p : c->dot_h;
    if (!(fabs(v - gold) <= 1e-8 * fabs(gold))) {
      fprintf(stderr, "porta-bench-gpu: dot (%s) %.17g, expected %.17g\n",
              side == 0 ? "porta" : "hand", v, gold);
      return 1;
    }
    return 0;
  }
  double *out = c->kernel == B_COPY ? c->s.c.data : c->s.d.data;
  const double gold = c->kernel == B_COPY ? start_a : start_b + start_scalar * start_a;
  CU(B, cudaMemset(out, 0xff, (size_t)n * sizeof(double)));
  stream_side(B, c, side);
  bad_reset(B);
  count_bad_f64_k<<<check_grid(B), HAND_BLOCK>>>(out, n, gold, 1e-15, B->bad);
  const unsigned long long bad = bad_read(B);
  if (bad)
    fprintf(stderr, "porta-bench-gpu: %s (%s): %llu of %lld elements wrong\n", row_names[c->kernel],
            side == 0 ? "porta" : "hand", bad, (long long)n);
  return bad;
}

/* ---- deterministic dot -------------------------------------------------- */

typedef struct det_ctx {
  stream_args s;
  double v_det, v_def, first_det;
  int have_first, same;
} det_ctx;

static double det_side(bench *B, void *vctx, int side) {
  det_ctx *c = (det_ctx *)vctx;
  const porta_range_policy rg = porta_range(0, B->n);
  int rc = PORTA_SUCCESS;
  porta_set_deterministic(side == 0);
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    rc |= PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, B->ex, rg, &c->s,
                                        side == 0 ? &c->v_det : &c->v_def);
    if (side == 0) {
      if (!c->have_first) {
        c->first_det = c->v_det;
        c->have_first = 1;
      } else if (memcmp(&c->first_det, &c->v_det, sizeof(double)) != 0) {
        c->same = 0;
      }
    }
  }
  rc |= porta_exec_fence(B->ex, "dot");
  const double t = porta_wtime() - t0;
  porta_set_deterministic(B->det0);
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

static void bench_det(bench *B, porta_view_f64 *a, porta_view_f64 *b) {
  row *rw = &B->rows[B_DET];
  const int64_t n = B->n;
  const int det0 = B->det0;
  det_ctx c;
  memset(&c, 0, sizeof c);
  c.same = 1;
  c.s.a = *a;
  c.s.b = *b;
  c.s.c = *a;
  c.s.d = *a;
  c.s.scalar = 0.0;
  det_init_k<<<check_grid(B), HAND_BLOCK>>>(a->data, b->data, n);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  measure(B, rw, det_side, &c);
  rw->bytes = 2.0 * sizeof(double) * (double)n;
  rw->ref_label = "ref = the same Porta dot, deterministic off";

  /* The Serial back end's deterministic result on a host copy of the same data. */
  porta_view_f64 hx, hy;
  const porta_view_options ho = host_options();
  note_rc(B, porta_view_f64_create(&hx, "det_hx", 1, &n, &ho));
  note_rc(B, porta_view_f64_create(&hy, "det_hy", 1, &n, &ho));
  double v_serial = NAN;
  long double ref = 0, mag = 0;
  if (!B->porta_rc) {
    note_rc(B, porta_deep_copy(hx, *a));
    note_rc(B, porta_deep_copy(hy, *b));
    stream_args hs;
    hs.a = hx;
    hs.b = hy;
    hs.c = hx;
    hs.d = hx;
    hs.scalar = 0.0;
    porta_set_deterministic(1);
    note_rc(B,
            PORTA_PARALLEL_REDUCE_LABELED("dot", bk_dot, porta_exec_backend(PORTA_BACKEND_SERIAL),
                                          porta_range(0, n), &hs, &v_serial));
    porta_set_deterministic(det0);
    for (int64_t i = 0; i < n; ++i) {
      const long double p = (long double)hx.data[i] * hy.data[i];
      ref += p;
      mag += fabsl(p);
    }
  }
  porta_view_f64_release(&hx);
  porta_view_f64_release(&hy);
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
  crit_ratio(rw, 0.90, "default");
}

static void bench_stream(bench *B) {
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
  sc.s.a = a;
  sc.s.b = b;
  sc.s.c = c;
  sc.s.d = d;
  sc.s.scalar = start_scalar;
  static const double arrays[3] = {2, 3, 2};
  for (int k = B_COPY; k <= B_DOT; ++k) {
    if (!B->only[k] || B->porta_rc || B->cuda_rc) continue;
    row *rw = &B->rows[k];
    sc.kernel = k;
    measure(B, rw, stream_side, &sc);
    const unsigned long long bad = stream_verify(B, &sc, 0) + stream_verify(B, &sc, 1);
    rw->check_ok = bad == 0 && !B->porta_rc && !B->cuda_rc;
    rw->bytes = arrays[k - B_COPY] * sizeof(double) * (double)n;
    crit_bw(rw, 0.97, 2.9);
  }
  if (B->only[B_DET] && !B->porta_rc && !B->cuda_rc) bench_det(B, &a, &b);
  porta_view_f64_release(&a);
  porta_view_f64_release(&b);
  porta_view_f64_release(&c);
  porta_view_f64_release(&d);
}

/* ---- launch cost and small-reduction latency ---------------------------- */

static double launch_side(bench *B, void *vctx, int side) {
  empty_args *e = (empty_args *)vctx;
  int rc = PORTA_SUCCESS;
  const porta_range_policy one = porta_range(0, 1);
  const double t0 = porta_wtime();
  if (side == 0) {
    for (int l = 0; l < LAUNCHES; ++l)
      rc |= PORTA_PARALLEL_FOR_LABELED("empty", bk_empty, B->ex, one, e);
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

static void bench_launch(bench *B) {
  row *rw = &B->rows[B_LAUNCH];
  empty_args e;
  e.unused = 0;
  measure(B, rw, launch_side, &e);
  rw->us = 1;
  rw->check_ok = !B->porta_rc && !B->cuda_rc;
  rw->ref_label = "ref = raw hand_empty_k<<<1,1>>> launches; both: 10000 back-to-back, one sync";
  const double d = paired_median(B->tp, B->th, B->reps, 0) * 1e6;
  rw->has_crit = 1;
  rw->crit_ok = d <= 0.5;
  snprintf(rw->accept, sizeof rw->accept, "<= raw + 0.50 us: %+.3f us %s", d,
           rw->crit_ok ? "PASS" : "MISS");
}

typedef struct latency_ctx {
  stream_args s;
  empty_args e;
  double v;
} latency_ctx;

static double latency_side(bench *B, void *vctx, int side) {
  latency_ctx *c = (latency_ctx *)vctx;
  int rc = PORTA_SUCCESS;
  const porta_range_policy small = porta_range(0, SMALL_N), one = porta_range(0, 1);
  const double t0 = porta_wtime();
  if (side == 0) {
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

static void bench_latency(bench *B) {
  row *rw = &B->rows[B_LATENCY];
  latency_ctx c;
  memset(&c, 0, sizeof c);
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
  B->hand_small = median_of(th, nh);
  const double gold = start_a * start_b * SMALL_N;
  c.v = NAN;
  latency_side(B, &c, 0);
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

/* ---- exclusive scan ----------------------------------------------------- */

typedef struct scan_ctx {
  scan_args s;
  int64_t total;
} scan_ctx;

static double scan_side(bench *B, void *vctx, int side) {
  scan_ctx *c = (scan_ctx *)vctx;
  const porta_range_policy rg = porta_range(0, B->n);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (side == 0)
      rc |= PORTA_PARALLEL_SCAN_LABELED("scan", bk_scan, B->ex, rg, &c->s, &c->total);
    else
      rc |= PORTA_PARALLEL_FOR_LABELED("copy_i64", bk_copy_i64, B->ex, rg, &c->s);
  }
  rc |= porta_exec_fence(B->ex, "scan");
  const double t = porta_wtime() - t0;
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

static void bench_scan(bench *B) {
  row *rw = &B->rows[B_SCAN];
  const int64_t n = B->n;
  const porta_view_options o = dev_options(PORTA_LAYOUT_DEFAULT);
  scan_ctx c;
  memset(&c, 0, sizeof c);
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
  scan_side(B, &c, 0);
  bad_reset(B);
  scan_check_k<<<check_grid(B), HAND_BLOCK>>>(c.s.in.data, c.s.out.data, n, c.total, B->bad);
  const unsigned long long bad = bad_read(B);
  /* the total: sum of (i*37)%11 - 3 over a whole number of periods of 11, plus the rest */
  int64_t total = 0;
  for (int64_t i = 0; i < n % 11; ++i) total += ((n / 11 * 11 + i) * 37) % 11 - 3;
  total += n / 11 * (55 - 33);
  if (bad || c.total != total)
    fprintf(stderr, "porta-bench-gpu: scan: %llu wrong elements, total %lld expected %lld\n", bad,
            (long long)c.total, (long long)total);
  rw->check_ok = !bad && c.total == total && !B->porta_rc && !B->cuda_rc;
  rw->bytes = 2.0 * sizeof(int64_t) * (double)n;
  rw->ref_label = "ref = Porta copy of the same int64 arrays (same bytes): h/p = bandwidth ratio";
  crit_ratio(rw, 0.60, "copy");
  porta_view_i64_release(&c.s.in);
  porta_view_i64_release(&c.s.out);
}

/* ---- 2D 5-point stencil ------------------------------------------------- */

typedef struct stencil_ctx {
  stencil_args s;
  int64_t m, ld;
} stencil_ctx;

static double stencil_side(bench *B, void *vctx, int side) {
  stencil_ctx *c = (stencil_ctx *)vctx;
  const int64_t m = c->m;
  const porta_mdrange_policy box = porta_mdrange2(1, m - 1, 1, m - 1);
  const dim3 blk(32, 8, 1);
  const dim3 grid(blocks_for(m - 2, 32), blocks_for(m - 2, 8), 1);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (side == 0)
      rc |= PORTA_PARALLEL_FOR_LABELED("stencil", bk_stencil, B->ex, box, &c->s);
    else
      hand_stencil_k<<<grid, blk>>>(c->s.in.data, c->s.out.data, m, c->ld);
  }
  if (side == 0)
    rc |= porta_exec_fence(B->ex, "stencil");
  else
    CU(B, cudaStreamSynchronize(0));
  const double t = porta_wtime() - t0;
  CU_LAUNCHED(B);
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

static void bench_stencil(bench *B) {
  row *rw = &B->rows[B_STENCIL];
  const int64_t m = B->stencil_side + 2, ext[2] = {m, m};
  const porta_view_options o = dev_options(PORTA_LAYOUT_DEFAULT);
  stencil_ctx c;
  memset(&c, 0, sizeof c);
  note_rc(B, porta_view_f64_create(&c.s.in, "st_in", 2, ext, &o));
  note_rc(B, porta_view_f64_create(&c.s.out, "st_out", 2, ext, &o));
  if (B->porta_rc) return;
  c.m = m;
  c.ld = porta_stride(c.s.in, 1);
  if (c.s.in.m.layout != PORTA_LAYOUT_LEFT || porta_stride(c.s.in, 0) != 1 ||
      porta_stride(c.s.out, 1) != c.ld) {
    fprintf(stderr, "porta-bench-gpu: the device stencil views are not LayoutLeft\n");
    rw->ran = 1;
    return;
  }
  stencil_init_k<<<check_grid(B), HAND_BLOCK>>>(c.s.in.data, m, c.ld);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  measure(B, rw, stencil_side, &c);
  unsigned long long bad = 0;
  for (int side = 0; side < 2; ++side) {
    CU(B, cudaMemset(c.s.out.data, 0xff, (size_t)(m * c.ld) * sizeof(double)));
    stencil_side(B, &c, side);
    bad_reset(B);
    stencil_check_k<<<check_grid(B), HAND_BLOCK>>>(c.s.in.data, c.s.out.data, m, c.ld, B->bad);
    const unsigned long long b = bad_read(B);
    if (b)
      fprintf(stderr, "porta-bench-gpu: stencil (%s): %llu wrong points\n",
              side == 0 ? "porta" : "hand", b);
    bad += b;
  }
  rw->check_ok = !bad && !B->porta_rc && !B->cuda_rc;
  rw->bytes = 2.0 * sizeof(double) * (double)(m - 2) * (double)(m - 2);
  rw->ref_label = "ref = hand 2D kernel, 32x8 blocks, one point per thread";
  crit_ratio(rw, 0.95, "hand");
  porta_view_f64_release(&c.s.in);
  porta_view_f64_release(&c.s.out);
}

/* ---- team-based CSR SpMV ------------------------------------------------ */

typedef struct spmv_ctx {
  spmv_args s;
  int vl;
  porta_team_policy policy;
} spmv_ctx;

static double spmv_side(bench *B, void *vctx, int side) {
  spmv_ctx *c = (spmv_ctx *)vctx;
  const int64_t nrows = c->s.nrows;
  const unsigned g = blocks_for(nrows * c->vl, HAND_BLOCK);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (side == 0) {
      rc |= PORTA_PARALLEL_FOR_LABELED("spmv", bk_spmv, B->ex, c->policy, &c->s);
    } else if (c->vl == 4) {
      hand_spmv_k<4><<<g, HAND_BLOCK>>>(c->s.rowptr.data, c->s.col.data, c->s.val.data, c->s.x.data,
                                        c->s.y.data, nrows);
    } else {
      hand_spmv_k<8><<<g, HAND_BLOCK>>>(c->s.rowptr.data, c->s.col.data, c->s.val.data, c->s.x.data,
                                        c->s.y.data, nrows);
    }
  }
  if (side == 0)
    rc |= porta_exec_fence(B->ex, "spmv");
  else
    CU(B, cudaStreamSynchronize(0));
  const double t = porta_wtime() - t0;
  CU_LAUNCHED(B);
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

static void bench_spmv(bench *B) {
  const int64_t g = B->spmv_side, nrows = g * g, nnz = 5 * g * g - 4 * g;
  const porta_view_options o = dev_options(PORTA_LAYOUT_DEFAULT), ho = host_options();
  spmv_ctx c;
  memset(&c, 0, sizeof c);
  porta_view_i64 hrp;
  porta_view_i32 hcol;
  porta_view_f64 hval, hx, yref;
  const int64_t nrp = nrows + 1;
  note_rc(B, porta_view_i64_create(&c.s.rowptr, "rowptr", 1, &nrp, &o));
  note_rc(B, porta_view_i32_create(&c.s.col, "col", 1, &nnz, &o));
  note_rc(B, porta_view_f64_create(&c.s.val, "val", 1, &nnz, &o));
  note_rc(B, porta_view_f64_create(&c.s.x, "x", 1, &nrows, &o));
  note_rc(B, porta_view_f64_create(&c.s.y, "y", 1, &nrows, &o));
  note_rc(B, porta_view_f64_create(&yref, "yref", 1, &nrows, &o));
  note_rc(B, porta_view_i64_create(&hrp, "h_rowptr", 1, &nrp, &ho));
  note_rc(B, porta_view_i32_create(&hcol, "h_col", 1, &nnz, &ho));
  note_rc(B, porta_view_f64_create(&hval, "h_val", 1, &nnz, &ho));
  note_rc(B, porta_view_f64_create(&hx, "h_x", 1, &nrows, &ho));
  if (B->porta_rc) return;
  int64_t *rp = hrp.data, k = 0;
  int32_t *col = hcol.data;
  double *val = hval.data, *x = hx.data;
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
  note_rc(B, porta_deep_copy(c.s.rowptr, hrp));
  note_rc(B, porta_deep_copy(c.s.col, hcol));
  note_rc(B, porta_deep_copy(c.s.val, hval));
  note_rc(B, porta_deep_copy(c.s.x, hx));
  porta_view_i64_release(&hrp);
  porta_view_i32_release(&hcol);
  porta_view_f64_release(&hval);
  porta_view_f64_release(&hx);
  spmv_ref_k<<<check_grid(B), HAND_BLOCK>>>(c.s.rowptr.data, c.s.col.data, c.s.val.data, c.s.x.data,
                                            yref.data, nrows);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  c.s.nrows = nrows;
  for (int v = 0; v < 2 && !B->porta_rc && !B->cuda_rc; ++v) {
    const int rid = v == 0 ? B_SPMV4 : B_SPMV8;
    if (!B->only[rid]) continue;
    row *rw = &B->rows[rid];
    c.vl = v == 0 ? 4 : 8;
    const int ts = HAND_BLOCK / c.vl; /* 256 threads a team, as the hand kernel's blocks */
    c.s.rows_per_team = ts;
    c.policy = porta_team_policy_make((nrows + ts - 1) / ts, ts, c.vl);
    measure(B, rw, spmv_side, &c);
    unsigned long long bad = 0;
    for (int side = 0; side < 2; ++side) {
      CU(B, cudaMemset(c.s.y.data, 0xff, (size_t)nrows * sizeof(double)));
      spmv_side(B, &c, side);
      bad_reset(B);
      count_diff_f64_k<<<check_grid(B), HAND_BLOCK>>>(c.s.y.data, yref.data, nrows, 1e-12, B->bad);
      const unsigned long long b = bad_read(B);
      if (b)
        fprintf(stderr, "porta-bench-gpu: spmv vl %d (%s): %llu wrong rows\n", c.vl,
                side == 0 ? "porta" : "hand", b);
      bad += b;
    }
    rw->check_ok = !bad && !B->porta_rc && !B->cuda_rc;
    rw->bytes = (double)nnz * (sizeof(double) + sizeof(int32_t)) +
                (double)(nrows + 1) * sizeof(int64_t) + 2.0 * (double)nrows * sizeof(double);
    snprintf(B->notes[rid], sizeof B->notes[rid],
             "Porta: team of %d rows (team_size %d, vector_length %d); ref = hand vector CSR, "
             "%d lanes a row",
             ts, ts, c.vl, c.vl);
    rw->ref_label = B->notes[rid];
    crit_ratio(rw, 0.90, "hand");
  }
  porta_view_i64_release(&c.s.rowptr);
  porta_view_i32_release(&c.s.col);
  porta_view_f64_release(&c.s.val);
  porta_view_f64_release(&c.s.x);
  porta_view_f64_release(&c.s.y);
  porta_view_f64_release(&yref);
}

/* ---- layout: neighbour-list gather -------------------------------------- */

typedef struct layout_ctx {
  neigh_args left, right;
} layout_ctx;

static double layout_side(bench *B, void *vctx, int side) {
  layout_ctx *c = (layout_ctx *)vctx;
  const porta_range_policy rg = porta_range(0, c->left.natoms);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (side == 0)
      rc |= PORTA_PARALLEL_FOR_LABELED("neigh_left", bk_neigh, B->ex, rg, &c->left);
    else
      rc |= PORTA_PARALLEL_FOR_LABELED("neigh_right", bk_neigh_right, B->ex, rg, &c->right);
  }
  rc |= porta_exec_fence(B->ex, "neigh");
  const double t = porta_wtime() - t0;
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

static void bench_layout(bench *B) {
  row *rw = &B->rows[B_LAYOUT];
  const int64_t n = B->atoms, ext[2] = {n, NEIGHBOURS};
  const porta_view_options ol = dev_options(PORTA_LAYOUT_DEFAULT),
                           orr = dev_options(PORTA_LAYOUT_RIGHT);
  layout_ctx c;
  memset(&c, 0, sizeof c);
  porta_view_f64 ref;
  note_rc(B, porta_view_i32_create(&c.left.nb, "neigh_left", 2, ext, &ol));
  note_rc(B, porta_view_i32_create(&c.right.nb, "neigh_right", 2, ext, &orr));
  note_rc(B, porta_view_f64_create(&c.left.x, "neigh_x", 1, &n, &ol));
  note_rc(B, porta_view_f64_create(&c.left.out, "neigh_out", 1, &n, &ol));
  note_rc(B, porta_view_f64_create(&ref, "neigh_ref", 1, &n, &ol));
  if (B->porta_rc) return;
  if (c.left.nb.m.layout != PORTA_LAYOUT_LEFT || c.right.nb.m.layout != PORTA_LAYOUT_RIGHT) {
    fprintf(stderr, "porta-bench-gpu: neighbour views have the wrong layouts\n");
    rw->ran = 1;
    return;
  }
  c.left.natoms = n;
  const porta_view_i32 rnb = c.right.nb;
  c.right = c.left; /* the same x and out, the Right neighbour table */
  c.right.nb = rnb;
  neigh_x_init_k<<<check_grid(B), HAND_BLOCK>>>(c.left.x.data, n);
  CU_LAUNCHED(B);
  const porta_range_policy rg = porta_range(0, n);
  note_rc(B, PORTA_PARALLEL_FOR_LABELED("neigh_fill", bk_neigh_fill, B->ex, rg, &c.left));
  note_rc(B,
          PORTA_PARALLEL_FOR_LABELED("neigh_fill_right", bk_neigh_fill_right, B->ex, rg, &c.right));
  note_rc(B, porta_exec_fence(B->ex, "neigh_fill"));
  neigh_ref_k<<<check_grid(B), HAND_BLOCK>>>(c.left.nb.data, porta_stride(c.left.nb, 1),
                                             c.left.x.data, ref.data, n);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  measure(B, rw, layout_side, &c);
  unsigned long long bad = 0;
  for (int side = 0; side < 2; ++side) {
    CU(B, cudaMemset(c.left.out.data, 0xff, (size_t)n * sizeof(double)));
    layout_side(B, &c, side);
    bad_reset(B);
    count_diff_f64_k<<<check_grid(B), HAND_BLOCK>>>(c.left.out.data, ref.data, n, 0.0, B->bad);
    const unsigned long long b = bad_read(B);
    if (b)
      fprintf(stderr, "porta-bench-gpu: neighbour sum (%s layout): %llu wrong atoms\n",
              side == 0 ? "left" : "right", b);
    bad += b;
  }
  rw->check_ok = !bad && !B->porta_rc && !B->cuda_rc;
  rw->bytes = (double)n * (NEIGHBOURS * sizeof(int32_t) + 2.0 * sizeof(double));
  snprintf(B->notes[B_LAYOUT], sizeof B->notes[B_LAYOUT],
           "porta = neigh(i,k) in the device default LayoutLeft (PORTA_AT2), ref = the same "
           "Porta loop on LayoutRight (PORTA_R2); %lld atoms x %d neighbours",
           (long long)n, NEIGHBOURS);
  rw->ref_label = B->notes[B_LAYOUT];
  snprintf(rw->accept, sizeof rw->accept, "(no criterion) Right/Left time %.2fx", rw->ratio);
  porta_view_i32_release(&c.left.nb);
  porta_view_i32_release(&c.right.nb);
  porta_view_f64_release(&c.left.x);
  porta_view_f64_release(&c.left.out);
  porta_view_f64_release(&ref);
}

/* ---- output ------------------------------------------------------------- */

static void usage(FILE *out) {
  fprintf(out, "usage: porta-bench-gpu [--n=ELEMENTS] [--reps=K] [--only=LIST] [--stencil=SIDE]\n"
               "                       [--spmv=SIDE] [--atoms=N] [--porta-*]\n"
               "  --n        elements of the stream, det and scan arrays (default 2^28)\n"
               "  --reps     timed reps of each benchmark, after one warm-up (default 10)\n"
               "  --only     comma list of: copy,triad,dot,det,launch,latency,scan,stencil,spmv,"
               "layout\n"
               "  --stencil  interior side of the 2D stencil (default 8192)\n"
               "  --spmv     side of the SpMV Laplacian grid (default 4096)\n"
               "  --atoms    atoms of the neighbour-list layout demonstration (default 2^20)\n"
               "  --porta-help  Porta's own options\n");
}

static int parse_i64(const char *s, int64_t lo, int64_t *out) {
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || v < lo) return 0;
  *out = v;
  return 1;
}

static void fmt_time(char *buf, size_t len, double t, int us) {
  if (us)
    snprintf(buf, len, "%.3f us", t * 1e6);
  else
    snprintf(buf, len, "%.3f ms", t * 1e3);
}
static void fmt_bw(char *buf, size_t len, double bytes, double t) {
  if (bytes > 0 && t > 0)
    snprintf(buf, len, "%.3f", bytes / t * 1e-12);
  else
    snprintf(buf, len, "-");
}

static void print_bits(const char *who, double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  printf(" %s %.17g (0x%016llx);", who, v, (unsigned long long)u);
}

int main(int argc, char **argv) {
  if (porta_initialize(&argc, &argv) != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench-gpu: %s\n", porta_last_error_message());
    return 2;
  }
  bench B;
  memset(&B, 0, sizeof B);
  B.n = (int64_t)1 << 28;
  B.reps = 10;
  B.stencil_side = 8192;
  B.spmv_side = 4096;
  B.atoms = (int64_t)1 << 20;
  for (int k = 0; k < B_COUNT; ++k) B.only[k] = 1;
  int64_t v;
  for (int a = 1; a < argc; ++a) {
    const char *s = argv[a];
    if (!strncmp(s, "--n=", 4) && parse_i64(s + 4, SMALL_N, &v)) {
      B.n = v;
    } else if (!strncmp(s, "--reps=", 7) && parse_i64(s + 7, 1, &v) && v < 100000) {
      B.reps = (int)v;
    } else if (!strncmp(s, "--stencil=", 10) && parse_i64(s + 10, 1, &v)) {
      B.stencil_side = v;
    } else if (!strncmp(s, "--spmv=", 7) && parse_i64(s + 7, 2, &v) && v <= 46340) {
      B.spmv_side = v;
    } else if (!strncmp(s, "--atoms=", 8) && parse_i64(s + 8, 257, &v) && v < INT32_MAX) {
      B.atoms = v;
    } else if (!strncmp(s, "--only=", 7)) {
      for (int k = 0; k < B_COUNT; ++k) B.only[k] = 0;
      const char *p = s + 7;
      while (*p) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int k = 0; k < N_ONLY; ++k)
          if (strlen(only_names[k]) == len && !strncmp(p, only_names[k], len)) {
            found = 1;
            for (int q = 0; q < 2; ++q)
              if (only_rows[k][q] >= 0) B.only[only_rows[k][q]] = 1;
          }
        if (!found) {
          fprintf(stderr, "porta-bench-gpu: unknown benchmark '%.*s' in --only\n", (int)len, p);
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
      fprintf(stderr, "porta-bench-gpu: bad option '%s'\n", s);
      usage(stderr);
      porta_finalize();
      return 2;
    }
  }
  if (!porta_backend_available(PORTA_BACKEND_CUDA)) {
    fprintf(stderr, "porta-bench-gpu: the CUDA back end is not available (no usable GPU?)\n");
    porta_finalize();
    return 2;
  }
  B.ex = porta_exec_backend(PORTA_BACKEND_CUDA);
  B.det0 = porta_deterministic();
  cudaDeviceProp prop;
  int dev = 0;
  CU(&B, cudaGetDevice(&dev));
  CU(&B, cudaGetDeviceProperties(&prop, dev));
  B.sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
  B.tp = (double *)malloc((size_t)B.reps * sizeof(double));
  B.th = (double *)malloc((size_t)B.reps * sizeof(double));
  CU(&B, cudaMalloc((void **)&B.bad, sizeof(unsigned long long)));
  CU(&B, cudaMalloc((void **)&B.part, (size_t)check_grid(&B) * sizeof(double)));
  CU(&B, cudaHostAlloc((void **)&B.pinned, 4 * sizeof(double), cudaHostAllocMapped));
  if (!B.cuda_rc) CU(&B, cudaHostGetDevicePointer((void **)&B.pinned_dev, B.pinned, 0));
  if (B.cuda_rc) {
    porta_finalize();
    return 2;
  }

  printf("porta-bench-gpu: Porta's CUDA back end against hand-written CUDA kernels (the same nvcc "
         "and flags)\n");
  porta_print_configuration(stdout);
  printf("  %s: %d SMs, %.0f MiB L2, %.1f GiB; n = %lld (%.0f MiB per f64 array), reps = %d "
         "after 1 warm-up\n",
         prop.name, B.sms, prop.l2CacheSize / 1048576.0, prop.totalGlobalMem / 1073741824.0,
         (long long)B.n, (double)B.n * 8.0 / 1048576.0, B.reps);
  printf("  stencil %lld^2 interior, spmv %lld^2 grid (5-point Laplacian), layout %lld atoms x %d "
         "neighbours\n\n",
         (long long)B.stencil_side, (long long)B.spmv_side, (long long)B.atoms, NEIGHBOURS);
  fflush(stdout);

  bench_stream(&B);
  if (B.only[B_LAUNCH] && !B.porta_rc && !B.cuda_rc) bench_launch(&B);
  if (B.only[B_LATENCY] && !B.porta_rc && !B.cuda_rc) bench_latency(&B);
  if (B.only[B_SCAN] && !B.porta_rc && !B.cuda_rc) bench_scan(&B);
  if (B.only[B_STENCIL] && !B.porta_rc && !B.cuda_rc) bench_stencil(&B);
  if ((B.only[B_SPMV4] || B.only[B_SPMV8]) && !B.porta_rc && !B.cuda_rc) bench_spmv(&B);
  if (B.only[B_LAYOUT] && !B.porta_rc && !B.cuda_rc) bench_layout(&B);

  printf("%-8s %12s %12s %8s %8s %8s  %-5s %s\n", "kernel", "porta med", "ref med", "ref/p",
         "porta", "ref", "check", "acceptance");
  printf("%-8s %12s %12s %8s %8s %8s  %-5s %s\n", "", "", "", "speed", "TB/s", "TB/s", "", "");
  int all_ok = 1, n_crit = 0, n_pass = 0;
  for (int k = 0; k < B_COUNT; ++k) {
    const row *r = &B.rows[k];
    if (!B.only[k]) continue;
    if (!r->ran) {
      printf("%-8s %s\n", row_names[k], "not run (an earlier error)");
      all_ok = 0;
      continue;
    }
    char pm[24], hm[24], pb[16], hb[16];
    fmt_time(pm, sizeof pm, r->p_med, r->us);
    fmt_time(hm, sizeof hm, r->h_med, r->us);
    fmt_bw(pb, sizeof pb, r->bytes, r->p_med);
    fmt_bw(hb, sizeof hb, r->bytes, r->h_med);
    printf("%-8s %12s %12s %8.3f %8s %8s  %-5s %s\n", row_names[k], pm, hm, r->ratio, pb, hb,
           r->check_ok ? "OK" : "FAIL", r->has_crit || r->accept[0] ? r->accept : "-");
    all_ok &= r->check_ok;
    n_crit += r->has_crit;
    n_pass += r->has_crit && r->crit_ok;
  }
  printf("\n  med: median over the reps of the time per call (fenced batches of %d calls; launch:\n"
         "  %d, red-lat: %d). ref/p: median over reps of ref time / porta time in the same rep\n"
         "  (> 1: Porta faster). TB/s from the medians; BabelStream byte counts (copy, dot 2\n"
         "  arrays, triad 3; det-dot and scan in + out; stencil in + out; spmv val, col, rowptr,\n"
         "  x, y; layout neigh + x + out). ref = hand-written CUDA unless said otherwise:\n",
         STREAM_BATCH, LAUNCHES, LATENCY_CALLS);
  for (int k = 0; k < B_COUNT; ++k)
    if (B.only[k] && B.rows[k].ran && B.rows[k].ref_label)
      printf("  %s: %s\n", row_names[k], B.rows[k].ref_label);
  if (B.only[B_DET] && B.rows[B_DET].ran) {
    printf("  deterministic dot bits:");
    print_bits("cuda det", B.det_bits[0]);
    print_bits("serial det", B.det_bits[1]);
    print_bits("cuda default", B.det_bits[2]);
    printf(" cuda det %s serial det, %s over the reps\n",
           memcmp(&B.det_bits[0], &B.det_bits[1], sizeof(double)) ? "DIFFERS from" : "==",
           B.det_same_reps ? "identical" : "NOT identical");
  }
  printf("\nperformance criteria: %d of %d PASS; correctness: %s\n", n_pass, n_crit,
         all_ok && !B.porta_rc && !B.cuda_rc ? "all OK" : "FAILED");
  cudaFree(B.bad);
  cudaFree(B.part);
  cudaFreeHost(B.pinned);
  free(B.tp);
  free(B.th);
  if (porta_finalize() != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench-gpu: %s\n", porta_last_error_message());
    return 1;
  }
  return all_ok && !B.porta_rc && !B.cuda_rc ? 0 : 1;
}

#else /* not compiled by nvcc as CUDA */

int main(void) {
  fprintf(stderr, "porta-bench-gpu: built without CUDA; configure with -DPORTA_ENABLE_CUDA=ON\n");
  return 2;
}

#endif
