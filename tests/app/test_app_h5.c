/** @file test_app_h5.c
 *  The distributed HDF5 writer (app_h5) on any number of ranks: a block-decomposed 3D array
 *  (f64 and i64, uneven blocks from porta_decomp), a 2D array with empty blocks on some ranks, and
 *  1D arrays concatenated over the ranks (some of them empty) are written, then read back on
 *  rank 0 with the plain HDF5 API and checked value by value, with the offsets. Errors must be
 *  non-zero Porta codes on every rank whose message names the path: a dataset that exists, a
 *  block outside the global shape on one rank, a negative n_local, a file in a directory that
 *  does not exist. Also an axis of node coordinates (app_h5_write_axis) and the XDMF
 *  descriptions of a 3D grid (node and cell fields) and a 2D one.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "porta/exchange_decomp.h"
#include "app_h5.h"
#include "porta/porta.h"

#include "app_expect_mpi.h"

static int rank = 0, nranks = 1;

/* Values that are exact in a double and tell position and dataset apart. */
static double f3(int64_t z, int64_t y, int64_t x) { return 10000.0 * z + 100.0 * y + x + 0.25; }
static int64_t i3(int64_t z, int64_t y, int64_t x) { return -(1000000 * z + 1000 * y + x) - 7; }
static double c1(int64_t i) { return 0.5 * (double)i - 3.0; }
static int64_t c1i(int r, int64_t k) { return 1000 * r + k; }

/* Rank r owns r rows of the 2D array (rank 0 none): rows sum(0..r-1) .. +r. */
static int64_t rows_before(int r) { return (int64_t)r * (r - 1) / 2; }
/* Rank r of the concatenated f64 array holds r + 2 values on even ranks, none on odd ones. */
static int64_t concat_n(int r) { return r % 2 == 0 ? r + 2 : 0; }

static void *read_all(hid_t f, const char *path, hid_t type, int *nd, hsize_t *dims) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) {
    EXPECT(0, "no dataset %s", path);
    return NULL;
  }
  hid_t s = H5Dget_space(d);
  *nd = H5Sget_simple_extent_ndims(s);
  H5Sget_simple_extent_dims(s, dims, NULL);
  hssize_t n = H5Sget_simple_extent_npoints(s);
  void *v = malloc(8 * (size_t)(n > 0 ? n : 1));
  if (v && n > 0 && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
    EXPECT(0, "cannot read %s", path);
    free(v);
    v = NULL;
  }
  H5Sclose(s);
  H5Dclose(d);
  return v;
}

