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

typedef struct {
  minife_grid g;
  porta_view_i32 row_ptr;
  porta_view_f64 vals, b;
  int64_t e0[3]; /**< first element of this colour, per dimension (then every other) */
  double source; /**< Q */
} assemble_args;

/** Gradients of the eight shape functions at reference point (p0, p1, p2) (reference order). */
PORTA_INLINE_FUNCTION void hex8_gradients(double p0, double p1, double p2, double *g) {
  const double u = 1.0 - p0, v = 1.0 - p1, w = 1.0 - p2;
  const double up1 = 1.0 + p0, vp1 = 1.0 + p1, wp1 = 1.0 + p2;
  g[0] = -0.125 * v * w;
  g[1] = -0.125 * u * w;
  g[2] = -0.125 * u * v;
  g[3] = 0.125 * v * w;
  g[4] = -0.125 * up1 * w;
  g[5] = -0.125 * up1 * v;
  g[6] = 0.125 * vp1 * w;
  g[7] = 0.125 * up1 * w;
  g[8] = -0.125 * up1 * vp1;
  g[9] = -0.125 * vp1 * w;
  g[10] = 0.125 * u * w;
  g[11] = -0.125 * u * vp1;
  g[12] = -0.125 * v * wp1;
  g[13] = -0.125 * u * wp1;
  g[14] = 0.125 * u * v;
  g[15] = 0.125 * v * wp1;
  g[16] = -0.125 * up1 * wp1;
  g[17] = 0.125 * up1 * v;
  g[18] = 0.125 * vp1 * wp1;
  g[19] = 0.125 * up1 * wp1;
  g[20] = 0.125 * up1 * vp1;
  g[21] = -0.125 * vp1 * wp1;
  g[22] = 0.125 * u * wp1;
  g[23] = 0.125 * u * vp1;
}

PORTA_INLINE_FUNCTION void hex8_shape(double p0, double p1, double p2, double *psi) {
  const double u = 1.0 - p0, v = 1.0 - p1, w = 1.0 - p2;
  const double up1 = 1.0 + p0, vp1 = 1.0 + p1, wp1 = 1.0 + p2;
  psi[0] = 0.125 * u * v * w;
  psi[1] = 0.125 * up1 * v * w;
  psi[2] = 0.125 * up1 * vp1 * w;
  psi[3] = 0.125 * u * vp1 * w;
  psi[4] = 0.125 * u * v * wp1;
  psi[5] = 0.125 * up1 * v * wp1;
  psi[6] = 0.125 * up1 * vp1 * wp1;
  psi[7] = 0.125 * u * vp1 * wp1;
}

/** Element diffusion matrix (upper triangle, row by row: 36 values) and source vector. */
PORTA_INLINE_FUNCTION void hex8_element(const double *coords, double source, double *K, double *f) {
  for (int i = 0; i < 36; ++i) K[i] = 0.0;
  for (int i = 0; i < 8; ++i) f[i] = 0.0;
  const double gp[2] = {-MINIFE_GAUSS_PT, MINIFE_GAUSS_PT};
  for (int ig = 0; ig < 2; ++ig)
    for (int jg = 0; jg < 2; ++jg)
      for (int kg = 0; kg < 2; ++kg) {
        double gv[24], psi[8];
        hex8_gradients(gp[ig], gp[jg], gp[kg], gv);
        double J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        for (int i = 0; i < 8; ++i)
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) J[3 * r + c] += gv[3 * i + r] * coords[3 * i + c];
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
          const double g0 = gv[3 * i], g1 = gv[3 * i + 1], g2 = gv[3 * i + 2];
          dx[i] = g0 * invJ[0] + g1 * invJ[1] + g2 * invJ[2];
          dy[i] = g0 * invJ[3] + g1 * invJ[4] + g2 * invJ[5];
          dz[i] = g0 * invJ[6] + g1 * invJ[7] + g2 * invJ[8];
        }
        const double w = detJ; /* k = 1, weights 1 */
        int o = 0;
        for (int mm = 0; mm < 8; ++mm)
          for (int nn = mm; nn < 8; ++nn)
            K[o++] += w * ((dx[mm] * dx[nn]) + (dy[mm] * dy[nn]) + (dz[mm] * dz[nn]));
        hex8_shape(gp[ig], gp[jg], gp[kg], psi);
        const double term = source * detJ;
        for (int i = 0; i < 8; ++i) f[i] += psi[i] * term;
      }
}

/** Index of (m, n), m <= n, in the packed upper triangle. */
PORTA_INLINE_FUNCTION int hex8_upper(int m, int n) { return m * 8 - (m * (m - 1)) / 2 + (n - m); }

/* Element (ex, ey, ez) of this colour: compute it and add it to the owned rows it touches. */
PORTA_MDFOR3(minife_k_assemble, assemble_args, a, kz, ky, kx) {
  const int64_t e[3] = {a->e0[0] + 2 * kx, a->e0[1] + 2 * ky, a->e0[2] + 2 * kz};
  /* exodus node order: (0,0,0) (1,0,0) (1,1,0) (0,1,0), then the same one layer up in z */
  const int ox[8] = {0, 1, 1, 0, 0, 1, 1, 0}, oy[8] = {0, 0, 1, 1, 0, 0, 1, 1};
  const int oz[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  double coords[24];
  for (int i = 0; i < 8; ++i) {
    coords[3 * i + 0] = 1.0 * (double)(e[0] + ox[i]) / (double)(a->g.nodes[0] - 1);
    coords[3 * i + 1] = 1.0 * (double)(e[1] + oy[i]) / (double)(a->g.nodes[1] - 1);
    coords[3 * i + 2] = 1.0 * (double)(e[2] + oz[i]) / (double)(a->g.nodes[2] - 1);
  }
  double K[36], f[8];
  hex8_element(coords, a->source, K, f);
  for (int i = 0; i < 8; ++i) {
    const int64_t lx = e[0] + ox[i] - a->g.nlo[0], ly = e[1] + oy[i] - a->g.nlo[1],
                  lz = e[2] + oz[i] - a->g.nlo[2];
    if (lx < 0 || lx >= a->g.n[0] || ly < 0 || ly >= a->g.n[1] || lz < 0 || lz >= a->g.n[2])
      continue; /* not an owned row */
    const minife_node nd = minife_node_at(&a->g, lx, ly, lz);
    const int64_t row = (lz * a->g.n[1] + ly) * a->g.n[0] + lx;
    const int64_t base = PORTA_AT1(a->row_ptr, row);
    for (int j = 0; j < 8; ++j) {
      const int64_t pos =
          base + minife_stencil_pos(&nd, ox[j] - ox[i], oy[j] - oy[i], oz[j] - oz[i]);
      PORTA_AT1(a->vals, pos) += K[i <= j ? hex8_upper(i, j) : hex8_upper(j, i)];
    }
    PORTA_AT1(a->b, row) += f[i];
  }
}

int minife_assemble(minife *m) {
  assemble_args a;
  a.g = minife_grid_make(&m->mesh);
  a.row_ptr = m->A.row_ptr;
  a.vals = m->A.vals;
  a.b = m->b;
  a.source = m->source;
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
    PORTA_CHECK(porta_parallel_for_md("minife_assemble", m->exec,
                                      porta_mdrange3(0, cnt[2], 0, cnt[1], 0, cnt[0]),
                                      &minife_k_assemble, &a));
  }
  return PORTA_SUCCESS;
}
