/** @file bench_gpu.h
 *  porta-bench-gpu's own parts: its rows, its state, the helpers its benchmarks share
 *  (bench_gpu_common.c) and the benchmarks of each topic file (bench_gpu_stream.c: copy, triad,
 *  dot, the launch cost and the small-reduction latency; bench_gpu_reduce.c: the deterministic
 *  dot and the scan; bench_gpu_grid.c: the stencil, the SpMV and the neighbour-list layout).
 *  Every file of the program is compiled by nvcc as CUDA (scripts/bench/CMakeLists.txt), so
 *  this header is C++ seen by nvcc only.
 *
 *  Timing: bench_timing's ABBA harness (Porta first in the warm-up); a side's sample is a
 *  fenced batch: K back-to-back calls, then one fence, timed with porta_wtime; the sample is
 *  the time per call. Checks: after the timed reps each side's outputs are poisoned (NaN / -1),
 *  the side runs once more, and a hand-written checker kernel compares every element with the
 *  expected value, so a side that skips elements fails.
 */
#ifndef BENCH_GPU_H
#define BENCH_GPU_H

#if defined(__CUDACC__)

#include <stdint.h>

#include <cuda_runtime.h>

#include "porta/porta.h"

#include "bench_kernels.h"
#include "bench_timing.h"

#define HAND_BLOCK 256
#define LAUNCHES 10000
#define LATENCY_CALLS 2000
#define SMALL_N 1000
#define STREAM_BATCH 4

enum {
  B_COPY,
  B_TRIAD,
  B_DOT,
  B_DET,
  B_EXACT,
  B_LAUNCH,
  B_LATENCY,
  B_SCAN,
  B_STENCIL,
  B_SPMV4,
  B_SPMV8,
  B_LAYOUT,
  B_COUNT
};
/** The table's names of the rows. */
extern const char *const row_names[B_COUNT];

typedef struct bench {
  int64_t n, stencil_side, spmv_side, atoms;
  int reps;
  porta_exec ex;
  int sms;
  int only[B_COUNT];
  bench_row rows[B_COUNT];
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
  double exact_bits[2];    /**< CUDA exact dot, Serial exact dot */
  int det0;                /**< the deterministic setting at start, restored after each use */
  int det_same_reps;       /**< every timed det rep gave the same bits */
  char notes[B_COUNT][200];
} bench;

/** Blocks for n items of `per_block` each. */
static inline unsigned blocks_for(int64_t n, int64_t per_block) {
  return (unsigned)((n + per_block - 1) / per_block);
}

/* bench_gpu_common.c: the helpers every benchmark uses. */

/** A Porta code of the benchmark (bench_note_rc). */
void note_rc(bench *B, int rc);
/** A CUDA runtime result: the first failure prints the call and its line; any sets cuda_rc. */
void cu_check(bench *B, cudaError_t e, const char *what, int line);
#define CU(B, call) cu_check((B), (call), #call, __LINE__)
#define CU_LAUNCHED(B) cu_check((B), cudaGetLastError(), "kernel launch", __LINE__)

/** bench_abba (Porta first in the warm-up) into B->tp, B->th, then the row's statistics. The
 *  side's context starts with its bench *. */
void measure(bench *B, bench_row *r, bench_side_fn f, void *ctx);
/** Reset the device counter, run a checker (the caller launches it), read the count. */
void bad_reset(bench *B);
unsigned long long bad_read(bench *B);
/** Blocks of the persistent checker and initialisation grids. */
unsigned check_grid(const bench *B);
/** View options: device memory with `layout`; uninitialized host memory. */
porta_view_options dev_options(porta_layout layout);
porta_view_options host_options(void);
/** A 1D device view of doubles. */
int dev_f64(porta_view_f64 *v, const char *label, int64_t n);

/* The benchmarks. */

/** bench_gpu_stream.c: copy, triad, dot (those selected), then the deterministic dot on the
 *  same arrays; the cost of an empty launch; the latency of a small reduction. */
void bench_stream(bench *B);
void bench_launch(bench *B);
void bench_latency(bench *B);
/** bench_gpu_reduce.c: the deterministic dot of a and b (against the default one, and its
 *  bits against the Serial back end's); the exclusive scan (against a Porta copy). */
void bench_det(bench *B, porta_view_f64 *a, porta_view_f64 *b);
void bench_exact(bench *B, porta_view_f64 *a, porta_view_f64 *b);
void bench_scan(bench *B);
/** bench_gpu_grid.c: the 2D 5-point stencil; the team SpMV with 4 and 8 lanes a row; the
 *  neighbour-list gather in LayoutLeft against LayoutRight. */
void bench_stencil(bench *B);
void bench_spmv(bench *B);
void bench_layout(bench *B);

#endif /* __CUDACC__ */

#endif /* BENCH_GPU_H */
