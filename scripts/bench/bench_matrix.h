/** @file bench_matrix.h
 *  The benchmarks' data, the same in porta-bench and porta-bench-gpu: the SpMV's matrix (the
 *  5-point Laplacian of a g x g grid in CSR) and vector, and the values of the stencil's and
 *  the scan's inputs (functions a kernel may call too). bench_matrix.c builds the matrix.
 */
#ifndef BENCH_MATRIX_H
#define BENCH_MATRIX_H

#include <stdint.h>

#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Nonzeros of the g x g grid's Laplacian: 5 g^2 - 4 g. */
int64_t bench_laplace5_nnz(int64_t g);

/** The Laplacian of the g x g grid (row i g + j: -1 for each neighbour in the grid, 4 on the
 *  diagonal, columns ascending) into rowptr (g^2 + 1 entries), col and val (the nonzeros), and
 *  the SpMV's x (g^2 entries, 1 + 0.001 ((r 7919) mod 1009)). Returns the nonzeros written. */
int64_t bench_laplace5(int64_t g, int64_t *rowptr, int32_t *col, double *val, double *x);

/** Bytes one SpMV of `nrows` rows and `nnz` nonzeros moves: val, col, rowptr, x and y. */
double bench_spmv_bytes(int64_t nrows, int64_t nnz);

PORTA_EXTERN_C_END

/** The stencil's input at (i, j) of its m x m array, halo included. */
PORTA_INLINE_FUNCTION double bench_stencil_in(int64_t i, int64_t j) {
  return (double)((i * 31 + j * 17) % 101) * 0.01;
}

/** The scan's input at i. */
PORTA_INLINE_FUNCTION int64_t bench_scan_in(int64_t i) { return (i * 37) % 11 - 3; }

#endif /* BENCH_MATRIX_H */