/* Rank 0: read the finished file back and check everything. */
static void check_file(const char *file, const int64_t *g3 /* z y x */) {
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT(f >= 0, "cannot open %s", file);
  if (f < 0) return;
  int nd = 0;
  hsize_t dims[4] = {0, 0, 0, 0};

  double *a = (double *)read_all(f, "/block3d", H5T_NATIVE_DOUBLE, &nd, dims);
  EXPECT(nd == 3 && dims[0] == (hsize_t)g3[0] && dims[1] == (hsize_t)g3[1] &&
             dims[2] == (hsize_t)g3[2],
         "/block3d shape %d: %llu %llu %llu", nd, (unsigned long long)dims[0],
         (unsigned long long)dims[1], (unsigned long long)dims[2]);
  int bad = 0;
  for (int64_t z = 0; a && z < g3[0]; ++z)
    for (int64_t y = 0; y < g3[1]; ++y)
      for (int64_t x = 0; x < g3[2]; ++x)
        if (a[(z * g3[1] + y) * g3[2] + x] != f3(z, y, x) && bad++ < 5)
          EXPECT(0, "/block3d[%lld][%lld][%lld] = %.17g, want %.17g", (long long)z, (long long)y,
                 (long long)x, a[(z * g3[1] + y) * g3[2] + x], f3(z, y, x));
  EXPECT(bad == 0, "/block3d: %d wrong values", bad);
  free(a);

  int64_t *b = (int64_t *)read_all(f, "/block3d_i64", H5T_NATIVE_INT64, &nd, dims);
  EXPECT(nd == 3 && dims[0] == (hsize_t)g3[0] && dims[2] == (hsize_t)g3[2], "/block3d_i64 shape");
  bad = 0;
  for (int64_t z = 0; b && z < g3[0]; ++z)
    for (int64_t y = 0; y < g3[1]; ++y)
      for (int64_t x = 0; x < g3[2]; ++x)
        if (b[(z * g3[1] + y) * g3[2] + x] != i3(z, y, x)) ++bad;
  EXPECT(bad == 0, "/block3d_i64: %d wrong values", bad);
  free(b);

  /* 2D rows: rank r's rows hold r * 10 + column */
  const int64_t nrows = rows_before(nranks), ncols = 3;
  double *r2 = (double *)read_all(f, "/rows2d", H5T_NATIVE_DOUBLE, &nd, dims);
  EXPECT(nd == 2 && dims[0] == (hsize_t)nrows && dims[1] == (hsize_t)ncols,
         "/rows2d shape %llu x %llu, want %lld x %lld", (unsigned long long)dims[0],
         (unsigned long long)dims[1], (long long)nrows, (long long)ncols);
  bad = 0;
  for (int r = 1; r2 && r < nranks; ++r)
    for (int64_t i = rows_before(r); i < rows_before(r) + r; ++i)
      for (int64_t j = 0; j < ncols; ++j)
        if (r2[i * ncols + j] != 10.0 * r + (double)j) ++bad;
  EXPECT(bad == 0, "/rows2d: %d wrong values", bad);
  free(r2);

  int64_t total = 0;
  for (int r = 0; r < nranks; ++r) total += concat_n(r);
  double *c = (double *)read_all(f, "/concat_f64", H5T_NATIVE_DOUBLE, &nd, dims);
  EXPECT(nd == 1 && dims[0] == (hsize_t)total, "/concat_f64 length %llu, want %lld",
         (unsigned long long)dims[0], (long long)total);
  bad = 0;
  for (int64_t i = 0; c && i < total; ++i)
    if (c[i] != c1(i)) ++bad;
  EXPECT(bad == 0, "/concat_f64: %d wrong values", bad);
  free(c);

  int64_t *ci = (int64_t *)read_all(f, "/concat_i64", H5T_NATIVE_INT64, &nd, dims);
  EXPECT(nd == 1 && dims[0] == (hsize_t)(3 * nranks), "/concat_i64 length %llu",
         (unsigned long long)dims[0]);
  bad = 0;
  for (int r = 0; ci && r < nranks; ++r)
    for (int64_t k = 0; k < 3; ++k)
      if (ci[3 * r + k] != c1i(r, k)) ++bad;
  EXPECT(bad == 0, "/concat_i64: %d wrong values", bad);
  free(ci);

  /* the axis: cells + 1 nodes, the last one the given end */
  double *ax = (double *)read_all(f, "/axis", H5T_NATIVE_DOUBLE, &nd, dims);
  EXPECT(nd == 1 && dims[0] == 4 && ax && ax[0] == 0.1 && ax[1] == 0.1 + 0.1 &&
             ax[2] == 0.1 + 0.1 * 2.0 && ax[3] == 0.4,
         "/axis");
  free(ax);

  /* the replicated table still works through the block writer */
  double *t = (double *)read_all(f, "/table", H5T_NATIVE_DOUBLE, &nd, dims);
  EXPECT(nd == 1 && dims[0] == 4 && t && t[0] == 1.0 && t[3] == 4.0, "/table");
  free(t);
  H5Fclose(f);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[16384];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void check_xdmf(const char *name) {
  char xmf[128];
  const int64_t points[3] = {7, 4, 5}; /* x y z */
  const double origin[3] = {1.0, 2.0, 3.0}, spacing[3] = {0.5, 0.25, 0.1};
  const char *axes[2] = {"/mesh/x", "/mesh/y"};
  const char *names[2] = {"temperature", "pressure"};
  const char *paths[2] = {"/block3d", "/cells"};
  snprintf(xmf, sizeof xmf, "%s_node.xmf", name);
  EXPECT(app_xdmf_write_3d(xmf, "f.h5", points, origin, spacing, names, paths, 2, 1) == 0, "%s",
         porta_last_error_message());
  char *s = slurp(xmf);
  EXPECT(s && strstr(s, "<Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"5 4 7\"/>"),
         "topology (z y x) in %s", xmf);
  EXPECT(s && strstr(s, "GeometryType=\"ORIGIN_DXDYDZ\""), "geometry type in %s", xmf);
  /* origin and spacing (z y x) read as doubles: without Precision 8, 0.1 is a float's 0.1 */
  EXPECT(s && strstr(s, "Precision=\"8\" Format=\"XML\" Dimensions=\"3\">3 2 1</DataItem>"),
         "origin (z y x) in %s", xmf);
  EXPECT(s && strstr(s, "Precision=\"8\" Format=\"XML\" Dimensions=\"3\">"
                        "0.10000000000000001 0.25 0.5</DataItem>"),
         "spacing in %s", xmf);
  EXPECT(s && strstr(s, "Center=\"Node\"") &&
             strstr(s, "Dimensions=\"5 4 7\">f.h5:/block3d</DataItem>") &&
             strstr(s, "Dimensions=\"5 4 7\">f.h5:/cells</DataItem>"),
         "node fields in %s", xmf);
  remove(xmf);
  snprintf(xmf, sizeof xmf, "%s_cell.xmf", name);
  EXPECT(app_xdmf_write_3d(xmf, "f.h5", points, origin, spacing, names, paths, 2, 0) == 0, "%s",
         porta_last_error_message());
  s = slurp(xmf);
  EXPECT(s && strstr(s, "Center=\"Cell\"") &&
             strstr(s, "Dimensions=\"4 3 6\">f.h5:/cells</DataItem>") &&
             strstr(s, "Dimensions=\"5 4 7\"/>"),
         "cell fields in %s", xmf);
  remove(xmf);
  /* 2D: x-y plane (2DRectMesh, VXVY), cell fields [gy][gx] */
  snprintf(xmf, sizeof xmf, "%s_2d.xmf", name);
  EXPECT(app_xdmf_write_2d(xmf, "f.h5", 6, 3, axes, names, paths, 1) == 0, "%s",
         porta_last_error_message());
  s = slurp(xmf);
  EXPECT(s && strstr(s, "<Topology TopologyType=\"2DRectMesh\" Dimensions=\"4 7\"/>") &&
             strstr(s, "GeometryType=\"VXVY\"") && strstr(s, "Dimensions=\"7\">f.h5:/mesh/x<") &&
             strstr(s, "Dimensions=\"4\">f.h5:/mesh/y<") &&
             strstr(s, "Dimensions=\"3 6\">f.h5:/block3d</DataItem>") && !strstr(s, "ORIGIN") &&
             strstr(s, "/mesh/x<") < strstr(s, "/mesh/y<"),
         "2D grid (axes x then y) in %s", xmf);
  remove(xmf);
  EXPECT(app_xdmf_write_2d(xmf, "f.h5", 0, 3, axes, names, paths, 1) ==
             PORTA_ERROR_INVALID_ARGUMENT,
         "a 2D grid without cells");
  /* errors name the file and give the OS's reason */
  const char *nowhere = "no_such_dir_app_h5/x.xmf";
  EXPECT(app_xdmf_write_3d(nowhere, "f.h5", points, origin, spacing, names, paths, 2, 1) ==
             PORTA_ERROR_IO,
         "xdmf in a missing directory");
  expect_message(nowhere, "xdmf in a missing directory");
  expect_message("No such file", "xdmf in a missing directory");
  const int64_t flat[3] = {7, 1, 5};
  EXPECT(app_xdmf_write_3d(xmf, "f.h5", flat, origin, spacing, names, paths, 2, 0) ==
             PORTA_ERROR_INVALID_ARGUMENT,
         "cell fields on a flat grid");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  char name[64], file[80], tmp[96];
  snprintf(name, sizeof name, "test_app_h5_np%d", nranks);
  snprintf(file, sizeof file, "%s.h5", name);
  snprintf(tmp, sizeof tmp, "%s.h5.tmp", name);
  if (rank == 0) remove(file);

  app_h5 h;
  int rc = app_h5_create(&h, name, MPI_COMM_WORLD);
  EXPECT(rc == PORTA_SUCCESS, "create: %s", porta_last_error_message());
  if (rc != PORTA_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);

  /* 3D: 7 x 4 x 5 cells (x y z) split by porta_decomp; the dataset is [z][y][x] */
  const int64_t cells[3] = {7, 4, 5};
  porta_decomp d;
  EXPECT(porta_decomp_create(MPI_COMM_WORLD, 3, cells, NULL, &d) == 0, "decomp");
  const int64_t g3[3] = {cells[2], cells[1], cells[0]};
  const int64_t start[3] = {d.offset[2], d.offset[1], d.offset[0]};
  const int64_t count[3] = {d.local[2], d.local[1], d.local[0]};
  const int64_t nloc = count[0] * count[1] * count[2];
  double *buf = (double *)malloc(sizeof(double) * (size_t)nloc);
  int64_t *ibuf = (int64_t *)malloc(sizeof(int64_t) * (size_t)nloc);
  for (int64_t z = 0; z < count[0]; ++z)
    for (int64_t y = 0; y < count[1]; ++y)
      for (int64_t x = 0; x < count[2]; ++x) {
        const int64_t k = (z * count[1] + y) * count[2] + x;
        buf[k] = f3(start[0] + z, start[1] + y, start[2] + x);
        ibuf[k] = i3(start[0] + z, start[1] + y, start[2] + x);
      }
  rc = app_h5_write_block_f64(&h, "/block3d", 3, g3, start, count, buf);
  EXPECT(rc == PORTA_SUCCESS, "block3d: %s", porta_last_error_message());
  rc = app_h5_write_block_i64(&h, "/block3d_i64", 3, g3, start, count, ibuf);
  EXPECT(rc == PORTA_SUCCESS, "block3d_i64: %s", porta_last_error_message());

  /* 2D with empty blocks: rank r writes r rows (rank 0 none, NULL buffer) */
  const int64_t g2[2] = {rows_before(nranks), 3}, s2[2] = {rows_before(rank), 0}, n2[2] = {rank, 3};
  double *rows = rank > 0 ? (double *)malloc(sizeof(double) * (size_t)(3 * rank)) : NULL;
  for (int64_t i = 0; i < rank; ++i)
    for (int j = 0; j < 3; ++j) rows[i * 3 + j] = 10.0 * rank + j;
  rc = app_h5_write_block_f64(&h, "/rows2d", 2, g2, s2, n2, rows);
  EXPECT(rc == PORTA_SUCCESS, "rows2d: %s", porta_last_error_message());
  free(rows);

  /* 1D concatenations */
  int64_t want_off = 0;
  for (int r = 0; r < rank; ++r) want_off += concat_n(r);
  const int64_t nc = concat_n(rank);
  double *cv = (double *)malloc(sizeof(double) * (size_t)(nc > 0 ? nc : 1));
  for (int64_t i = 0; i < nc; ++i) cv[i] = c1(want_off + i);
  int64_t off = -1;
  rc = app_h5_write_1d_concat_f64(&h, "/concat_f64", cv, nc, &off);
  EXPECT(rc == PORTA_SUCCESS, "concat_f64: %s", porta_last_error_message());
  EXPECT(off == want_off, "concat_f64 offset %lld, want %lld", (long long)off, (long long)want_off);
  free(cv);
  int64_t iv[3] = {c1i(rank, 0), c1i(rank, 1), c1i(rank, 2)};
  off = -1;
  rc = app_h5_write_1d_concat_i64(&h, "/concat_i64", iv, 3, &off);
  EXPECT(rc == PORTA_SUCCESS && off == 3 * rank, "concat_i64 rc %d offset %lld: %s", rc,
         (long long)off, porta_last_error_message());
  EXPECT(app_h5_write_1d_concat_i64(&h, "/concat_i64_nooff", iv, 3, NULL) == PORTA_SUCCESS,
         "concat without offset_out: %s", porta_last_error_message());
  const double table[4] = {1, 2, 3, 4};
  EXPECT(app_h5_write_1d_double(&h, "/table", table, 4) == PORTA_SUCCESS, "table: %s",
         porta_last_error_message());
  /* an axis of 3 cells from 0.1 by 0.1: 0.1 + 3 x 0.1 is not 0.4 in doubles, its last node is */
  EXPECT(app_h5_write_axis(&h, "/axis", 0.1, 0.1, 3, 0.4) == PORTA_SUCCESS, "axis: %s",
         porta_last_error_message());
  EXPECT(app_h5_write_axis(&h, "/axis0", 0.0, 1.0, 0, 0.0) == PORTA_ERROR_INVALID_ARGUMENT,
         "an axis of 0 cells");

  /* errors: every rank fails, the message names the function and the path */
  porta_error_clear();
  rc = app_h5_write_block_f64(&h, "/block3d", 3, g3, start, count, buf);
  EXPECT(rc == PORTA_ERROR_IO, "existing dataset: rc %d", rc);
  expect_failed_everywhere(rc, "existing dataset");
  expect_message("/block3d", "existing dataset");
  expect_message("app_h5_write_block_f64", "existing dataset");
  expect_message(tmp, "existing dataset");

  int64_t bad_count[3] = {count[0], count[1], count[2]};
  if (rank == nranks - 1) bad_count[0] += 1; /* one row past the global extent */
  rc = app_h5_write_block_f64(&h, "/bad_block", 3, g3, start, bad_count, buf);
  expect_failed_everywhere(rc, "block outside the shape on one rank");
  expect_message("/bad_block", "block outside the shape on one rank");
  const int64_t g3_wrong[3] = {g3[0] + (rank == 0), g3[1], g3[2]};
  rc = app_h5_write_block_f64(&h, "/bad_shape", 3, g3_wrong, start, count, buf);
  if (nranks > 1) {
    expect_failed_everywhere(rc, "ranks disagree on the shape");
    expect_message("/bad_shape", "ranks disagree on the shape");
  }
  rc = app_h5_write_1d_concat_f64(&h, "/bad_concat", NULL, rank == nranks - 1 ? -1 : 0, NULL);
  expect_failed_everywhere(rc, "negative n_local");
  expect_message("/bad_concat", "negative n_local");
  rc = app_h5_write_block_f64(&h, "/five_dims", 5, g3, start, count, buf);
  EXPECT(rc == PORTA_ERROR_INVALID_ARGUMENT, "5 dimensions: rc %d", rc);
  expect_message("/five_dims", "5 dimensions");
  rc = app_h5_attr_int(&h, "/no/such/group", "n", 1);
  EXPECT(rc == PORTA_ERROR_IO, "attribute on a missing object: rc %d", rc);
  expect_message("/no/such/group", "attribute on a missing object");
  rc = app_h5_group(&h, "/block3d");
  EXPECT(rc == PORTA_ERROR_IO, "group over a dataset: rc %d", rc);
  expect_message("/block3d", "group over a dataset");
  free(buf);
  free(ibuf);

  rc = app_h5_close(&h, 1);
  EXPECT(rc == PORTA_SUCCESS, "close: %s", porta_last_error_message());

  /* a file in a directory that does not exist */
  app_h5 h2;
  rc = app_h5_create(&h2, "no_such_dir_app_h5/sub/out", MPI_COMM_WORLD);
  EXPECT(rc == PORTA_ERROR_IO, "create in a missing directory: rc %d", rc);
  expect_failed_everywhere(rc, "create in a missing directory");
  expect_message("no_such_dir_app_h5/sub/out.h5.tmp", "create in a missing directory");
  expect_message("app_h5_create", "create in a missing directory");

  if (rank == 0) {
    EXPECT(access(tmp, F_OK) != 0, "%s left behind", tmp);
    check_file(file, g3);
    check_xdmf(name);
    remove(file);
  }
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_app_h5 on %d ranks: %s (%d failures)\n", nranks, all ? "FAIL" : "OK", all);
  MPI_Finalize();
  return all != 0;
}
