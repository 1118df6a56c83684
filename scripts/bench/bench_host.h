/** @file bench_host.h
 *  porta-bench's own parts: its rows, its state, and the benchmarks of each topic file
 *  (bench_host_stream.c: copy, scale, add, triad, dot and the launch cost; bench_host_grid.c:
 *  the stencil and the SpMV; bench_host_reduce.c: the scan and the deterministic and Serial
 *  dots). porta_bench.c reads the command line, runs them and prints the table.
 *
 *  Every benchmark runs a Porta kernel (bench_kernels.c) and a hand-written OpenMP loop over
 *  raw pointers (in the benchmark's topic file), compiled with identical flags, on arrays of
 *  the same allocator, timed by bench_timing's ABBA harness: in rep r Porta works on data set
 *  bench_porta_set(r) and the hand-written loop on the other.
 */
#ifndef BENCH_HOST_H
#define BENCH_HOST_H

#include <stdint.h>

#include "porta/porta.h"

#include "bench_kernels.h"
#include "bench_timing.h"

#define LAUNCHES_PER_REP 10000
#define SPMV_ROWS_PER_TEAM 256

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

typedef struct bench {
  int64_t n;
  int reps;
  int64_t stencil_side, spmv_side;
  int nt; /**< threads of both sides */
  porta_exec ex;
  int only[B_COUNT];
  bench_row rows[B_COUNT];
  double *tp, *th; /**< per-rep times, reps entries each */
  int porta_rc;    /**< OR of Porta return codes */
  int det_threads; /**< OpenMP threads of the third deterministic run */
  char scan_note[160];
} bench;

/** A deterministic dot's bits on one back end (have: it ran). */
typedef struct det_bits {
  int have;
  double v;
} det_bits;

/** A Porta code of the benchmark (bench_note_rc). */
static inline void note_rc(bench *B, int rc) { bench_note_rc("porta-bench", &B->porta_rc, rc); }

/** A time in microseconds (us, or below a millisecond) or milliseconds. */
static inline void fmt_time(char *buf, size_t len, double t, int us) {
  bench_fmt_time(buf, len, t, us || t < 1e-3);
}

/** bench_host_stream.c: copy, scale, add, triad and dot (those selected), BabelStream's chain
 *  on two array sets; the cost of an empty launch. */
void bench_stream(bench *B);
void bench_launch(bench *B);
/** bench_host_grid.c: the 2D 5-point stencil; the team CSR SpMV. */
void bench_stencil_run(bench *B);
void bench_spmv_run(bench *B);
/** bench_host_reduce.c: the exclusive scan; the deterministic dot (and its bits on Serial,
 *  OpenMP 1 thread and OpenMP det_threads); the Serial back end's dot. */
void bench_scan_run(bench *B);
void bench_det(bench *B, det_bits bits[3]);
void bench_sdot(bench *B);

#endif /* BENCH_HOST_H */
