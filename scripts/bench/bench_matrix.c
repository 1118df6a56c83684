/** @file bench_matrix.c
 *  The SpMV's matrix and vector (bench_matrix.h). */
#include "bench_matrix.h"

int64_t bench_laplace5_nnz(int64_t g) { return 5 * g * g - 4 * g; }

int64_t bench_laplace5(int64_t g, int64_t *rowptr, int32_t *col, double *val, double *x) {
  int64_t k = 0;
  for (int64_t i = 0; i < g; ++i)
    for (int64_t j = 0; j < g; ++j) {
      const int64_t r = i * g + j;
      rowptr[r] = k;
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
  rowptr[g * g] = k;
  return k;
}

double bench_spmv_bytes(int64_t nrows, int64_t nnz) {
  return (double)nnz * (sizeof(double) + sizeof(int32_t)) + (double)(nrows + 1) * sizeof(int64_t) +
         2.0 * (double)nrows * sizeof(double);
}
