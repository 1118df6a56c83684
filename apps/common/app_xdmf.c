/** @file app_xdmf.c
 *  XDMF descriptions of the apps' HDF5 results for ParaView (see app_h5.h), written by rank 0
 *  alone through app_file's temporaries. */
#include <stdio.h>
#include <string.h>

#include "app_file.h"
#include "app_h5.h"

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
