/** @file minife_verify.c
 *  The verification: the computed solution against the reference's analytic solution, the
 *  Fourier series of the Laplace problem (Q = 0) with u = 1 on the face x = 1 and 0 on the
 *  other faces, summed over p, q = 0..300 as the reference does (a term whose sinh overflows
 *  ends its q loop; one with sinh(l) infinite adds 0).
 *
 *  verify_solution=1 checks the reference's points: the nodes within 0.05 of the centre in
 *  every coordinate. With the reference's source Q = 1 the discrete problem is not the
 *  analytic one, which is why its tolerance is 0.06. In source-free mode the problem is the
 *  analytic one and every node is checked, so the error is the discretisation error. Its
 *  maximum over the whole domain does not fall with h: the boundary data jump along the four
 *  edges of the face x = 1 (1 on the face, 0 on its neighbours), and next to such an edge the
 *  discrete and the exact solution differ by a fixed amount at any resolution (0.1088 at
 *  n = 8, 16 and 32). Away from those edges the error falls as h^2, so the maximum over the
 *  nodes with x <= 0.75 is reported too; that is the convergence measure.
 *
 *  The series is separable, u = 16/pi^2 sum_p s_p(y) sum_q s_q(z) S_pq(x), so it is summed in
 *  three stages over the distinct coordinates: S for each x, the q sum for each (x, z), the p
 *  sum for each node - about n^2 * 301^2 operations instead of n^3 * 301^2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minife_verify.h"

#define MINIFE_TERMS 301

static const double minife_pi = 3.141592653589793238462;

/** The analytic value at a node whose coordinates are on a face (*handled = 1), else 0. */
static double face_value(double x, double y, double z, int *handled) {
  *handled = 1;
  if (x == 1.0) return 1.0;
  if (x == 0.0 || y == 0.0 || z == 0.0) return 0.0;
  if (y == 1.0 || z == 1.0) return 0.0;
  *handled = 0;
  return 0.0;
}

/** The series' parts along each axis: the nodes' coordinates and whether each is checked,
 *  s_p(y) and s_q(z) for each coordinate, S_pq(x) for the current x and the q sum for the
 *  current (x, z). */
typedef struct series {
  double *coord[3];
  char *use[3];
  double *sy, *sz, *S, *Tp;
} series;

static void series_free(series *s) {
  for (int d = 0; d < 3; ++d) {
    free(s->coord[d]);
    free(s->use[d]);
  }
  free(s->sy);
  free(s->sz);
  free(s->S);
  free(s->Tp);
}

/** The coordinates of this rank's nodes, which are checked, and s_p(y), s_q(z). */
static int series_create(series *s, const minife_mesh *mesh, int whole_domain) {
  const int64_t *n = mesh->n, *lo = mesh->nlo;
  const int T = MINIFE_TERMS;
  memset(s, 0, sizeof *s);
  for (int d = 0; d < 3; ++d) {
    s->coord[d] = (double *)malloc(sizeof(double) * (size_t)n[d]);
    s->use[d] = (char *)malloc((size_t)n[d]);
  }
  s->sy = (double *)malloc(sizeof(double) * (size_t)(n[1] * T));
  s->sz = (double *)malloc(sizeof(double) * (size_t)(n[2] * T));
  s->S = (double *)malloc(sizeof(double) * (size_t)(T * T));
  s->Tp = (double *)malloc(sizeof(double) * (size_t)T);
  if (!s->coord[0] || !s->coord[1] || !s->coord[2] || !s->use[0] || !s->use[1] || !s->use[2] ||
      !s->sy || !s->sz || !s->S || !s->Tp)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minife_verify", "series", "malloc failed");
  for (int d = 0; d < 3; ++d)
    for (int64_t i = 0; i < n[d]; ++i) {
      const double c = 1.0 * (double)(lo[d] + i) / (double)(mesh->nodes[d] - 1);
      s->coord[d][i] = c;
      s->use[d][i] = (char)(whole_domain || fabs(c - 0.5) < 0.05);
    }
  for (int64_t i = 0; i < n[1]; ++i)
    for (int p = 0; p < T; ++p)
      s->sy[i * T + p] = sin((2 * p + 1) * minife_pi * s->coord[1][i]) / (2 * p + 1);
  for (int64_t i = 0; i < n[2]; ++i)
    for (int q = 0; q < T; ++q)
      s->sz[i * T + q] = sin((2 * q + 1) * minife_pi * s->coord[2][i]) / (2 * q + 1);
  return PORTA_SUCCESS;
}

/** S_pq(x) = sinh(l x) / sinh(l) for every p, q. */
static void series_at_x(series *s, double x) {
  const int T = MINIFE_TERMS;
  for (int p = 0; p < T; ++p)
    for (int q = 0; q < T; ++q) {
      const double l = sqrt((2 * p + 1) * (2 * p + 1) * minife_pi * minife_pi +
                            (2 * q + 1) * (2 * q + 1) * minife_pi * minife_pi);
      const double s1 = sinh(l * x), s2 = sinh(l);
      s->S[p * T + q] = isfinite(s1) && isfinite(s2) ? s1 / s2 : 0.0;
    }
}

