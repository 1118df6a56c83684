/** @file app_h5_data.c
 *  The datasets of the apps' HDF5 result file (see app_h5.h): distributed N-dimensional
 *  blocks, replicated 1D tables, 1D blocks concatenated in rank order, 2D fields of a
 *  decomposition and the node coordinates of a grid's axis. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_h5_private.h"

/* ---- distributed datasets ------------------------------------------------------------------ */

/* Check this rank's block; returns 0 or a Porta code with the message recorded. */
static int block_check(const char *op, const char *path, int ndims, const int64_t *global,
                       const int64_t *start, const int64_t *count, const void *buf) {
  if (ndims < 1 || ndims > APP_H5_MAX_DIMS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, path, "%d dimensions (1..%d allowed)",
                       ndims, APP_H5_MAX_DIMS);
  if (!global || !start || !count)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, path, "NULL shape, start or count");
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (global[i] < 0 || start[i] < 0 || count[i] < 0 || start[i] > global[i] - count[i])
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, path,
                         "dimension %d: block start %lld count %lld outside the global extent "
                         "%lld",
                         i, (long long)start[i], (long long)count[i], (long long)global[i]);
    n *= count[i];
  }
  if (n > 0 && !buf)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, path, "NULL buffer for %lld values",
                       (long long)n);
  return PORTA_SUCCESS;
}

/* A 64-bit mix (splitmix64's finaliser): nearby inputs give unrelated outputs. */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* This rank's part of a dataset's digest (app_h5.h): the block's 8-byte values with their
 * global row-major positions, under the dataset's path. */
static uint64_t block_digest(const char *path, int ndims, const int64_t *global,
                             const int64_t *start, const int64_t *count, const void *buf) {
  uint64_t named = 0xcbf29ce484222325ull; /* FNV-1a of the path */
  for (const unsigned char *c = (const unsigned char *)path; *c; ++c)
    named = (named ^ *c) * 0x100000001b3ull;
  int64_t n = 1, at[APP_H5_MAX_DIMS];
  for (int i = 0; i < ndims; ++i) n *= count[i], at[i] = 0;
  uint64_t sum = 0;
  const unsigned char *b = (const unsigned char *)buf;
  for (int64_t e = 0; e < n; ++e) {
    int64_t g = 0;
    for (int i = 0; i < ndims; ++i) g = g * global[i] + start[i] + at[i];
    uint64_t bits;
    memcpy(&bits, b + 8 * e, 8);
    sum += mix64(mix64(named + 0x9e3779b97f4a7c15ull * (uint64_t)g) ^ bits);
    for (int i = ndims - 1; i >= 0 && ++at[i] == count[i]; --i) at[i] = 0;
  }
  return sum;
}

/* The block writer behind every distributed dataset. `local_rc` is a failure this rank already
 * had preparing its block (its message recorded): the rank still takes part in the agreement,
 * so every rank returns an error and none is left waiting in a collective HDF5 call. */
