/** @file bench_kernels.c
 *  The benchmarks' Porta kernels (bench_kernels.h), written once. A kernel file: for
 *  porta-bench-gpu nvcc compiles it, so every back end is generated from these bodies (the
 *  GPU benchmark's deterministic-dot reference runs the Serial one); porta-bench compiles
 *  it as plain C, like its hand-written loops.
 */
#include "bench_kernels.h"

/* Keeps an empty loop body from being optimised away on the host; device code gets none
 * (the CUDA empty kernel stays empty). */
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define BENCH_BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#define BENCH_BARRIER() ((void)0)
#endif

/* ---- stream ---- */

PORTA_FOR(bk_copy, stream_args, s, i) { PORTA_AT1(s->c, i) = PORTA_AT1(s->a, i); }
PORTA_FOR(bk_scale, stream_args, s, i) { PORTA_AT1(s->b, i) = s->scalar * PORTA_AT1(s->c, i); }
PORTA_FOR(bk_add, stream_args, s, i) {
  PORTA_AT1(s->c, i) = PORTA_AT1(s->a, i) + PORTA_AT1(s->b, i);
}
PORTA_FOR(bk_triad, stream_args, s, i) {
  PORTA_AT1(s->d, i) = PORTA_AT1(s->b, i) + s->scalar * PORTA_AT1(s->c, i);
}
PORTA_REDUCE(bk_dot, stream_args, s, i, porta_sum_f64, acc) {
  *acc += PORTA_AT1(s->a, i) * PORTA_AT1(s->b, i);
}
/** The same dot summed exactly (porta/xsum.h): correctly rounded, the same bits everywhere. */
PORTA_REDUCE(bk_exact_dot, stream_args, s, i, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, PORTA_AT1(s->a, i) * PORTA_AT1(s->b, i));
}

/* ---- launch ---- */

PORTA_FOR(bk_empty, empty_args, e, i) { BENCH_BARRIER(); }

/* ---- stencil ---- */

/* PORTA_AT2 follows the view's layout: Right on the host (j contiguous), Left on the GPU
 * (i contiguous). */
PORTA_MDFOR2(bk_stencil, stencil_args, s, i, j) {
  PORTA_AT2(s->out, i, j) =
      0.2 * (PORTA_AT2(s->in, i, j) + PORTA_AT2(s->in, i - 1, j) + PORTA_AT2(s->in, i + 1, j) +
             PORTA_AT2(s->in, i, j - 1) + PORTA_AT2(s->in, i, j + 1));
}

/* ---- SpMV ---- */

PORTA_TEAM_FOR(bk_spmv, spmv_args, s, team) {
  const int64_t r0 = team->league_rank * s->rows_per_team;
  const int64_t r1 = r0 + s->rows_per_team < s->nrows ? r0 + s->rows_per_team : s->nrows;
  PORTA_TEAM_THREAD_RANGE(team, r, r0, r1) {
    const int64_t kb = PORTA_AT1(s->rowptr, r), ke = PORTA_AT1(s->rowptr, r + 1);
    double sum;
    PORTA_THREAD_VECTOR_REDUCE(team, k, kb, ke, porta_sum_f64, sum) {
      sum += PORTA_AT1(s->val, k) * PORTA_AT1(s->x, PORTA_AT1(s->col, k));
    }
    PORTA_SINGLE_PER_THREAD(team) { PORTA_AT1(s->y, r) = sum; }
  }
}

/* ---- scan ---- */

PORTA_FOR(bk_copy_i64, scan_args, s, i) { PORTA_AT1(s->out, i) = PORTA_AT1(s->in, i); }

PORTA_SCAN(bk_scan, scan_args, s, i, porta_sum_i64, upd, final) {
  const int64_t v = PORTA_AT1(s->in, i);
  if (final) PORTA_AT1(s->out, i) = *upd;
  *upd += v;
}

/* ---- neighbour-list layout ---- */

/** The k-th neighbour of atom i: a nearby atom, as in a spatially sorted neighbour list. */
PORTA_INLINE_FUNCTION int32_t bench_neighbour(int64_t i, int64_t k, int64_t n) {
  int64_t j = i + (k * 97 + i * 31) % 257 - 128;
  if (j < 0) j += n;
  if (j >= n) j -= n;
  return (int32_t)j;
}

PORTA_FOR(bk_neigh_fill, neigh_args, s, i) {
  for (int64_t k = 0; k < NEIGHBOURS; ++k)
    PORTA_AT2(s->nb, i, k) = bench_neighbour(i, k, s->natoms);
}
PORTA_FOR(bk_neigh_fill_right, neigh_args, s, i) {
  for (int64_t k = 0; k < NEIGHBOURS; ++k) PORTA_R2(s->nb, i, k) = bench_neighbour(i, k, s->natoms);
}
PORTA_FOR(bk_neigh, neigh_args, s, i) {
  double sum = 0.0;
  for (int64_t k = 0; k < NEIGHBOURS; ++k) sum += PORTA_AT1(s->x, PORTA_AT2(s->nb, i, k));
  PORTA_AT1(s->out, i) = sum;
}
PORTA_FOR(bk_neigh_right, neigh_args, s, i) {
  double sum = 0.0;
  for (int64_t k = 0; k < NEIGHBOURS; ++k) sum += PORTA_AT1(s->x, PORTA_R2(s->nb, i, k));
  PORTA_AT1(s->out, i) = sum;
}