/** The q sum for each p at the z of index iz (S for the current x). */
static void series_at_z(series *s, int64_t iz) {
  const int T = MINIFE_TERMS;
  for (int p = 0; p < T; ++p) {
    double t = 0.0;
    for (int q = 0; q < T; ++q) t += s->sz[iz * T + q] * s->S[p * T + q];
    s->Tp[p] = t;
  }
}

/** The p sum at the y of index iy: the analytic value (S and Tp for the current x and z). */
static double series_value(const series *s, int64_t iy) {
  const int T = MINIFE_TERMS;
  double sum = 0.0;
  for (int p = 0; p < T; ++p) sum += s->sy[iy * T + p] * s->Tp[p];
  return 16.0 / (minife_pi * minife_pi) * sum;
}

/** One checked node's error counted in res (the largest kept with where it is). */
static void error_add(minife_verify_result *res, const double at[3], double analytic,
                      double computed) {
  const double err = fabs(analytic - computed);
  res->points++;
  if (at[0] <= MINIFE_FAR_X && err > res->max_error_far) res->max_error_far = err;
  if (err > res->max_error || res->points == 1) {
    res->max_error = err;
    res->computed = computed;
    res->analytic = analytic;
    for (int d = 0; d < 3; ++d) res->at[d] = at[d];
  }
}

/** This rank's checked nodes against the series; the series' stages are computed once per x
 *  and per (x, z), and only where a node off the faces needs them. */
static void errors_local(const minife_mesh *mesh, const porta_mirror_f64 *xh, series *s,
                         minife_verify_result *res) {
  const int64_t *n = mesh->n;
  for (int64_t ix = 0; ix < n[0]; ++ix) {
    if (!s->use[0][ix]) continue;
    const double x = s->coord[0][ix];
    int have_series = 0;
    for (int64_t iz = 0; iz < n[2]; ++iz) {
      if (!s->use[2][iz]) continue;
      const double z = s->coord[2][iz];
      int tz = 0;
      for (int64_t iy = 0; iy < n[1]; ++iy) {
        if (!s->use[1][iy]) continue;
        const double y = s->coord[1][iy];
        int on_face = 0;
        double analytic = face_value(x, y, z, &on_face);
        if (!on_face) {
          if (!have_series) series_at_x(s, x);
          if (!tz) series_at_z(s, iz);
          have_series = tz = 1;
          analytic = series_value(s, iy);
        }
        const int64_t row = (iz * n[1] + iy) * n[0] + ix;
        const double at[3] = {x, y, z};
        error_add(res, at, analytic, PORTA_AT1(*xh, row));
      }
    }
  }
}

/** The largest error over the ranks and where it is (MPI_MAXLOC on the error), the largest
 *  away from the face x = 1, and the number of points. */
static int errors_agree(minife_verify_result *res, MPI_Comm comm) {
  struct {
    double err;
    int rank;
  } in = {res->max_error, 0}, out;
  MPI_Comm_rank(comm, &in.rank);
  if (res->points == 0) in.err = -1.0;
  long long pts = res->points, all = 0;
  double far = res->max_error_far;
  if (MPI_Allreduce(MPI_IN_PLACE, &far, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "minife_verify", "max error", "MPI_Allreduce failed");
  res->max_error_far = far;
  if (MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm) != MPI_SUCCESS ||
      MPI_Allreduce(&pts, &all, 1, MPI_LONG_LONG, MPI_SUM, comm) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "minife_verify", "max error", "MPI_Allreduce failed");
  double where[6] = {res->at[0], res->at[1], res->at[2], res->computed, res->analytic, 0};
  if (MPI_Bcast(where, 6, MPI_DOUBLE, out.rank, comm) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "minife_verify", "max error", "MPI_Bcast failed");
  res->max_error = out.err > 0 ? out.err : 0.0;
  res->points = all;
  for (int d = 0; d < 3; ++d) res->at[d] = where[d];
  res->computed = where[3];
  res->analytic = where[4];
  return PORTA_SUCCESS;
}

int minife_verify(const minife_mesh *mesh, porta_view_f64 x_dev, int whole_domain, MPI_Comm comm,
                  minife_verify_result *res) {
  memset(res, 0, sizeof *res);
  porta_mirror_f64 xh;
  PORTA_CHECK(porta_view_f64_create_mirror_view(&xh, &x_dev));
  if (xh.data != x_dev.data) PORTA_CHECK(porta_deep_copy(xh, x_dev));
  PORTA_CHECK(porta_fence("minife_verify"));
  series s;
  int rc = series_create(&s, mesh, whole_domain);
  if (rc == PORTA_SUCCESS) {
    res->max_error = 0.0;
    errors_local(mesh, &xh, &s, res);
    rc = errors_agree(res, comm);
  }
  series_free(&s);
  porta_mirror_f64_release(&xh);
  return rc;
}