static int write_block(app_h5 *h, const char *op, const char *path, hid_t type, int ndims,
                       const int64_t *global, const int64_t *start, const int64_t *count,
                       const void *buf, int local_rc, int digest) {
  int rc = local_rc ? local_rc : block_check(op, path, ndims, global, start, count, buf);
  /* Agreement: [0] any failure; then pairs (v, -v) of the rank and each global extent, whose
   * maxima are equal-and-opposite only when every rank gave the same v. */
  enum { NV = 1 + 2 * (1 + APP_H5_MAX_DIMS) };
  int64_t mine[NV], all[NV];
  memset(mine, 0, sizeof mine);
  mine[0] = rc != PORTA_SUCCESS;
  if (rc == PORTA_SUCCESS) {
    mine[1] = ndims, mine[2] = -ndims;
    for (int i = 0; i < ndims; ++i) mine[3 + 2 * i] = global[i], mine[4 + 2 * i] = -global[i];
  }
  if (MPI_Allreduce(mine, all, NV, MPI_INT64_T, MPI_MAX, h->comm) != MPI_SUCCESS)
    return rc ? rc : porta_error(PORTA_ERROR_IO, op, path, "MPI_Allreduce failed");
  if (rc) return rc;
  if (all[0])
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, path,
                       "another rank's block is invalid (see that rank's message)");
  for (int p = 0; p <= APP_H5_MAX_DIMS; ++p)
    if (all[1 + 2 * p] != -all[2 + 2 * p])
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, path, "the ranks disagree on the %s",
                         p == 0 ? "number of dimensions" : "shape");

  hsize_t gdim[APP_H5_MAX_DIMS], hstart[APP_H5_MAX_DIMS], hcount[APP_H5_MAX_DIMS];
  int64_t n = 1, gn = 1;
  for (int i = 0; i < ndims; ++i) {
    gn *= global[i];
    gdim[i] = (hsize_t)global[i];
    hstart[i] = (hsize_t)start[i];
    hcount[i] = (hsize_t)count[i];
    n *= count[i];
  }
  app_h5_quiet_ q = app_h5_quiet_begin_();
  hid_t fs = H5Screate_simple(ndims, gdim, NULL);
  hid_t ds = H5Dcreate2(h->file, path, type, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (ds < 0) {
    rc = app_h5_fail_(op, path, h, "H5Dcreate2");
  } else if (gn == 0) { /* nothing to write (and HDF5 1.10 refuses a write to no storage) */
    H5Dclose(ds);
  } else {
    hid_t ms;
    if (n > 0) {
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, hstart, NULL, hcount, NULL);
      ms = H5Screate_simple(ndims, hcount, NULL);
    } else { /* an empty block still joins the collective write */
      const hsize_t one = 1;
      H5Sselect_none(fs);
      ms = H5Screate_simple(1, &one, NULL);
      H5Sselect_none(ms);
    }
    const double dummy = 0.0;
    if (H5Dwrite(ds, type, ms, fs, h->dxpl, n > 0 ? buf : (const void *)&dummy) < 0)
      rc = app_h5_fail_(op, path, h, "H5Dwrite");
    H5Sclose(ms);
    H5Dclose(ds);
  }
  H5Sclose(fs);
  app_h5_quiet_end_(q);
  /* The ranks agree on the outcome: a write that failed on one rank only (a full file system
   * refuses one rank's part) fails on every rank, so none goes on to the next collective call
   * while another closes the file. */
  int bad = rc != PORTA_SUCCESS, any = bad;
  if (MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, h->comm) != MPI_SUCCESS && !rc)
    return porta_error(PORTA_ERROR_IO, op, path, "MPI_Allreduce failed");
  if (!rc && any) {
    app_h5_fail_note_(h);
    rc = porta_error(PORTA_ERROR_IO, op, path, "the write failed on another rank");
  }
  if (!rc && digest) { /* the values are 8 bytes (double, int64) */
    uint64_t mine_sum = block_digest(path, ndims, global, start, count, buf), sum = 0;
    if (MPI_Allreduce(&mine_sum, &sum, 1, MPI_UINT64_T, MPI_SUM, h->comm) != MPI_SUCCESS)
      return porta_error(PORTA_ERROR_IO, op, path, "MPI_Allreduce failed");
    h->digest += sum;
    h->digested += gn;
  }
  return rc;
}

int app_h5_write_block_f64(app_h5 *h, const char *path, int ndims, const int64_t *global,
                           const int64_t *start, const int64_t *count, const double *buf) {
  return write_block(h, "app_h5_write_block_f64", path, H5T_NATIVE_DOUBLE, ndims, global, start,
                     count, buf, PORTA_SUCCESS, 1);
}

int app_h5_write_block_i64(app_h5 *h, const char *path, int ndims, const int64_t *global,
                           const int64_t *start, const int64_t *count, const int64_t *buf) {
  return write_block(h, "app_h5_write_block_i64", path, H5T_NATIVE_INT64, ndims, global, start,
                     count, buf, PORTA_SUCCESS, 1);
}

/* A replicated 1D table: rank 0 writes all of it, the others an empty block. */
static int write_1d(app_h5 *h, const char *op, const char *path, hid_t type, const void *v,
                    int64_t n) {
  const int64_t start = 0, count = h->rank == 0 ? n : 0;
  return write_block(h, op, path, type, 1, &n, &start, &count, v, PORTA_SUCCESS, 0);
}

int app_h5_write_1d_double(app_h5 *h, const char *path, const double *v, int64_t n) {
  return write_1d(h, "app_h5_write_1d_double", path, H5T_NATIVE_DOUBLE, v, n);
}

int app_h5_write_1d_int(app_h5 *h, const char *path, const int64_t *v, int64_t n) {
  return write_1d(h, "app_h5_write_1d_int", path, H5T_NATIVE_INT64, v, n);
}

