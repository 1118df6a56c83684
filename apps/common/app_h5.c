/** @file app_h5.c
 *  Parallel HDF5 result file and XDMF descriptions (see app_h5.h). */
#include "app_h5.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app_file.h"
#include "app_mpi.h"

/* ---- errors --------------------------------------------------------------------------------
 * HDF5's automatic printing is switched off inside every call here (the message carries what
 * HDF5 said instead) and restored before returning. */

typedef struct h5_quiet {
  H5E_auto2_t func;
  void *data;
} h5_quiet;

static h5_quiet h5_quiet_begin(void) {
  h5_quiet q = {NULL, NULL};
  H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return q;
}

static void h5_quiet_end(h5_quiet q) { H5Eset_auto2(H5E_DEFAULT, q.func, q.data); }

/* The outermost (API) and innermost entries of HDF5's error stack. */
typedef struct h5_walk {
  int n;
  char first[256], last[256];
} h5_walk;

static herr_t h5_walk_cb(unsigned n, const H5E_error2_t *e, void *data) {
  (void)n;
  h5_walk *w = (h5_walk *)data;
  char *dst = w->n == 0 ? w->first : w->last;
  snprintf(dst, sizeof w->first, "%s: %s", e->func_name ? e->func_name : "?",
           e->desc ? e->desc : "?");
  ++w->n;
  return 0;
}

/* What HDF5 said about the call that just failed (read before any other HDF5 call clears it).
 * The innermost entry carries the OS's or MPI's reason where there is one ("MPI_File_open
 * failed: ... no such file or directory", "errno = 13, error message = 'Permission denied'"). */
static void h5_reason(char *buf, size_t len) {
  h5_walk w;
  memset(&w, 0, sizeof w);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, h5_walk_cb, &w);
  if (w.n == 0)
    snprintf(buf, len, "HDF5 gave no detail");
  else if (w.n == 1)
    snprintf(buf, len, "HDF5: %s", w.first);
  else
    snprintf(buf, len, "HDF5: %s <- %s", w.first, w.last);
}

/* Record an HDF5 failure of `call` in function `op` on object `label`; returns the code. */
static int h5_fail(const char *op, const char *label, const app_h5 *h, const char *call) {
  char reason[600];
  h5_reason(reason, sizeof reason);
  return porta_error(PORTA_ERROR_IO, op, label, "%s failed in '%s' (%s)", call, h ? h->tmp : "?",
                     reason);
}

/* ---- file ----------------------------------------------------------------------------------
 * The temporary is created by rank 0 with open(O_CREAT | O_EXCL | O_NOFOLLOW) under a name of
 * its own (FINAL.tmp.PID.RANDOM): a name another run cannot share and nobody can plant a link
 * at beforehand. HDF5 then opens that file (H5F_ACC_TRUNC of an empty file); rank 0 checks it
 * is still the file it created. */

/* What rank 0 found preparing the file: the errno and the step it failed at. */
enum { PREP_OK = 0, PREP_FINAL_IS_DIR, PREP_XMF, PREP_CREATE };

