/** @file app_h5.h
 *  The apps' HDF5 result file: parallel (MPI-IO), collective, one file per run. It is created
 *  as NAME.h5.tmp and renamed to NAME.h5 by app_h5_close(ok = 1), so a run that dies never
 *  leaves a file that looks finished. Every call is collective over the file's communicator
 *  and every rank must pass the same values (attributes, replicated tables).
 */
#ifndef APP_H5_H
#define APP_H5_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>

#include "app_decomp.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

typedef struct app_h5 {
  hid_t file;
  hid_t dxpl; /**< collective transfer property list */
  MPI_Comm comm;
  int rank;
  char path[1024]; /**< final name NAME.h5 */
  char tmp[1040];  /**< NAME.h5.tmp while writing */
} app_h5;

/** Create NAME.h5.tmp (NAME without ".h5"). Returns 0 or non-zero with a message in err. */
int app_h5_create(app_h5 *h, const char *name, MPI_Comm comm, char *err, size_t errlen);
/** Close; ok != 0: rename to NAME.h5 (rank 0); ok == 0: remove the temporary file. */
int app_h5_close(app_h5 *h, int ok);

/** Create group `path` ("/fields"). */
int app_h5_group(app_h5 *h, const char *path);
/** Attributes on the object at `obj` ("/" or a group or dataset path). */
int app_h5_attr_string(app_h5 *h, const char *obj, const char *name, const char *value);
int app_h5_attr_double(app_h5 *h, const char *obj, const char *name, double value);
int app_h5_attr_int(app_h5 *h, const char *obj, const char *name, int64_t value);
/** A 1D dataset of `n` values that every rank holds (rank 0 writes them, collectively). */
int app_h5_write_1d_double(app_h5 *h, const char *path, const double *v, int64_t n);
int app_h5_write_1d_int(app_h5 *h, const char *path, const int64_t *v, int64_t n);
/** A global 2D field of dataset shape [gy][gx] (x fastest, C order): each rank writes its
 *  owned block with a hyperslab. `v` has `halo` ghost layers; x is view dimension x_dim.
 *  Device views are copied to a host mirror first. */
int app_h5_write_field2d(app_h5 *h, const char *path, const app_decomp *d, porta_view_f64 v,
                         int halo, int x_dim);

/** Rank 0 writes an XDMF file for ParaView: a 2D uniform cell-centred grid of gx x gy cells
 *  with origin (x0, y0) and spacing (dx, dy) whose cell fields are the `nfields` datasets
 *  `h5file`:`paths[i]` (shape [gy][gx]). Returns 0 or non-zero. */
int app_xdmf_write_2d(const char *xmf_path, const char *h5file, int64_t gx, int64_t gy, double x0,
                      double y0, double dx, double dy, const char *const *names,
                      const char *const *paths, int nfields);

/** Rank 0 writes an XDMF temporal collection for ParaView (one time step per entry, the File >
 *  Open dialog then shows the series with its times): grid t is the grid of app_xdmf_write_2d
 *  at time times[t], its fields the datasets `h5file`:`groups[t]`/names[i] (shape [gy][gx]).
 *  Returns 0 or non-zero. */
int app_xdmf_write_2d_series(const char *xmf_path, const char *h5file, int64_t gx, int64_t gy,
                             double x0, double y0, double dx, double dy, const char *const *names,
                             int nfields, const char *const *groups, const double *times,
                             int nsteps);

PORTA_EXTERN_C_END

#endif /* APP_H5_H */
