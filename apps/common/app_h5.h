/** @file app_h5.h
 *  The apps' HDF5 result file: parallel (MPI-IO), collective, one file per run. It is written
 *  as a temporary beside NAME.h5 and renamed to NAME.h5 by app_h5_close(ok = 1), so a run
 *  that dies never leaves a file that looks finished. Every call is collective over the file's
 *  communicator and every rank must pass the same values (attributes, replicated tables,
 *  global shapes).
 *
 *  The temporary, NAME.h5.tmp.PID.RANDOM (PID and RANDOM of rank 0, told to every rank), is
 *  created by rank 0 with O_CREAT | O_EXCL | O_NOFOLLOW: two runs writing the same NAME never
 *  share it, and a link planted at any name is never followed. app_h5_create creates it at
 *  once (call it before the computation: a missing or read-only directory, or a directory
 *  named NAME.h5 or NAME.xmf, fails there with the OS's reason) and registers it with
 * app_cleanup_add, so SIGINT, SIGTERM, SIGHUP, app_fatal and app_exit_all remove it. If the final
 * rename fails the complete temporary is kept and the message names it. XDMF files are written the
 * same way (app_file.h: an exclusive temporary renamed over NAME.xmf, so a link there is replaced,
 *  not followed). Where NAME.h5.tmp.PID.RANDOM would pass the directory's longest file name,
 *  NAME.h5 is cut to fit before ".tmp.PID.RANDOM" (app_file_tmp_create).
 *
 *  Before the collective open every rank checks that the temporary's name leads it to the file
 *  rank 0 created (the same inode): ranks in different working directories with a relative NAME
 *  would otherwise each open a file of their own and wait for each other. Where one does not,
 *  every rank returns the same PORTA_ERROR_INVALID_ARGUMENT naming rank 0's directory and that
 *  rank's, and the temporary is removed.
 *
 *  Files use the HDF5 1.8 format, so an attribute may be larger than 64 KiB (dense storage).
 *  The MPI-IO environment is set by app_mpi_io_env (long paths with Open MPI).
 *
 *  Errors follow the apps/common convention (app_common.h): a Porta code, with a message naming
 *  the function, the file or dataset path and the reason (HDF5's own error stack, and the OS's
 *  strerror where there is one) in porta_last_error_message(). HDF5 prints nothing itself.
 */
#ifndef APP_H5_H
#define APP_H5_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>

#include "app_cli.h"
#include "porta/exchange_decomp.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Most dimensions app_h5_write_block_* takes. */
#define APP_H5_MAX_DIMS 4

typedef struct app_h5 {
  hid_t file;
  hid_t dxpl; /**< collective transfer property list */
  MPI_Comm comm;
  int rank;
  char path[APP_PATH_MAX];     /**< final name NAME.h5 */
  char tmp[APP_PATH_MAX + 64]; /**< the temporary NAME.h5.tmp.PID.RANDOM while writing */
  int cleanup;                 /**< rank 0: its app_cleanup_add slot (-1: none) */
  int fd;         /**< rank 0: a descriptor of the temporary, kept to reserve its space before the
                       close (-1: none) */
  char cause[96]; /**< the last HDF5 failure's cause in words ("No space left on device"), ""
                       where none is known */
  /** The fields' digest: over every value of the distributed datasets written so far (the
   *  fields, miniFE's solution, miniMD's atoms; not the replicated tables, which hold
   *  timings), the sum of a 64-bit hash of (dataset, global position, the value's bits), the
   *  same on every rank. It depends on the values alone, not on how the ranks split them. */
  uint64_t digest;
  int64_t digested; /**< values in it */
} app_h5;

/** Stop the run (app_fatal on this rank, which removes the temporary) after a failed write of
 *  `h`'s result: the cause in words first where one is known ("No space left on device while
 *  writing the result 'NAME.h5': ..."), then the result's name, then the writer's message. The
 *  writer's messages never say the cause (it is kept in h->cause), so it is said once. */
void app_h5_fatal(const app_h5 *h) __attribute__((noreturn));
/** Stop every rank (app_exit_all, APP_EXIT_RUN_FAILED) after app_h5_create(h, ...) failed (they
 *  all see the same outcome): the cause in words first where one is known ("No space left on
 *  device: H5Fcreate failed ..."), then the writer's message. */
void app_h5_create_failed(const app_h5 *h) __attribute__((noreturn));

/** Check a call that writes `h`'s result file: on failure, app_h5_fatal(h). */
#define APP_H5_CHECK(h, call)                                                                      \
  do {                                                                                             \
    if ((call) != PORTA_SUCCESS) app_h5_fatal(h);                                                  \
  } while (0)

/** Create the temporary of NAME.h5 (NAME without ".h5"); see above. */
int app_h5_create(app_h5 *h, const char *name, MPI_Comm comm);
/** Close; ok != 0: rename to NAME.h5 (rank 0; if that fails the error names the complete
 *  temporary, which is kept); ok == 0: remove the temporary file. With
 *  ok == 0 (discarding after an earlier failure) nothing is recorded, so the earlier message
 *  stays the one porta_last_error_message() returns.
 *
 *  HDF5 writes the file's last metadata inside H5Fclose, whose collective steps wait for every
 *  rank: a write failing there on one rank only (a file system full at the last flush) would
 *  leave the ranks waiting for each other. So before H5Fclose rank 0 reserves the file's space
 *  up to a bound of where those writes go (its size, plus HDF5's metadata cache, plus the
 *  aggregators' blocks; fallocate with FALLOC_FL_KEEP_SIZE, the size unchanged; where the file
 *  system cannot, the close goes on as before) and the ranks agree on the outcome. Where it fails
 * (ENOSPC, EDQUOT, EFBIG), and whenever ok == 0, rank 0 first empties the temporary, which is being
 * discarded, and reserves again, so the close's writes find room; where even that fails the HDF5
 * file is left open (the caller stops the run) rather than closed at the risk of a hang. A failed
 *  reservation with ok != 0 is an error whose cause (h->cause) is the OS's reason. */
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

