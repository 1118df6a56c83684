/** @file app_h5.c
 *  Parallel HDF5 result file (see app_h5.h). */
#include "app_h5.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_h5_create(app_h5 *h, const char *name, MPI_Comm comm, char *err, size_t errlen) {
  memset(h, 0, sizeof *h);
  h->comm = comm;
  MPI_Comm_rank(comm, &h->rank);
  snprintf(h->path, sizeof h->path, "%s.h5", name);
  snprintf(h->tmp, sizeof h->tmp, "%s.tmp", h->path);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  H5E_BEGIN_TRY { h->file = H5Fcreate(h->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl); }
  H5E_END_TRY;
  H5Pclose(fapl);
  if (h->file < 0) {
    snprintf(err, errlen, "cannot create HDF5 file '%s'", h->tmp);
    return 1;
  }
  h->dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(h->dxpl, H5FD_MPIO_COLLECTIVE);
  return 0;
}

int app_h5_close(app_h5 *h, int ok) {
  int rc = 0;
  if (h->dxpl > 0) H5Pclose(h->dxpl);
  if (h->file >= 0 && H5Fclose(h->file) < 0) rc = 1;
  h->file = -1;
  h->dxpl = -1;
  MPI_Barrier(h->comm);
  if (h->rank == 0) {
    if (ok && rc == 0) {
      if (rename(h->tmp, h->path) != 0) rc = 1;
    } else {
      remove(h->tmp);
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, h->comm);
  return rc;
}

int app_h5_group(app_h5 *h, const char *path) {
  hid_t g = H5Gcreate2(h->file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return 1;
  H5Gclose(g);
  return 0;
}

static int attr_write(app_h5 *h, const char *obj, const char *name, hid_t type, const void *v) {
  hid_t o = H5Oopen(h->file, obj, H5P_DEFAULT);
  if (o < 0) return 1;
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(o, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
  int rc = (a < 0 || H5Awrite(a, type, v) < 0);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  H5Oclose(o);
  return rc;
}

int app_h5_attr_string(app_h5 *h, const char *obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  size_t n = strlen(value);
  H5Tset_size(t, n > 0 ? n : 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  int rc = attr_write(h, obj, name, t, n > 0 ? value : "");
  H5Tclose(t);
  return rc;
}

int app_h5_attr_double(app_h5 *h, const char *obj, const char *name, double value) {
  return attr_write(h, obj, name, H5T_NATIVE_DOUBLE, &value);
}

int app_h5_attr_int(app_h5 *h, const char *obj, const char *name, int64_t value) {
  return attr_write(h, obj, name, H5T_NATIVE_INT64, &value);
}

static int write_1d(app_h5 *h, const char *path, hid_t type, const void *v, int64_t n) {
  hsize_t dim = (hsize_t)n;
  hid_t fs = H5Screate_simple(1, &dim, NULL);
  hid_t ds = H5Dcreate2(h->file, path, type, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (ds < 0) {
    H5Sclose(fs);
    return 1;
  }
  hid_t ms = H5Screate_simple(1, &dim, NULL);
  if (h->rank != 0 || n == 0) {
    H5Sselect_none(fs);
    H5Sselect_none(ms);
  }
  int rc = H5Dwrite(ds, type, ms, fs, h->dxpl, v) < 0;
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(ds);
  return rc;
}

int app_h5_write_1d_double(app_h5 *h, const char *path, const double *v, int64_t n) {
  return write_1d(h, path, H5T_NATIVE_DOUBLE, v, n);
}

int app_h5_write_1d_int(app_h5 *h, const char *path, const int64_t *v, int64_t n) {
  return write_1d(h, path, H5T_NATIVE_INT64, v, n);
}

int app_h5_write_field2d(app_h5 *h, const char *path, const app_decomp *d, porta_view_f64 v,
                         int halo, int x_dim) {
  const int64_t nx = d->local[0], ny = d->local[1];
  /* host copy of the view (the view itself when the host can read it) */
  porta_view_f64 hv;
  if (porta_view_f64_create_mirror_view(&hv, &v) != PORTA_SUCCESS) return 1;
  if (hv.data != v.data && porta_deep_copy(hv, v) != PORTA_SUCCESS) {
    porta_view_f64_release(&hv);
    return 1;
  }
  porta_fence("app_h5_write_field2d");
  double *buf = (double *)malloc(sizeof(double) * (size_t)(nx * ny > 0 ? nx * ny : 1));
  if (!buf) {
    porta_view_f64_release(&hv);
    return 1;
  }
  for (int64_t k = 0; k < ny; ++k)
    for (int64_t j = 0; j < nx; ++j) {
      int64_t i0 = x_dim == 0 ? halo + j : halo + k, i1 = x_dim == 0 ? halo + k : halo + j;
      buf[k * nx + j] = hv.data[i0 * hv.m.stride[0] + i1 * hv.m.stride[1]];
    }
  porta_view_f64_release(&hv);
  hsize_t gdim[2] = {(hsize_t)d->global[1], (hsize_t)d->global[0]};
  hsize_t start[2] = {(hsize_t)d->offset[1], (hsize_t)d->offset[0]};
  hsize_t count[2] = {(hsize_t)ny, (hsize_t)nx};
  hid_t fs = H5Screate_simple(2, gdim, NULL);
  hid_t ds =
      H5Dcreate2(h->file, path, H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = 1;
  if (ds >= 0) {
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(2, count, NULL);
    rc = H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, h->dxpl, buf) < 0;
    H5Sclose(ms);
    H5Dclose(ds);
  }
  H5Sclose(fs);
  free(buf);
  return rc;
}

/* One uniform grid of gx x gy cells: topology, geometry and the cell fields `prefix`/names[i]
 * (prefix "" takes paths[i] as given), indented by `ind` spaces; `time` >= 0 adds a Time. */
static void xdmf_grid(FILE *f, int ind, const char *grid_name, double time, const char *h5file,
                      int64_t gx, int64_t gy, double x0, double y0, double dx, double dy,
                      const char *const *names, const char *const *paths, const char *prefix,
                      int nfields) {
  /* XDMF orders dimensions slowest first: points (gy+1) x (gx+1), origin/spacing as (y, x). */
  fprintf(f, "%*s<Grid Name=\"%s\" GridType=\"Uniform\">\n", ind, "", grid_name);
  if (time >= 0.0) fprintf(f, "%*s <Time Value=\"%.17g\"/>\n", ind, "", time);
  fprintf(f,
          "%*s <Topology TopologyType=\"2DCoRectMesh\" Dimensions=\"%lld %lld\"/>\n"
          "%*s <Geometry GeometryType=\"ORIGIN_DXDY\">\n"
          "%*s  <DataItem Format=\"XML\" Dimensions=\"2\">%.17g %.17g</DataItem>\n"
          "%*s  <DataItem Format=\"XML\" Dimensions=\"2\">%.17g %.17g</DataItem>\n"
          "%*s </Geometry>\n",
          ind, "", (long long)(gy + 1), (long long)(gx + 1), ind, "", ind, "", y0, x0, ind, "", dy,
          dx, ind, "");
  for (int i = 0; i < nfields; ++i)
    fprintf(f,
            "%*s <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
            "%*s  <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" "
            "Dimensions=\"%lld %lld\">%s:%s%s%s</DataItem>\n"
            "%*s </Attribute>\n",
            ind, "", names[i], ind, "", (long long)gy, (long long)gx, h5file, prefix,
            prefix[0] ? "/" : "", prefix[0] ? names[i] : paths[i], ind, "");
  fprintf(f, "%*s</Grid>\n", ind, "");
}

static const char xdmf_head[] = "<?xml version=\"1.0\" ?>\n"
                                "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
                                "<Xdmf Version=\"3.0\">\n"
                                " <Domain>\n";
static const char xdmf_tail[] = " </Domain>\n</Xdmf>\n";

int app_xdmf_write_2d(const char *xmf_path, const char *h5file, int64_t gx, int64_t gy, double x0,
                      double y0, double dx, double dy, const char *const *names,
                      const char *const *paths, int nfields) {
  FILE *f = fopen(xmf_path, "w");
  if (!f) return 1;
  fputs(xdmf_head, f);
  xdmf_grid(f, 2, "mesh", -1.0, h5file, gx, gy, x0, y0, dx, dy, names, paths, "", nfields);
  fputs(xdmf_tail, f);
  return fclose(f) != 0;
}

int app_xdmf_write_2d_series(const char *xmf_path, const char *h5file, int64_t gx, int64_t gy,
                             double x0, double y0, double dx, double dy, const char *const *names,
                             int nfields, const char *const *groups, const double *times,
                             int nsteps) {
  FILE *f = fopen(xmf_path, "w");
  if (!f) return 1;
  fputs(xdmf_head, f);
  fprintf(f, "  <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (int t = 0; t < nsteps; ++t) {
    const char *base = strrchr(groups[t], '/');
    xdmf_grid(f, 3, base ? base + 1 : groups[t], times[t], h5file, gx, gy, x0, y0, dx, dy, names,
              NULL, groups[t], nfields);
  }
  fprintf(f, "  </Grid>\n");
  fputs(xdmf_tail, f);
  return fclose(f) != 0;
}