/* Rank blocks concatenated: offset = exclusive prefix sum of the local sizes. */
static int write_concat(app_h5 *h, const char *op, const char *path, hid_t type, const void *v,
                        int64_t n_local, int64_t *offset_out) {
  int64_t n = n_local > 0 ? n_local : 0, offset = 0, total = 0;
  if (MPI_Exscan(&n, &offset, 1, MPI_INT64_T, MPI_SUM, h->comm) != MPI_SUCCESS ||
      MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, h->comm) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_IO, op, path, "MPI_Exscan/MPI_Allreduce failed");
  if (h->rank == 0) offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
  if (offset_out) *offset_out = offset;
  int local_rc = PORTA_SUCCESS;
  if (n_local < 0)
    local_rc = porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, path, "negative n_local %lld",
                           (long long)n_local);
  return write_block(h, op, path, type, 1, &total, &offset, &n, v, local_rc, 0);
}

int app_h5_write_1d_concat_f64(app_h5 *h, const char *path, const double *v, int64_t n_local,
                               int64_t *offset_out) {
  return write_concat(h, "app_h5_write_1d_concat_f64", path, H5T_NATIVE_DOUBLE, v, n_local,
                      offset_out);
}

int app_h5_write_1d_concat_i64(app_h5 *h, const char *path, const int64_t *v, int64_t n_local,
                               int64_t *offset_out) {
  return write_concat(h, "app_h5_write_1d_concat_i64", path, H5T_NATIVE_INT64, v, n_local,
                      offset_out);
}

/* Owned cells of `v` (without its halo) into buf[y][x]; a Porta code on failure. */
static int field2d_pack(const char *path, const porta_decomp *d, porta_view_f64 v, int halo,
                        int x_dim, double *buf) {
  const int64_t nx = d->local[0], ny = d->local[1];
  porta_mirror_f64 hv; /* host copy of the view (the view itself when the host can read it) */
  PORTA_CHECK(porta_view_f64_create_mirror_view(&hv, &v));
  int rc = hv.data != v.data ? porta_deep_copy(hv, v) : PORTA_SUCCESS;
  if (rc == PORTA_SUCCESS) rc = porta_fence("app_h5_write_field2d");
  if (rc == PORTA_SUCCESS && !buf)
    rc = porta_error(PORTA_ERROR_OUT_OF_MEMORY, "app_h5_write_field2d", path,
                     "no memory for the %lld x %lld block", (long long)nx, (long long)ny);
  for (int64_t k = 0; rc == PORTA_SUCCESS && k < ny; ++k)
    for (int64_t j = 0; j < nx; ++j) {
      int64_t i0 = x_dim == 0 ? halo + j : halo + k, i1 = x_dim == 0 ? halo + k : halo + j;
      buf[k * nx + j] = PORTA_S2(hv, i0, i1);
    }
  porta_mirror_f64_release(&hv);
  return rc;
}

int app_h5_write_field2d(app_h5 *h, const char *path, const porta_decomp *d, porta_view_f64 v,
                         int halo, int x_dim) {
  const int64_t nx = d->local[0], ny = d->local[1];
  double *buf = (double *)malloc(sizeof(double) * (size_t)(nx * ny > 0 ? nx * ny : 1));
  int local_rc = field2d_pack(path, d, v, halo, x_dim, buf);
  const int64_t global[2] = {d->global[1], d->global[0]};
  const int64_t start[2] = {d->offset[1], d->offset[0]};
  int64_t count[2] = {ny, nx};
  if (local_rc) count[0] = count[1] = 0;
  int rc = write_block(h, "app_h5_write_field2d", path, H5T_NATIVE_DOUBLE, 2, global, start, count,
                       buf, local_rc, 1);
  free(buf);
  return rc;
}

/* ---- grid axes ------------------------------------------------------------------------------ */

int app_h5_write_axis(app_h5 *h, const char *path, double x0, double dx, int64_t cells,
                      double x_end) {
  static const char op[] = "app_h5_write_axis";
  if (cells < 1 || !isfinite(x0) || !isfinite(dx) || !isfinite(x_end))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, path,
                       "%lld cells from %g by %g to %g: an axis needs at least one cell and "
                       "finite coordinates",
                       (long long)cells, x0, dx, x_end);
  double *v = (double *)malloc(sizeof(double) * (size_t)(cells + 1));
  if (!v)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, path, "no memory for %lld coordinates",
                       (long long)cells + 1);
  for (int64_t i = 0; i < cells; ++i) v[i] = x0 + dx * (double)i;
  v[cells] = x_end;
  int rc = write_1d(h, op, path, H5T_NATIVE_DOUBLE, v, cells + 1);
  free(v);
  return rc;
}