/** A distributed N-dimensional dataset (1 <= ndims <= APP_H5_MAX_DIMS) of shape `global`:
 *  every rank writes its own block, the hyperslab `start` .. `start + count` (all three in C
 *  order, slowest dimension first). `buf` is a host buffer of prod(count) values in C order;
 *  a rank with an empty block (a zero count; `buf` may then be NULL) still takes part, with an
 *  empty selection. The arguments are checked collectively first, so a bad block on one rank
 *  fails the call on every rank instead of leaving the others in a collective. Blocks should
 *  not overlap (where they do, which rank's value lands is undefined). */
int app_h5_write_block_f64(app_h5 *h, const char *path, int ndims, const int64_t *global,
                           const int64_t *start, const int64_t *count, const double *buf);
int app_h5_write_block_i64(app_h5 *h, const char *path, int ndims, const int64_t *global,
                           const int64_t *start, const int64_t *count, const int64_t *buf);

/** A 1D dataset that is the concatenation of every rank's `n_local` values in rank order: this
 *  rank's block starts at the MPI_Exscan of the n_local, the length is their sum. `*offset_out`
 *  (may be NULL) receives this rank's offset. */
int app_h5_write_1d_concat_f64(app_h5 *h, const char *path, const double *v, int64_t n_local,
                               int64_t *offset_out);
int app_h5_write_1d_concat_i64(app_h5 *h, const char *path, const int64_t *v, int64_t n_local,
                               int64_t *offset_out);

/** A global 2D field of dataset shape [gy][gx] (x fastest, C order): each rank packs its owned
 *  cells and writes them as a block (app_h5_write_block_f64). `v` has `halo` ghost layers; x
 *  is view dimension x_dim. Device views are copied to a host mirror first. */
int app_h5_write_field2d(app_h5 *h, const char *path, const porta_decomp *d, porta_view_f64 v,
                         int halo, int x_dim);

/** The node coordinates of one axis of a uniform grid, `cells` + 1 values: x0 + i dx, the last
 *  one x_end exactly (so a reader's bounds are the deck's, not x0 + cells dx rounded). Every rank
 *  passes the same values; rank 0 writes them. The XDMF descriptions below read their grid's
 *  geometry from such datasets. */
int app_h5_write_axis(app_h5 *h, const char *path, double x0, double dx, int64_t cells,
                      double x_end);

/* XDMF descriptions for ParaView, written by rank 0 alone. Every real is declared a double
 * (Precision 8; the readers take an undeclared one as a 32-bit float: spacing 0.1 had been read
 * as 0.10000000149). */

/** A 2D cell-centred grid of gx x gy cells whose node coordinates are the datasets
 *  `h5file`:`axes[0]` (gx + 1 values, x) and `axes[1]` (gy + 1, y), from app_h5_write_axis; its
 *  cell fields are the `nfields` datasets `h5file`:`paths[i]` (shape [gy][gx]). The grid is
 *  rectilinear (2DRectMesh, VXVY): every ParaView XDMF reader then puts it in the x-y plane,
 *  face-on, with exact bounds (a 2DCoRectMesh is read as a grid one point wide in x, its values
 *  in the y-z plane, and the Xdmf3 readers' probes return cell 0's value everywhere). */
int app_xdmf_write_2d(const char *xmf_path, const char *h5file, int64_t gx, int64_t gy,
                      const char *const axes[2], const char *const *names, const char *const *paths,
                      int nfields);

/** A temporal collection (one time step per entry, the File > Open dialog then shows the series
 *  with its times): grid t is the grid of app_xdmf_write_2d at time times[t], its fields the
 *  datasets `h5file`:`groups[t]`/names[i] (shape [gy][gx]). */
int app_xdmf_write_2d_series(const char *xmf_path, const char *h5file, int64_t gx, int64_t gy,
                             const char *const axes[2], const char *const *names, int nfields,
                             const char *const *groups, const double *times, int nsteps);

/** A uniform 3D grid (3DCoRectMesh: ParaView's image data, whose probes find points on its
 *  faces, where a rectilinear grid's miss the upper faces) of points[0] x points[1] x points[2]
 *  points (x, y, z) with `origin` and `spacing` (x, y, z). Its fields are the datasets
 *  `h5file`:`paths[i]` of shape [nz][ny][nx] (node_centred != 0: values at points) or
 *  [nz-1][ny-1][nx-1] (values in cells). */
int app_xdmf_write_3d(const char *xmf_path, const char *h5file, const int64_t points[3],
                      const double origin[3], const double spacing[3], const char *const *names,
                      const char *const *paths, int nfields, int node_centred);

PORTA_EXTERN_C_END

#endif /* APP_H5_H */
