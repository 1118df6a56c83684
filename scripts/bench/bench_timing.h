/** @file bench_timing.h
 *  The timing harness of porta-bench and porta-bench-gpu: a Porta side and a reference side
 *  run in alternating order (ABBA) after one warm-up of each, the medians and per-rep ratios of
 *  their times, the rows of the result table with their performance criteria, and the
 *  formatting of times, rates and bits. Plain host C (bench_timing.c); each program keeps its
 *  kernels, its sides and its table.
 */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <stddef.h>

#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

/** One line of a result table. Times in seconds per call. */
typedef struct bench_row {
  int ran, check_ok;
  int us;                            /**< print times in microseconds */
  double p_med, p_min, h_med, h_min; /**< median and minimum over the reps: Porta, reference */
  double ratio; /**< median over reps of reference time / Porta time (same rep: adjacent runs) */
  double bytes; /**< bytes moved per call; 0: no bandwidth */
  int has_crit, crit_ok; /**< performance criterion */
  char accept[96];       /**< criterion and measured value */
  const char *ref_label; /**< what the reference column holds */
} bench_row;

/** Median of t[0..k-1]; *min_out (may be NULL) gets the minimum. */
double bench_median(const double *t, int k, double *min_out);
/** Median over reps of x[i] / y[i] (ratio != 0) or x[i] - y[i]: runs of one rep are adjacent
 *  in time, so pairing them cancels slow drifts of the machine that medians alone keep. */
double bench_paired_median(const double *x, const double *y, int k, int ratio);
/** The row's medians, minima and ratio from the per-rep times; marks it run. */
void bench_row_stats(bench_row *r, const double *tp, const double *th, int reps);
/** Criterion: reference time / Porta time >= need ("what" names the reference). */
void bench_crit_ratio(bench_row *r, double need, const char *what);

/** Rep r (-1: the warm-up) runs Porta on data set bench_porta_set(r) (0 or 1) and the
 *  reference on the other; from rep 0 on, Porta runs first in even reps. */
int bench_porta_set(int r);
int bench_porta_first(int r);

/** One side of a comparison: run it once in rep `rep` (-1: the warm-up) and return the seconds
 *  per call. porta != 0: the Porta side, else the reference. */
typedef double (*bench_side_fn)(void *ctx, int porta, int rep);

/** One warm-up of each side (Porta first when warm_porta_first), then `reps` reps in which the
 *  sides alternate which runs first (bench_porta_first): tp[r] and th[r] get the times of
 *  rep r. */
void bench_abba(int reps, int warm_porta_first, bench_side_fn side, void *ctx, double *tp,
                double *th);

/** A Porta code: the first failure prints "prog: message" to stderr; any sets *porta_rc. */
void bench_note_rc(const char *prog, int *porta_rc, int rc);

/** "12.345 us" (us != 0) or "12.345 ms". */
void bench_fmt_time(char *buf, size_t len, double t, int us);
/** bytes / t * scale with `digits` decimals ("-" without bytes or time). */
void bench_fmt_rate(char *buf, size_t len, double bytes, double t, double scale, int digits);
/** " who V (0xBITS);" of a double. */
void bench_print_bits(const char *who, double v);

PORTA_EXTERN_C_END

#endif /* BENCH_TIMING_H */