static int create_impl(app_h5 *h, const char *name, MPI_Comm comm) {
  static const char op[] = "app_h5_create";
  memset(h, 0, sizeof *h);
  h->file = -1;
  h->dxpl = -1;
  h->cleanup = -1;
  h->comm = comm;
  MPI_Comm_rank(comm, &h->rank);
  if (!name || !name[0])
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "empty file name");
  if (snprintf(h->path, sizeof h->path, "%s.h5", name) >= (int)sizeof h->path)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, name, "file name too long");
  app_mpi_io_env();

  /* rank 0: the result's name must be free for the final rename (a directory there would only
   * fail it after the run), so must NAME.xmf, written beside it after the run (a directory
   * there would fail the run after NAME.h5 was replaced), and the temporary is created now, so
   * a directory that is missing or not writable fails here with the OS's reason */
  int prep[2] = {PREP_OK, 0}; /* step, errno */
  int fd = -1;
  struct stat made;
  char xmf[sizeof h->path + 8];
  if (h->rank == 0) {
    struct stat sb;
    snprintf(xmf, sizeof xmf, "%s.xmf", name);
    if (lstat(h->path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      prep[0] = PREP_FINAL_IS_DIR, prep[1] = EISDIR;
      snprintf(h->tmp, sizeof h->tmp, "%s.tmp", h->path);
    } else if (lstat(xmf, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      prep[0] = PREP_XMF, prep[1] = EISDIR;
      snprintf(h->tmp, sizeof h->tmp, "%s", xmf);
    } else if ((fd = app_file_tmp_create(h->path, h->tmp, sizeof h->tmp, &prep[1])) < 0 ||
               fstat(fd, &made) != 0) {
      if (fd >= 0) prep[1] = errno, close(fd), unlink(h->tmp), fd = -1;
      prep[0] = PREP_CREATE;
    } else {
      h->cleanup = app_cleanup_add(h->tmp);
    }
  }
  if (MPI_Bcast(prep, 2, MPI_INT, 0, comm) != MPI_SUCCESS ||
      MPI_Bcast(h->tmp, (int)sizeof h->tmp, MPI_CHAR, 0, comm) != MPI_SUCCESS) {
    if (fd >= 0) close(fd), unlink(h->tmp);
    app_cleanup_forget(h->cleanup);
    h->cleanup = -1;
    return porta_error(PORTA_ERROR_IO, op, h->path, "MPI_Bcast failed");
  }
  if (prep[0] == PREP_FINAL_IS_DIR)
    return porta_error(PORTA_ERROR_IO, op, h->path,
                       "the result cannot be written under this name: %s", strerror(prep[1]));
  if (prep[0] == PREP_XMF)
    return porta_error(PORTA_ERROR_IO, op, h->tmp,
                       "the result's XDMF description cannot be written under this name: %s",
                       strerror(prep[1]));
  if (prep[0] == PREP_CREATE)
    return porta_error(PORTA_ERROR_IO, op, h->tmp, "cannot create the temporary result file: %s",
                       strerror(prep[1]));

  /* every rank opens it; [0] this rank failed (message recorded), [1] rank 0 found another file
   * under the temporary's name after HDF5 opened it */
  int bad[2] = {0, 0}, all[2] = {0, 0};
  int rc = PORTA_SUCCESS;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  /* the 1.8 file format: attributes of any size (over 64 KiB they go to dense storage) */
  if (fapl < 0 || H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0 ||
      H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0) {
    rc = h5_fail(op, h->tmp, h, "H5Pset_fapl_mpio/H5Pset_libver_bounds");
    bad[0] = 1;
  } else {
    /* With the MPI-IO driver the OS's reason comes through MPI's error string in HDF5's stack;
     * errno is not reliable after H5Fcreate (MPI leaves unrelated values in it). */
    h->file = H5Fcreate(h->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (h->file < 0) rc = h5_fail(op, h->tmp, h, "H5Fcreate"), bad[0] = 1;
  }
  if (fapl >= 0) H5Pclose(fapl);
  if (fd >= 0) {
    struct stat now;
    if (lstat(h->tmp, &now) != 0 || !S_ISREG(now.st_mode) || now.st_dev != made.st_dev ||
        now.st_ino != made.st_ino)
      bad[1] = 1;
    close(fd);
  }
  if (h->file >= 0) {
    h->dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (h->dxpl < 0 || H5Pset_dxpl_mpio(h->dxpl, H5FD_MPIO_COLLECTIVE) < 0)
      rc = h5_fail(op, h->tmp, h, "H5Pset_dxpl_mpio"), bad[0] = 1;
  }
  MPI_Allreduce(bad, all, 2, MPI_INT, MPI_MAX, comm);
  if (all[0] == 0 && all[1] == 0) return PORTA_SUCCESS;
  if (h->dxpl >= 0) H5Pclose(h->dxpl);
  if (h->file >= 0) H5Fclose(h->file);
  h->file = h->dxpl = -1;
  MPI_Barrier(comm);
  if (h->rank == 0 && !all[1]) unlink(h->tmp); /* another file there now: not ours to remove */
  app_cleanup_forget(h->cleanup);
  h->cleanup = -1;
  if (all[1])
    return porta_error(PORTA_ERROR_IO, op, h->tmp,
                       "the temporary result file was replaced by another file while it was "
                       "opened; nothing is written");
  return bad[0] ? rc : porta_error(PORTA_ERROR_IO, op, h->tmp, "H5Fcreate failed on another rank");
}

int app_h5_create(app_h5 *h, const char *name, MPI_Comm comm) {
  h5_quiet q = h5_quiet_begin();
  int rc = create_impl(h, name, comm);
  h5_quiet_end(q);
  return rc;
}

int app_h5_close(app_h5 *h, int ok) {
  static const char op[] = "app_h5_close";
  h5_quiet q = h5_quiet_begin();
  int rc = PORTA_SUCCESS;
  /* [0]: 0 ok, 1 H5Fclose failed, 2 rename failed; [1]: errno of the rename */
  int st[2] = {0, 0};
  if (h->dxpl >= 0) H5Pclose(h->dxpl);
  if (h->file >= 0 && H5Fclose(h->file) < 0) {
    st[0] = 1;
    if (ok) rc = h5_fail(op, h->tmp, h, "H5Fclose");
  }
  h->file = -1;
  h->dxpl = -1;
  MPI_Barrier(h->comm);
  if (h->rank == 0) {
    /* rename replaces whatever is at the final name (a link itself, never its target) */
    if (ok && st[0] == 0) {
      if (rename(h->tmp, h->path) != 0) st[1] = errno, st[0] = 2;
    } else {
      unlink(h->tmp);
    }
    /* renamed, removed, or complete and kept where it is (a failed rename) */
    app_cleanup_forget(h->cleanup);
    h->cleanup = -1;
  }
  int all[2] = {0, 0};
  MPI_Allreduce(st, all, 2, MPI_INT, MPI_MAX, h->comm);
  if (ok && rc == PORTA_SUCCESS && all[0] == 1)
    rc = porta_error(PORTA_ERROR_IO, op, h->tmp, "H5Fclose failed on another rank");
  else if (ok && rc == PORTA_SUCCESS && all[0] == 2)
    rc = porta_error(PORTA_ERROR_IO, op, h->tmp,
                     "cannot rename it to '%s': %s; the complete result is left in '%s'", h->path,
                     strerror(all[1]), h->tmp);
  else if (!ok && all[0] != 0)
    rc = PORTA_ERROR_IO;
  h5_quiet_end(q);
  return rc;
}

/* ---- groups and attributes ----------------------------------------------------------------- */

int app_h5_group(app_h5 *h, const char *path) {
  h5_quiet q = h5_quiet_begin();
  int rc = PORTA_SUCCESS;
  hid_t g = H5Gcreate2(h->file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    rc = h5_fail("app_h5_group", path, h, "H5Gcreate2");
  else
    H5Gclose(g);
  h5_quiet_end(q);
  return rc;
}

static int attr_write(app_h5 *h, const char *op, const char *obj, const char *name, hid_t type,
                      const void *v) {
  char what[320];
  h5_quiet q = h5_quiet_begin();
  int rc = PORTA_SUCCESS;
  hid_t o = H5Oopen(h->file, obj, H5P_DEFAULT);
  if (o < 0) {
    rc = h5_fail(op, obj, h, "H5Oopen");
  } else {
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(o, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) {
      snprintf(what, sizeof what, "H5Acreate2 of attribute '%s'", name);
      rc = h5_fail(op, obj, h, what);
    } else {
      if (H5Awrite(a, type, v) < 0) {
        snprintf(what, sizeof what, "H5Awrite of attribute '%s'", name);
        rc = h5_fail(op, obj, h, what);
      }
      H5Aclose(a);
    }
    H5Sclose(sp);
    H5Oclose(o);
  }
  h5_quiet_end(q);
  return rc;
}

int app_h5_attr_string(app_h5 *h, const char *obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  size_t n = strlen(value);
  H5Tset_size(t, n > 0 ? n : 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  int rc = attr_write(h, "app_h5_attr_string", obj, name, t, n > 0 ? value : "");
  H5Tclose(t);
  return rc;
}

int app_h5_attr_double(app_h5 *h, const char *obj, const char *name, double value) {
  return attr_write(h, "app_h5_attr_double", obj, name, H5T_NATIVE_DOUBLE, &value);
}

int app_h5_attr_int(app_h5 *h, const char *obj, const char *name, int64_t value) {
  return attr_write(h, "app_h5_attr_int", obj, name, H5T_NATIVE_INT64, &value);
}

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

/* The block writer behind every distributed dataset. `local_rc` is a failure this rank already
 * had preparing its block (its message recorded): the rank still takes part in the agreement,
 * so every rank returns an error and none is left waiting in a collective HDF5 call. */
static int write_block(app_h5 *h, const char *op, const char *path, hid_t type, int ndims,
                       const int64_t *global, const int64_t *start, const int64_t *count,
                       const void *buf, int local_rc) {
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
  h5_quiet q = h5_quiet_begin();
  hid_t fs = H5Screate_simple(ndims, gdim, NULL);
  hid_t ds = H5Dcreate2(h->file, path, type, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (ds < 0) {
    rc = h5_fail(op, path, h, "H5Dcreate2");
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
      rc = h5_fail(op, path, h, "H5Dwrite");
    H5Sclose(ms);
    H5Dclose(ds);
  }
  H5Sclose(fs);
  h5_quiet_end(q);
  return rc;
}

int app_h5_write_block_f64(app_h5 *h, const char *path, int ndims, const int64_t *global,
                           const int64_t *start, const int64_t *count, const double *buf) {
  return write_block(h, "app_h5_write_block_f64", path, H5T_NATIVE_DOUBLE, ndims, global, start,
                     count, buf, PORTA_SUCCESS);
}

int app_h5_write_block_i64(app_h5 *h, const char *path, int ndims, const int64_t *global,
                           const int64_t *start, const int64_t *count, const int64_t *buf) {
  return write_block(h, "app_h5_write_block_i64", path, H5T_NATIVE_INT64, ndims, global, start,
                     count, buf, PORTA_SUCCESS);
}

/* A replicated 1D table: rank 0 writes all of it, the others an empty block. */
static int write_1d(app_h5 *h, const char *op, const char *path, hid_t type, const void *v,
                    int64_t n) {
  const int64_t start = 0, count = h->rank == 0 ? n : 0;
  return write_block(h, op, path, type, 1, &n, &start, &count, v, PORTA_SUCCESS);
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
  return write_block(h, op, path, type, 1, &total, &offset, &n, v, local_rc);
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
static int field2d_pack(const char *path, const app_decomp *d, porta_view_f64 v, int halo,
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

int app_h5_write_field2d(app_h5 *h, const char *path, const app_decomp *d, porta_view_f64 v,
                         int halo, int x_dim) {
  const int64_t nx = d->local[0], ny = d->local[1];
  double *buf = (double *)malloc(sizeof(double) * (size_t)(nx * ny > 0 ? nx * ny : 1));
  int local_rc = field2d_pack(path, d, v, halo, x_dim, buf);
  const int64_t global[2] = {d->global[1], d->global[0]};
  const int64_t start[2] = {d->offset[1], d->offset[0]};
  int64_t count[2] = {ny, nx};
  if (local_rc) count[0] = count[1] = 0;
  int rc = write_block(h, "app_h5_write_field2d", path, H5T_NATIVE_DOUBLE, 2, global, start, count,
                       buf, local_rc);
  free(buf);
  return rc;
}

/* ---- XDMF ----------------------------------------------------------------------------------- */

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

/* A grid of `ndims` (2 or 3) dimensions, arrays in XDMF's order (slowest first): rectilinear
 * where `axes` is given (the node coordinates of axis d, x first, are the dataset axes[d] of
 * points[ndims - 1 - d] values), else uniform from `origin` by `spacing`. */
typedef struct xdmf_mesh {
  int ndims;
  int64_t points[3];       /**< points per dimension */
  const char *const *axes; /**< node coordinate datasets, x first (NULL: uniform) */
  double origin[3];        /**< uniform: the first point */
  double spacing[3];       /**< uniform: the point spacing */
  int node_centred;        /**< fields at points (else in cells: points - 1 per dimension) */
} xdmf_mesh;

static void xdmf_i64s(FILE *f, const int64_t *v, int n, int64_t minus) {
  for (int i = 0; i < n; ++i) fprintf(f, i ? " %lld" : "%lld", (long long)(v[i] - minus));
}

/* The geometry of `m`; every real a double (Precision 8: the readers take an undeclared one as
 * a 32-bit float). */
static void xdmf_geometry(FILE *f, int ind, const char *h5file, const xdmf_mesh *m) {
  const int nd = m->ndims;
  static const char item[] = "<DataItem NumberType=\"Float\" Precision=\"8\" Format=";
  if (m->axes) {
    fprintf(f, "%*s <Geometry GeometryType=\"%s\">\n", ind, "", nd == 2 ? "VXVY" : "VXVYVZ");
    for (int d = 0; d < nd; ++d)
      fprintf(f, "%*s  %s\"HDF\" Dimensions=\"%lld\">%s:%s</DataItem>\n", ind, "", item,
              (long long)m->points[nd - 1 - d], h5file, m->axes[d]);
  } else {
    fprintf(f, "%*s <Geometry GeometryType=\"%s\">\n", ind, "",
            nd == 2 ? "ORIGIN_DXDY" : "ORIGIN_DXDYDZ");
    const double *v[2] = {m->origin, m->spacing};
    for (int k = 0; k < 2; ++k) {
      fprintf(f, "%*s  %s\"XML\" Dimensions=\"%d\">", ind, "", item, nd);
      for (int i = 0; i < nd; ++i) fprintf(f, i ? " %.17g" : "%.17g", v[k][i]);
      fprintf(f, "</DataItem>\n");
    }
  }
  fprintf(f, "%*s </Geometry>\n", ind, "");
}

/* One grid: topology, geometry and the fields `prefix`/names[i] (prefix "" takes paths[i] as
 * given), indented by `ind` spaces; `time` >= 0 adds a Time. */
static void xdmf_grid(FILE *f, int ind, const char *grid_name, double time, const char *h5file,
                      const xdmf_mesh *m, const char *const *names, const char *const *paths,
                      const char *prefix, int nfields) {
  const int nd = m->ndims;
  fprintf(f, "%*s<Grid Name=\"%s\" GridType=\"Uniform\">\n", ind, "", grid_name);
  if (time >= 0.0) fprintf(f, "%*s <Time Value=\"%.17g\"/>\n", ind, "", time);
  fprintf(f, "%*s <Topology TopologyType=\"%dD%sMesh\" Dimensions=\"", ind, "", nd,
          m->axes ? "Rect" : "CoRect");
  xdmf_i64s(f, m->points, nd, 0);
  fprintf(f, "\"/>\n");
  xdmf_geometry(f, ind, h5file, m);
  for (int i = 0; i < nfields; ++i) {
    fprintf(f,
            "%*s <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"%s\">\n"
            "%*s  <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"",
            ind, "", names[i], m->node_centred ? "Node" : "Cell", ind, "");
    xdmf_i64s(f, m->points, nd, m->node_centred ? 0 : 1);
    fprintf(f, "\">%s:%s%s%s</DataItem>\n%*s </Attribute>\n", h5file, prefix, prefix[0] ? "/" : "",
            prefix[0] ? names[i] : paths[i], ind, "");
  }
  fprintf(f, "%*s</Grid>\n", ind, "");
}

static const char xdmf_head[] = "<?xml version=\"1.0\" ?>\n"
                                "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
                                "<Xdmf Version=\"3.0\">\n"
                                " <Domain>\n";
static const char xdmf_tail[] = " </Domain>\n</Xdmf>\n";

/* An XDMF file being written (app_text_file: a temporary renamed over the path when complete,
 * so a link at the path is replaced, not followed). */
static int xdmf_open(const char *op, const char *path, app_text_file *x) {
  PORTA_CHECK(app_text_file_open(op, path, x));
  fputs(xdmf_head, x->f);
  return PORTA_SUCCESS;
}

static int xdmf_close(const char *op, app_text_file *x) {
  fputs(xdmf_tail, x->f);
  return app_text_file_commit(op, x);
}

/* The 2D cell-centred grid of gx x gy cells. */
static xdmf_mesh xdmf_mesh_2d(int64_t gx, int64_t gy, const char *const *axes) {
  xdmf_mesh m;
  memset(&m, 0, sizeof m);
  m.ndims = 2;
  m.points[0] = gy + 1, m.points[1] = gx + 1;
  m.axes = axes;
  return m;
}

static int xdmf_check_2d(const char *op, const char *xmf_path, int64_t gx, int64_t gy) {
  if (gx < 1 || gy < 1)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, xmf_path,
                       "%lld x %lld cells: a grid needs at least one cell per dimension",
                       (long long)gx, (long long)gy);
  return PORTA_SUCCESS;
}

int app_xdmf_write_2d(const char *xmf_path, const char *h5file, int64_t gx, int64_t gy,
                      const char *const axes[2], const char *const *names, const char *const *paths,
                      int nfields) {
  static const char op[] = "app_xdmf_write_2d";
  PORTA_CHECK(xdmf_check_2d(op, xmf_path, gx, gy));
  const xdmf_mesh m = xdmf_mesh_2d(gx, gy, axes);
  app_text_file x;
  PORTA_CHECK(xdmf_open(op, xmf_path, &x));
  xdmf_grid(x.f, 2, "mesh", -1.0, h5file, &m, names, paths, "", nfields);
  return xdmf_close(op, &x);
}

int app_xdmf_write_2d_series(const char *xmf_path, const char *h5file, int64_t gx, int64_t gy,
                             const char *const axes[2], const char *const *names, int nfields,
                             const char *const *groups, const double *times, int nsteps) {
  static const char op[] = "app_xdmf_write_2d_series";
  PORTA_CHECK(xdmf_check_2d(op, xmf_path, gx, gy));
  const xdmf_mesh m = xdmf_mesh_2d(gx, gy, axes);
  app_text_file x;
  PORTA_CHECK(xdmf_open(op, xmf_path, &x));
  fprintf(x.f, "  <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (int t = 0; t < nsteps; ++t) {
    const char *base = strrchr(groups[t], '/');
    xdmf_grid(x.f, 3, base ? base + 1 : groups[t], times[t], h5file, &m, names, NULL, groups[t],
              nfields);
  }
  fprintf(x.f, "  </Grid>\n");
  return xdmf_close(op, &x);
}

int app_xdmf_write_3d(const char *xmf_path, const char *h5file, const int64_t points[3],
                      const double origin[3], const double spacing[3], const char *const *names,
                      const char *const *paths, int nfields, int node_centred) {
  static const char op[] = "app_xdmf_write_3d";
  const int64_t least = node_centred ? 1 : 2;
  if (points[0] < least || points[1] < least || points[2] < least)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, xmf_path,
                       "%lld x %lld x %lld points: %s fields need at least %lld per dimension",
                       (long long)points[0], (long long)points[1], (long long)points[2],
                       node_centred ? "node" : "cell", (long long)least);
  xdmf_mesh m;
  memset(&m, 0, sizeof m);
  m.ndims = 3;
  m.node_centred = node_centred != 0;
  for (int i = 0; i < 3; ++i) { /* (x, y, z) -> XDMF's (z, y, x) */
    m.points[i] = points[2 - i];
    m.origin[i] = origin[2 - i];
    m.spacing[i] = spacing[2 - i];
  }
  app_text_file x;
  PORTA_CHECK(xdmf_open(op, xmf_path, &x));
  xdmf_grid(x.f, 2, "mesh", -1.0, h5file, &m, names, paths, "", nfields);
  return xdmf_close(op, &x);
}
