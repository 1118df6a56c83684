/** @file app_decomp.c
 *  Cartesian decomposition helpers (see app_decomp.h). */
#include "app_decomp.h"

#include <stdio.h>
#include <string.h>

void app_split(int64_t n, int parts, int index, int64_t *offset, int64_t *count) {
  int64_t q = n / parts, r = n % parts;
  *offset = q * index + (index < r ? index : r);
  *count = q + (index < r ? 1 : 0);
}

int app_dims_create(int nranks, int ndims, int *dims) {
  if (nranks < 1 || ndims < 1 || ndims > APP_DECOMP_MAX_DIMS) return 1;
  for (int i = 0; i < ndims; ++i) dims[i] = 0;
  return MPI_Dims_create(nranks, ndims, dims) != MPI_SUCCESS;
}

int app_decomp_for_rank(int rank, int nranks, int ndims, const int64_t *global, const int *dims,
                        app_decomp *d, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  d->comm = MPI_COMM_NULL;
  d->rank = rank;
  d->nranks = nranks;
  d->ndims = ndims;
  if (ndims < 1 || ndims > APP_DECOMP_MAX_DIMS || nranks < 1 || rank < 0 || rank >= nranks) {
    snprintf(err, errlen, "decomposition: bad arguments (rank %d of %d, %d dimensions)", rank,
             nranks, ndims);
    return 1;
  }
  int prod = 1;
  for (int i = 0; i < ndims; ++i) {
    d->dims[i] = dims ? dims[i] : 0;
    prod *= d->dims[i] > 0 ? d->dims[i] : 1;
  }
  if (!dims) {
    if (app_dims_create(nranks, ndims, d->dims)) {
      snprintf(err, errlen, "decomposition: MPI_Dims_create(%d, %d) failed", nranks, ndims);
      return 1;
    }
  } else if (prod != nranks) {
    snprintf(err, errlen, "decomposition: rank grid has %d ranks, the job has %d", prod, nranks);
    return 1;
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
      snprintf(err, errlen,
               "decomposition: %lld cells in dimension %d cannot be split over %d ranks "
               "(every rank needs at least one cell)",
               (long long)global[i], i, d->dims[i]);
      return 1;
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
  return 0;
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
