/** @file minife_assemble.c
 *  Finite-element assembly: for every element next to an owned node, the hex8 diffusion matrix
 *  and source vector by 2 x 2 x 2 Gauss quadrature (the reference's formulas, its truncated
 *  Gauss point literal and its evaluation order), summed into the owned rows of A and b.
 *
 *  Each element is computed on its own, as the reference does (assembly is part of what miniFE
 *  measures). Elements are scattered in eight colours by the parity of their global
 *  coordinates: elements of one colour share no node, so one kernel per colour updates rows
 *  without atomics, and every entry receives its element contributions in colour order -
 *  deterministic, and the same on any decomposition, thread count or back end.
 *  Kernel file (C11 and C++17). */
#include "minife_kernels.h"

/** The reference's Gauss point, a truncated literal for 1/sqrt(3). */
#define MINIFE_GAUSS_PT 0.577350269

/** The shape functions and their reference gradients at one Gauss point, computed once on
 *  the host (as the reference precomputes them), by component: g[d][i] = d psi_i / d xi_d. */
typedef struct hex8_point {
  double g[3][8];
  double psi[8];
} hex8_point;

typedef struct {
  minife_grid g;
  minife_entries at;
  porta_view_f64 vals, b;
  int64_t e0[3];    /**< first element of this colour, per dimension (then every other) */
  double source;    /**< Q */
  hex8_point gp[8]; /**< Gauss points in the reference's order (x slowest, z fastest) */
} assemble_args;

/** Shape functions and gradients at reference point (p0, p1, p2) (the reference's formulas). */
static void hex8_point_at(double p0, double p1, double p2, hex8_point *t) {
  const double u = 1.0 - p0, v = 1.0 - p1, w = 1.0 - p2;
  const double up1 = 1.0 + p0, vp1 = 1.0 + p1, wp1 = 1.0 + p2;
  const double g[24] = {
      -0.125 * v * w,     -0.125 * u * w,     -0.125 * u * v,    0.125 * v * w,
      -0.125 * up1 * w,   -0.125 * up1 * v,   0.125 * vp1 * w,   0.125 * up1 * w,
      -0.125 * up1 * vp1, -0.125 * vp1 * w,   0.125 * u * w,     -0.125 * u * vp1,
      -0.125 * v * wp1,   -0.125 * u * wp1,   0.125 * u * v,     0.125 * v * wp1,
      -0.125 * up1 * wp1, 0.125 * up1 * v,    0.125 * vp1 * wp1, 0.125 * up1 * wp1,
      0.125 * up1 * vp1,  -0.125 * vp1 * wp1, 0.125 * u * wp1,   0.125 * u * vp1};
  for (int i = 0; i < 8; ++i)
    for (int d = 0; d < 3; ++d) t->g[d][i] = g[3 * i + d];
  t->psi[0] = 0.125 * u * v * w;
  t->psi[1] = 0.125 * up1 * v * w;
  t->psi[2] = 0.125 * up1 * vp1 * w;
  t->psi[3] = 0.125 * u * vp1 * w;
  t->psi[4] = 0.125 * u * v * wp1;
  t->psi[5] = 0.125 * up1 * v * wp1;
  t->psi[6] = 0.125 * up1 * vp1 * wp1;
  t->psi[7] = 0.125 * u * vp1 * wp1;
}

/** Element diffusion matrix (all 8 x 8; K[m][n] and K[n][m] are the same products, so the
 *  same bits) and source vector for node coordinates x[d][i]. The full matrix is 64 entries
 *  instead of the reference's 36, but its rows are contiguous and vectorise. */
PORTA_INLINE_FUNCTION void hex8_element(const hex8_point *gp, const double x[3][8], double source,
                                        double *K, double *f) {
  for (int i = 0; i < 64; ++i) K[i] = 0.0;
  for (int i = 0; i < 8; ++i) f[i] = 0.0;
  for (int q = 0; q < 8; ++q) {
    const hex8_point *t = &gp[q];
    double J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 8; ++i)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) J[3 * r + c] += t->g[r][i] * x[c][i];
    const double term0 = J[8] * J[4] - J[7] * J[5];
    const double term1 = J[8] * J[1] - J[7] * J[2];
    const double term2 = J[5] * J[1] - J[4] * J[2];
    const double detJ = J[0] * term0 - J[3] * term1 + J[6] * term2;
    const double inv = 1.0 / detJ;
    double invJ[9];
    invJ[0] = term0 * inv;
    invJ[1] = -term1 * inv;
    invJ[2] = term2 * inv;
    invJ[3] = -(J[8] * J[3] - J[6] * J[5]) * inv;
    invJ[4] = (J[8] * J[0] - J[6] * J[2]) * inv;
    invJ[5] = -(J[5] * J[0] - J[3] * J[2]) * inv;
    invJ[6] = (J[7] * J[3] - J[6] * J[4]) * inv;
    invJ[7] = -(J[7] * J[0] - J[6] * J[1]) * inv;
    invJ[8] = (J[4] * J[0] - J[3] * J[1]) * inv;
    double dx[8], dy[8], dz[8];
    for (int i = 0; i < 8; ++i) {
      const double g0 = t->g[0][i], g1 = t->g[1][i], g2 = t->g[2][i];
      dx[i] = g0 * invJ[0] + g1 * invJ[1] + g2 * invJ[2];
      dy[i] = g0 * invJ[3] + g1 * invJ[4] + g2 * invJ[5];
      dz[i] = g0 * invJ[6] + g1 * invJ[7] + g2 * invJ[8];
    }
    const double w = detJ; /* k = 1, weights 1 */
    for (int m = 0; m < 8; ++m)
      for (int n = 0; n < 8; ++n)
        K[8 * m + n] += w * ((dx[m] * dx[n]) + (dy[m] * dy[n]) + (dz[m] * dz[n]));
    const double term = source * detJ;
    for (int i = 0; i < 8; ++i) f[i] += t->psi[i] * term;
  }
}

