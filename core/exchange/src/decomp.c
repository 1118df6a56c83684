/** @file decomp.c
 *  Cartesian decomposition helpers (see porta/exchange_decomp.h). */
#include "porta/exchange_decomp.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "porta/porta.h"

/* Record a failure of `op` as a Porta error ("decomposition: reason"); returns its code. */
static int decomp_fail(const char *op, const char *fmt, ...) PORTA_PRINTF_FORMAT(2, 3);
static int decomp_fail(const char *op, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "decomposition: %s", msg);
}

void porta_split(int64_t n, int parts, int index, int64_t *offset, int64_t *count) {
  int64_t q = n / parts, r = n % parts;
  *offset = q * index + (index < r ? index : r);
  *count = q + (index < r ? 1 : 0);
}

int porta_dims_create(int nranks, int ndims, int *dims) {
  if (nranks < 1 || ndims < 1 || ndims > PORTA_DECOMP_MAX_DIMS)
    return decomp_fail("porta_dims_create", "bad arguments (%d ranks, %d dimensions)", nranks,
                       ndims);
  for (int i = 0; i < ndims; ++i) dims[i] = 0;
  if (MPI_Dims_create(nranks, ndims, dims) != MPI_SUCCESS)
    return decomp_fail("porta_dims_create", "MPI_Dims_create(%d, %d) failed", nranks, ndims);
  return PORTA_SUCCESS;
}

/** Cells on the faces between ranks of grid `d` (the halo traffic a grid costs). */
static double cut_cells(int ndims, const int64_t *global, const int *d) {
  double cut = 0.0;
  for (int i = 0; i < ndims; ++i) {
    double face = 1.0;
    for (int j = 0; j < ndims; ++j)
      if (j != i) face *= (double)global[j];
    cut += (double)(d[i] - 1) * face;
  }
  return cut;
}

static int grid_fits(int ndims, const int64_t *global, const int *d) {
  for (int i = 0; i < ndims; ++i)
    if (d[i] > global[i]) return 0;
  return 1;
}

int porta_dims_for_cells(int nranks, int ndims, const int64_t *global, int *dims) {
  static const char op[] = "porta_dims_for_cells";
  int mpi[PORTA_DECOMP_MAX_DIMS] = {1, 1, 1};
  PORTA_CHECK(porta_dims_create(nranks, ndims, mpi));
  int best[PORTA_DECOMP_MAX_DIMS] = {0, 0, 0}, found = 0;
  double best_cut = 0.0;
  /* every grid d0 x d1 x d2 = nranks, x's share largest first */
  for (int d0 = nranks; d0 >= 1; --d0) {
    if (nranks % d0) continue;
    const int r0 = nranks / d0;
    for (int d1 = ndims > 1 ? r0 : 1; d1 >= 1; --d1) {
      if (r0 % d1) continue;
      const int d2 = r0 / d1;
      if (ndims < 3 && d2 != 1) continue;
      const int d[PORTA_DECOMP_MAX_DIMS] = {d0, d1, d2};
      if (!grid_fits(ndims, global, d)) continue;
      const double cut = cut_cells(ndims, global, d);
      if (!found || cut < best_cut) {
        memcpy(best, d, sizeof best);
        best_cut = cut;
        found = 1;
      }
    }
  }
  if (!found)
    return decomp_fail(op,
                       "no grid of %d ranks gives every rank a cell of the %lld x %lld x %lld "
                       "cells",
                       nranks, (long long)global[0], (long long)(ndims > 1 ? global[1] : 1),
                       (long long)(ndims > 2 ? global[2] : 1));
  /* MPI_Dims_create's grid where it is as good: the grids the apps always had stay */
  if (grid_fits(ndims, global, mpi) && cut_cells(ndims, global, mpi) <= best_cut)
    memcpy(best, mpi, sizeof best);
  for (int i = 0; i < ndims; ++i) dims[i] = best[i];
  return PORTA_SUCCESS;
}

int porta_decomp_for_rank(int rank, int nranks, int ndims, const int64_t *global, const int *dims,
                          porta_decomp *d) {
  static const char op[] = "porta_decomp_for_rank";
  memset(d, 0, sizeof *d);
  d->comm = MPI_COMM_NULL;
  d->rank = rank;
  d->nranks = nranks;
  d->ndims = ndims;
  if (ndims < 1 || ndims > PORTA_DECOMP_MAX_DIMS || nranks < 1 || rank < 0 || rank >= nranks) {
    return decomp_fail(op, "bad arguments (rank %d of %d, %d dimensions)", rank, nranks, ndims);
  }
  int prod = 1;
  for (int i = 0; i < ndims; ++i) {
    d->dims[i] = dims ? dims[i] : 0;
    prod *= d->dims[i] > 0 ? d->dims[i] : 1;
  }
  if (!dims) {
    if (porta_dims_for_cells(nranks, ndims, global, d->dims)) return PORTA_ERROR_INVALID_ARGUMENT;
  } else if (prod != nranks) {
    return decomp_fail(op, "rank grid has %d ranks, the job has %d", prod, nranks);
  }
  int rest = rank;
  for (int i = 0; i < ndims; ++i) { /* x fastest */
    d->coords[i] = rest % d->dims[i];
    rest /= d->dims[i];
  }
  for (int i = ndims; i < PORTA_DECOMP_MAX_DIMS; ++i) {
    d->dims[i] = 1;
    d->global[i] = d->local[i] = 1;
    d->neighbour[i][0] = d->neighbour[i][1] = MPI_PROC_NULL;
  }
  for (int i = 0; i < ndims; ++i) {
    d->global[i] = global[i];
    if (global[i] < d->dims[i]) {
      return decomp_fail(op,
                         "%lld cells in dimension %d cannot be split over %d ranks "
                         "(every rank needs at least one cell)",
                         (long long)global[i], i, d->dims[i]);
    }
    porta_split(global[i], d->dims[i], d->coords[i], &d->offset[i], &d->local[i]);
    for (int s = 0; s < 2; ++s) {
      int c = d->coords[i] + (s == PORTA_LOW ? -1 : 1);
      if (c < 0 || c >= d->dims[i]) {
        d->neighbour[i][s] = MPI_PROC_NULL;
      } else {
        int r = 0, stride = 1;
        for (int k = 0; k < ndims; ++k) {
          r += (k == i ? c : d->coords[k]) * stride;
          stride *= d->dims[k];
        }
        d->neighbour[i][s] = r;
      }
    }
  }
  return PORTA_SUCCESS;
}

int porta_decomp_create(MPI_Comm comm, int ndims, const int64_t *global, const int *dims,
                        porta_decomp *d) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int rc = porta_decomp_for_rank(rank, size, ndims, global, dims, d);
  d->comm = comm;
  return rc;
}
