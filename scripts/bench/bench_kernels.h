/** @file bench_kernels.h
 *  The Porta kernels of the benchmarks, one copy for every back end: porta-bench (host,
 *  against hand-written OpenMP) and porta-bench-gpu (CUDA, against hand-written CUDA) both
 *  launch these. They are defined in bench_kernels.c, a kernel file: nvcc compiles it for
 *  porta-bench-gpu, the C compiler for porta-bench (scripts/bench/CMakeLists.txt). The
 *  hand-written references stay in the programs; each program chooses the policies (team
 *  size, vector length) it launches with.
 */
#ifndef BENCH_KERNELS_H
#define BENCH_KERNELS_H

#include "porta/porta.h"

/** Neighbours of each atom in the layout demonstration (porta-bench-gpu). */
#define NEIGHBOURS 64

/** BabelStream-style arrays. copy: c = a; scale: b = scalar c; add: c = a + b;
 *  triad: d = b + scalar c; dot: sum of a b. porta-bench points d at a (BabelStream's
 *  chain, triad writes a); porta-bench-gpu gives d its own array, so that every kernel is
 *  idempotent. */
typedef struct stream_args {
  porta_view_f64 a, b, c, d;
  double scalar;
} stream_args;

PORTA_DECLARE_KERNEL(bk_copy, stream_args)
PORTA_DECLARE_KERNEL(bk_scale, stream_args)
PORTA_DECLARE_KERNEL(bk_add, stream_args)
PORTA_DECLARE_KERNEL(bk_triad, stream_args)
PORTA_DECLARE_KERNEL(bk_dot, stream_args, porta_sum_f64)
PORTA_DECLARE_KERNEL(bk_exact_dot, stream_args, porta_xsum_f64)

typedef struct empty_args {
  int unused;
} empty_args;

/** An empty parallel_for (launch cost). */
PORTA_DECLARE_KERNEL(bk_empty, empty_args)

/** 2D 5-point stencil on the interior of `in`: out(i,j) = 0.2 (in(i,j) + in(i-1,j) + in(i+1,j)
 *  + in(i,j-1) + in(i,j+1)), added in that order. */
typedef struct stencil_args {
  porta_view_f64 in, out;
} stencil_args;

PORTA_DECLARE_KERNEL(bk_stencil, stencil_args) /**< rank-2 MDRANGE */

/** CSR SpMV y = A x, a team per `rows_per_team` rows: each team thread takes rows, its vector
 *  lanes split the row's nonzeros. */
typedef struct spmv_args {
  porta_view_i64 rowptr;
  porta_view_i32 col;
  porta_view_f64 val, x, y;
  int64_t nrows, rows_per_team;
} spmv_args;

PORTA_DECLARE_KERNEL(bk_spmv, spmv_args) /**< TEAM */

typedef struct scan_args {
  porta_view_i64 in, out;
} scan_args;

/** The scan's bandwidth reference: a plain copy of the same arrays. */
PORTA_DECLARE_KERNEL(bk_copy_i64, scan_args)
/** Exclusive prefix sum of in into out. */
PORTA_DECLARE_KERNEL(bk_scan, scan_args, porta_sum_i64)

/** Neighbour-list gather: out(i) = sum over k of x(nb(i, k)). */
typedef struct neigh_args {
  porta_view_i32 nb; /**< nb(i, k): the k-th neighbour of atom i */
  porta_view_f64 x, out;
  int64_t natoms;
} neigh_args;

/** Fill nb through the default accessor (PORTA_AT2) / forcing LayoutRight (PORTA_R2). */
PORTA_DECLARE_KERNEL(bk_neigh_fill, neigh_args)
PORTA_DECLARE_KERNEL(bk_neigh_fill_right, neigh_args)
/** The same gather twice: through the default accessor, and forcing LayoutRight. */
PORTA_DECLARE_KERNEL(bk_neigh, neigh_args)
PORTA_DECLARE_KERNEL(bk_neigh_right, neigh_args)

#endif /* BENCH_KERNELS_H */