/* Element (ex, ey, ez) of this colour: compute it and add it to the owned rows it touches. */
PORTA_MDFOR3(minife_k_assemble, assemble_args, a, kz, ky, kx) {
  const int64_t e[3] = {a->e0[0] + 2 * kx, a->e0[1] + 2 * ky, a->e0[2] + 2 * kz};
  /* exodus node order: (0,0,0) (1,0,0) (1,1,0) (0,1,0), then the same one layer up in z */
  const int ox[8] = {0, 1, 1, 0, 0, 1, 1, 0}, oy[8] = {0, 0, 1, 1, 0, 0, 1, 1};
  const int oz[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  double x[3][8];
  for (int i = 0; i < 8; ++i) {
    x[0][i] = 1.0 * (double)(e[0] + ox[i]) / (double)(a->g.nodes[0] - 1);
    x[1][i] = 1.0 * (double)(e[1] + oy[i]) / (double)(a->g.nodes[1] - 1);
    x[2][i] = 1.0 * (double)(e[2] + oz[i]) / (double)(a->g.nodes[2] - 1);
  }
  double K[64], f[8];
  hex8_element(a->gp, x, a->source, K, f);
  for (int i = 0; i < 8; ++i) {
    const int64_t lx = e[0] + ox[i] - a->g.nlo[0], ly = e[1] + oy[i] - a->g.nlo[1],
                  lz = e[2] + oz[i] - a->g.nlo[2];
    if (lx < 0 || lx >= a->g.n[0] || ly < 0 || ly >= a->g.n[1] || lz < 0 || lz >= a->g.n[2])
      continue; /* not an owned row */
    const minife_node nd = minife_node_at(&a->g, lx, ly, lz);
    const int64_t row = (lz * a->g.n[1] + ly) * a->g.n[0] + lx;
    const minife_span sp = minife_row_span(&a->at, a->at.shift, row);
    for (int j = 0; j < 8; ++j) {
      const int64_t pos =
          sp.k0 + sp.step * minife_stencil_pos(&nd, ox[j] - ox[i], oy[j] - oy[i], oz[j] - oz[i]);
      PORTA_AT1(a->vals, pos) += K[8 * i + j];
    }
    PORTA_AT1(a->b, row) += f[i];
  }
}

typedef struct {
  porta_view_f64 v;
} zero_args;

PORTA_FOR(minife_k_zero, zero_args, a, i) { PORTA_AT1(a->v, i) = 0.0; }

int minife_assemble(minife *m) {
  zero_args z;
  z.v = m->A.vals;
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minife_zero", minife_k_zero, m->exec,
                                         porta_range(0, m->A.stored), &z));
  assemble_args a;
  a.g = minife_grid_make(&m->mesh);
  a.at = minife_entries_of(&m->A);
  a.vals = m->A.vals;
  a.b = m->b;
  a.source = m->source;
  const double gp[2] = {-MINIFE_GAUSS_PT, MINIFE_GAUSS_PT};
  for (int q = 0; q < 8; ++q) hex8_point_at(gp[q >> 2], gp[(q >> 1) & 1], gp[q & 1], &a.gp[q]);
  /* elements touching an owned node: [nlo - 1, nlo + n - 1] clipped to the mesh */
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = m->mesh.nlo[d] > 0 ? m->mesh.nlo[d] - 1 : 0;
    hi[d] = m->mesh.nlo[d] + m->mesh.n[d]; /* exclusive */
    if (hi[d] > m->mesh.elems[d]) hi[d] = m->mesh.elems[d];
  }
  for (int colour = 0; colour < 8; ++colour) {
    int64_t cnt[3];
    for (int d = 0; d < 3; ++d) {
      const int parity = (colour >> d) & 1;
      a.e0[d] = lo[d] + ((lo[d] & 1) != parity ? 1 : 0);
      cnt[d] = a.e0[d] < hi[d] ? (hi[d] - a.e0[d] + 1) / 2 : 0;
    }
    if (cnt[0] == 0 || cnt[1] == 0 || cnt[2] == 0) continue;
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minife_assemble", minife_k_assemble, m->exec,
                                           porta_mdrange3(0, cnt[2], 0, cnt[1], 0, cnt[0]), &a));
  }
  return PORTA_SUCCESS;
}
