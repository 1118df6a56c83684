/** @file app_decomp.c
 *  Cartesian decomposition helpers (see app_decomp.h). */
#include "app_decomp.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "porta/porta.h"

/* Record a failure of `op` (message also into err when given); returns the Porta code. */
static int decomp_fail(const char *op, char *err, size_t errlen, const char *fmt, ...)
    PORTA_PRINTF_FORMAT(4, 5);
static int decomp_fail(const char *op, char *err, size_t errlen, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (err && errlen) snprintf(err, errlen, "decomposition: %s", msg);
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "%s", msg);
}

void app_split(int64_t n, int parts, int index, int64_t *offset, int64_t *count) {
  int64_t q = n / parts, r = n % parts;
  *offset = q * index + (index < r ? index : r);
  *count = q + (index < r ? 1 : 0);
}

int app_dims_create(int nranks, int ndims, int *dims) {
  if (nranks < 1 || ndims < 1 || ndims > APP_DECOMP_MAX_DIMS)
    return decomp_fail("app_dims_create", NULL, 0, "bad arguments (%d ranks, %d dimensions)",
                       nranks, ndims);
  for (int i = 0; i < ndims; ++i) dims[i] = 0;
  if (MPI_Dims_create(nranks, ndims, dims) != MPI_SUCCESS)
    return decomp_fail("app_dims_create", NULL, 0, "MPI_Dims_create(%d, %d) failed", nranks, ndims);
  return PORTA_SUCCESS;
}

int app_decomp_for_rank(int rank, int nranks, int ndims, const int64_t *global, const int *dims,
                        app_decomp *d, char *err, size_t errlen) {
  static const char op[] = "app_decomp_for_rank";
  memset(d, 0, sizeof *d);
  d->comm = MPI_COMM_NULL;
  d->rank = rank;
  d->nranks = nranks;
  d->ndims = ndims;
  if (ndims < 1 || ndims > APP_DECOMP_MAX_DIMS || nranks < 1 || rank < 0 || rank >= nranks) {
    return decomp_fail(op, err, errlen, "bad arguments (rank %d of %d, %d dimensions)", rank,
                       nranks, ndims);
  }
  int prod = 1;
  for (int i = 0; i < ndims; ++i) {
    d->dims[i] = dims ? dims[i] : 0;
    prod *= d->dims[i] > 0 ? d->dims[i] : 1;
  }
  if (!dims) {
    if (app_dims_create(nranks, ndims, d->dims))
      return decomp_fail(op, err, errlen, "MPI_Dims_create(%d, %d) failed", nranks, ndims);
  } else if (prod != nranks) {
    return decomp_fail(op, err, errlen, "rank grid has %d ranks, the job has %d", prod, nranks);
  }
  int rest = rank;
  for (int i = 0; i < ndims; ++i) { /* x fastest */
    d->coords[i] = rest % d->dims[i];
    rest /= d->dims[i];
  }
  for (int i = ndims; i < APP_DECOMP_MAX_DIMS; ++i) {
    d->dims[i] = 1;
    d->global[i] = d->local[i] = 1;
    d->neighbour[i][0] = d->neighbour[i][1] = MPI_PROC_NULL;
  }
  for (int i = 0; i < ndims; ++i) {
    d->global[i] = global[i];
    if (global[i] < d->dims[i]) {
      return decomp_fail(op, err, errlen,
                         "%lld cells in dimension %d cannot be split over %d ranks "
                         "(every rank needs at least one cell)",
                         (long long)global[i], i, d->dims[i]);
    }
    app_split(global[i], d->dims[i], d->coords[i], &d->offset[i], &d->local[i]);
    for (int s = 0; s < 2; ++s) {
      int c = d->coords[i] + (s == APP_LOW ? -1 : 1);
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

int app_decomp_create(MPI_Comm comm, int ndims, const int64_t *global, const int *dims,
                      app_decomp *d, char *err, size_t errlen) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int rc = app_decomp_for_rank(rank, size, ndims, global, dims, d, err, errlen);
  d->comm = comm;
  return rc;
}
