/** @file tea_kernels_cg.c
 *  CG kernels (reference tea_leaf_cg_kernel): init, w = A p fused with p.w, the u/r update
 *  fused with r.r (or the diagonal preconditioner and r.z), and p = r (z) + beta p.
 *  Kernel file (C++17 compatible). */
#include "tea_internal.h"

typedef struct {
  porta_view_f64 u, p, r, w, z, mi, kx, ky, di;
  double rx, ry, alpha, beta;
} tea_cg_args;

static tea_cg_args tea_cg_make(tea_chunk *c) {
  tea_cg_args a;
  a.u = TEA_F(c, TEA_FIELD_U);
  a.p = TEA_F(c, TEA_FIELD_P);
  a.r = TEA_F(c, TEA_FIELD_R);
  a.w = TEA_F(c, TEA_FIELD_W);
  a.z = TEA_F(c, TEA_FIELD_Z);
  a.mi = TEA_F(c, TEA_FIELD_MI);
  a.kx = TEA_F(c, TEA_FIELD_KX);
  a.ky = TEA_F(c, TEA_FIELD_KY);
  a.di = TEA_F(c, TEA_FIELD_DI);
  a.rx = c->rx;
  a.ry = c->ry;
  a.alpha = a.beta = 0.0;
  return a;
}

/* Each reduction's cell work is one inline function returning the cell's term, used by the
 * double-sum kernel (default) and by the exact porta_xsum_f64 kernel (reproducible mode). */

/* p = r; rro += r.p */
PORTA_FORCEINLINE_FUNCTION double tea_cg_init_none_cell(const tea_cg_args *a, int64_t k,
                                                        int64_t j) {
  double r = PORTA_AT2(a->r, k, j);
  PORTA_AT2(a->p, k, j) = r;
  return r * r;
}
PORTA_MDREDUCE2(tea_k_cg_init_none, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  *acc += tea_cg_init_none_cell(a, k, j);
}
PORTA_MDREDUCE2(tea_k_cg_init_none_x, tea_cg_args, a, k, j, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, tea_cg_init_none_cell(a, k, j));
}

/* z = Mi r (diag only); p = z; rro += r.p */
PORTA_FORCEINLINE_FUNCTION double tea_cg_init_pre_cell(const tea_cg_args *a, int64_t k, int64_t j) {
  double r = PORTA_AT2(a->r, k, j);
  double z = a->alpha != 0.0 ? PORTA_AT2(a->mi, k, j) * r : PORTA_AT2(a->z, k, j);
  if (a->alpha != 0.0) PORTA_AT2(a->z, k, j) = z;
  PORTA_AT2(a->p, k, j) = z;
  return r * z;
}
PORTA_MDREDUCE2(tea_k_cg_init_pre, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  *acc += tea_cg_init_pre_cell(a, k, j);
}
PORTA_MDREDUCE2(tea_k_cg_init_pre_x, tea_cg_args, a, k, j, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, tea_cg_init_pre_cell(a, k, j));
}

int tea_k_cg_init(tea_chunk *c, tea_precon pc, double *rro) {
  tea_cg_args a = tea_cg_make(c);
  porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  *rro = 0.0;
  if (pc == TEA_PRECON_NONE) {
    if (c->reproducible)
      return tea_xreduce(c, "tea_cg_init", in, &tea_k_cg_init_none_x, &a, 0, rro);
    return porta_parallel_reduce_md("tea_cg_init", c->exec, in, &tea_k_cg_init_none, &a, rro);
  }
  if (pc == TEA_PRECON_JAC_BLOCK) PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
  a.alpha = pc == TEA_PRECON_JAC_DIAG ? 1.0 : 0.0; /* flag: apply Mi inline */
  if (c->reproducible) return tea_xreduce(c, "tea_cg_init", in, &tea_k_cg_init_pre_x, &a, 0, rro);
  return porta_parallel_reduce_md("tea_cg_init", c->exec, in, &tea_k_cg_init_pre, &a, rro);
}

/* w = A p; pw += p.w */
PORTA_FORCEINLINE_FUNCTION double tea_cg_calc_w_cell(const tea_cg_args *a, int64_t k, int64_t j) {
  double w = TEA_AV(a, a->p, k, j);
  PORTA_AT2(a->w, k, j) = w;
  return w * PORTA_AT2(a->p, k, j);
}
PORTA_MDREDUCE2(tea_k_cg_calc_w_r, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  *acc += tea_cg_calc_w_cell(a, k, j);
}
PORTA_MDREDUCE2(tea_k_cg_calc_w_x, tea_cg_args, a, k, j, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, tea_cg_calc_w_cell(a, k, j));
}

int tea_k_cg_calc_w(tea_chunk *c, double *pw) {
  tea_cg_args a = tea_cg_make(c);
  *pw = 0.0;
  if (c->reproducible)
    return tea_xreduce(c, "tea_cg_calc_w", tea_policy(tea_box_interior(c, 0)), &tea_k_cg_calc_w_x,
                       &a, 0, pw);
  return porta_parallel_reduce_md("tea_cg_calc_w", c->exec, tea_policy(tea_box_interior(c, 0)),
                                  &tea_k_cg_calc_w_r, &a, pw);
}

/* u += a p; r -= a w; rrn += r.r */
PORTA_FORCEINLINE_FUNCTION double tea_cg_calc_ur_none_cell(const tea_cg_args *a, int64_t k,
                                                           int64_t j) {
  PORTA_AT2(a->u, k, j) += a->alpha * PORTA_AT2(a->p, k, j);
  double r = PORTA_AT2(a->r, k, j) - a->alpha * PORTA_AT2(a->w, k, j);
  PORTA_AT2(a->r, k, j) = r;
  return r * r;
}
PORTA_MDREDUCE2(tea_k_cg_calc_ur_none, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  *acc += tea_cg_calc_ur_none_cell(a, k, j);
}
PORTA_MDREDUCE2(tea_k_cg_calc_ur_none_x, tea_cg_args, a, k, j, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, tea_cg_calc_ur_none_cell(a, k, j));
}

/* u += a p; r -= a w; z = Mi r; rrn += r.z */
PORTA_FORCEINLINE_FUNCTION double tea_cg_calc_ur_diag_cell(const tea_cg_args *a, int64_t k,
                                                           int64_t j) {
  PORTA_AT2(a->u, k, j) += a->alpha * PORTA_AT2(a->p, k, j);
  double r = PORTA_AT2(a->r, k, j) - a->alpha * PORTA_AT2(a->w, k, j);
  PORTA_AT2(a->r, k, j) = r;
  double z = PORTA_AT2(a->mi, k, j) * r;
  PORTA_AT2(a->z, k, j) = z;
  return r * z;
}
PORTA_MDREDUCE2(tea_k_cg_calc_ur_diag, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  *acc += tea_cg_calc_ur_diag_cell(a, k, j);
}
PORTA_MDREDUCE2(tea_k_cg_calc_ur_diag_x, tea_cg_args, a, k, j, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, tea_cg_calc_ur_diag_cell(a, k, j));
}

/* u += a p; r -= a w (block preconditioner follows) */
PORTA_MDFOR2(tea_k_cg_calc_ur_only, tea_cg_args, a, k, j) {
  PORTA_AT2(a->u, k, j) += a->alpha * PORTA_AT2(a->p, k, j);
  PORTA_AT2(a->r, k, j) -= a->alpha * PORTA_AT2(a->w, k, j);
}

/* sum r.z */
PORTA_MDREDUCE2(tea_k_dot_rz, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  *acc += PORTA_AT2(a->r, k, j) * PORTA_AT2(a->z, k, j);
}
PORTA_MDREDUCE2(tea_k_dot_rz_x, tea_cg_args, a, k, j, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, PORTA_AT2(a->r, k, j) * PORTA_AT2(a->z, k, j));
}

int tea_k_cg_calc_ur(tea_chunk *c, tea_precon pc, double alpha, double *rrn) {
  tea_cg_args a = tea_cg_make(c);
  a.alpha = alpha;
  porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  double s = 0.0;
  if (c->reproducible && rrn) { /* without rrn the sum is not used: the default kernels do */
    if (pc == TEA_PRECON_NONE)
      return tea_xreduce(c, "tea_cg_calc_ur", in, &tea_k_cg_calc_ur_none_x, &a, 0, rrn);
    if (pc == TEA_PRECON_JAC_DIAG)
      return tea_xreduce(c, "tea_cg_calc_ur", in, &tea_k_cg_calc_ur_diag_x, &a, 0, rrn);
    PORTA_CHECK(porta_parallel_for_md("tea_cg_calc_ur", c->exec, in, &tea_k_cg_calc_ur_only, &a));
    PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
    return tea_xreduce(c, "tea_dot_rz", in, &tea_k_dot_rz_x, &a, 0, rrn);
  }
  if (pc == TEA_PRECON_NONE) {
    PORTA_CHECK(
        porta_parallel_reduce_md("tea_cg_calc_ur", c->exec, in, &tea_k_cg_calc_ur_none, &a, &s));
  } else if (pc == TEA_PRECON_JAC_DIAG) {
    PORTA_CHECK(
        porta_parallel_reduce_md("tea_cg_calc_ur", c->exec, in, &tea_k_cg_calc_ur_diag, &a, &s));
  } else {
    PORTA_CHECK(porta_parallel_for_md("tea_cg_calc_ur", c->exec, in, &tea_k_cg_calc_ur_only, &a));
    PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
    if (rrn)
      PORTA_CHECK(porta_parallel_reduce_md("tea_dot_rz", c->exec, in, &tea_k_dot_rz, &a, &s));
  }
  if (rrn) *rrn = s;
  return PORTA_SUCCESS;
}

typedef struct {
  porta_view_f64 p, src;
  double beta;
} tea_p_args;

PORTA_MDFOR2(tea_k_cg_calc_p_f, tea_p_args, a, k, j) {
  PORTA_AT2(a->p, k, j) = PORTA_AT2(a->src, k, j) + a->beta * PORTA_AT2(a->p, k, j);
}

int tea_k_cg_calc_p(tea_chunk *c, int src, double beta) {
  tea_p_args a;
  a.p = TEA_F(c, TEA_FIELD_P);
  a.src = TEA_F(c, src);
  a.beta = beta;
  return porta_parallel_for_md("tea_cg_calc_p", c->exec, tea_policy(tea_box_interior(c, 0)),
                               &tea_k_cg_calc_p_f, &a);
}

/* ---- bandwidth-lean CG iteration (no preconditioner; docs/tealeaf.md "CG data movement") ----
 * The reference streams w and Di: calc_w reads p, Kx, Ky, Di and writes w (48 B/cell with the
 * write-allocate of w), calc_ur reads u, p, r, w and writes u, r (48 B), calc_p 24 B: 120 B.
 * Here w is never stored and Di is recomputed from Kx, Ky (tea_k_init_di's expression):
 *   calc_pw   pw = p.(A p)                      reads p, Kx, Ky               24 B
 *   calc_r_av r -= alpha (A p); rrn = r.r       reads p, Kx, Ky, r; writes r  40 B
 *   calc_up   u += alpha p; p = r + beta p      reads u, p, r; writes u, p    40 B
 * = 104 B/cell, no write-allocate. u's update moves to the p update (same old p) so that each
 * loop writes at most two arrays and gcc vectorises it (a reduce loop writing u and r reading
 * the stencil needs 13 run-time alias checks, over gcc's limit of 10). The numbers are bitwise
 * those of calc_w + calc_ur + calc_p (same expressions and order; C builds do not contract to
 * FMA by default). calc_pw and calc_r_av need p's halo (exchanged after each calc_up). */

/* (A v)(k,j) as TEA_AV with Di = 1 + ry (Ky(k+1,j) + Ky(k,j)) + rx (Kx(k,j+1) + Kx(k,j)). */
#define TEA_AV_NODI(a, v, k, j)                                                                    \
  ((1.0 + a->ry * (PORTA_AT2(a->ky, k + 1, j) + PORTA_AT2(a->ky, k, j)) +                          \
    a->rx * (PORTA_AT2(a->kx, k, j + 1) + PORTA_AT2(a->kx, k, j))) *                               \
       PORTA_AT2(v, k, j) -                                                                        \
   a->ry * (PORTA_AT2(a->ky, k + 1, j) * PORTA_AT2(v, k + 1, j) +                                  \
            PORTA_AT2(a->ky, k, j) * PORTA_AT2(v, k - 1, j)) -                                     \
   a->rx * (PORTA_AT2(a->kx, k, j + 1) * PORTA_AT2(v, k, j + 1) +                                  \
            PORTA_AT2(a->kx, k, j) * PORTA_AT2(v, k, j - 1)))

/* pw += p.(A p) */
PORTA_MDREDUCE2(tea_k_cg_calc_pw_r, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  *acc += TEA_AV_NODI(a, a->p, k, j) * PORTA_AT2(a->p, k, j);
}

int tea_k_cg_calc_pw(tea_chunk *c, double *pw) {
  tea_cg_args a = tea_cg_make(c);
  *pw = 0.0;
  return porta_parallel_reduce_md("tea_cg_calc_pw", c->exec, tea_policy(tea_box_interior(c, 0)),
                                  &tea_k_cg_calc_pw_r, &a, pw);
}

/* r -= a (A p); rrn += r.r */
PORTA_MDREDUCE2(tea_k_cg_calc_r_av_r, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  double r = PORTA_AT2(a->r, k, j) - a->alpha * TEA_AV_NODI(a, a->p, k, j);
  PORTA_AT2(a->r, k, j) = r;
  *acc += r * r;
}

int tea_k_cg_calc_r_av(tea_chunk *c, double alpha, double *rrn) {
  tea_cg_args a = tea_cg_make(c);
  a.alpha = alpha;
  *rrn = 0.0;
  return porta_parallel_reduce_md("tea_cg_calc_r_av", c->exec, tea_policy(tea_box_interior(c, 0)),
                                  &tea_k_cg_calc_r_av_r, &a, rrn);
}

/* u += a p; p = r + b p */
PORTA_MDFOR2(tea_k_cg_calc_up_f, tea_cg_args, a, k, j) {
  double p = PORTA_AT2(a->p, k, j);
  PORTA_AT2(a->u, k, j) += a->alpha * p;
  PORTA_AT2(a->p, k, j) = PORTA_AT2(a->r, k, j) + a->beta * p;
}

int tea_k_cg_calc_up(tea_chunk *c, double alpha, double beta) {
  tea_cg_args a = tea_cg_make(c);
  a.alpha = alpha;
  a.beta = beta;
  return porta_parallel_for_md("tea_cg_calc_up", c->exec, tea_policy(tea_box_interior(c, 0)),
                               &tea_k_cg_calc_up_f, &a);
}

/* ---- fused CG iteration (tea_step.c "fused": solver CG, no preconditioner) ----
 * calc_up of one iteration and calc_pw of the next in one pass: with q = r + beta p computed
 * on the fly at a cell and at its four neighbours (their r and p come from cache),
 *   u += alpha p;  q written to a second buffer;  pw = q.(A q)         reads u, p, r, Kx, Ky;
 *                                                                      writes u, q: 56 B/cell
 * then calc_r_av (40 B): 96 B/cell per iteration instead of 104 (sect. 3 of the reference
 * spec: "fusing p = r + b p into the next w = A p"). The pass covers the interior and one
 * ring of halo cells, so q's ring is computed locally from r's and p's rings: the iteration
 * exchanges r (depth 1) instead of p, and the ring cells' q equal the neighbour's (or the
 * mirror's) bit for bit. Ring cells update neither u nor pw (a select, not a product, so
 * whatever their clamped stencil reads cannot leak in). q is the same expression as calc_up's p, so
 * the iterates are those of the lean iteration; only the sums' order differs. */
typedef struct {
  porta_view_f64 u, p, r, q, kx, ky;
  double rx, ry, alpha, beta;
  int64_t k0, k1, j0, j1; /**< the interior */
} tea_cg_fused_args;

#define TEA_Q(a, k, j) (PORTA_AT2(a->r, k, j) + a->beta * PORTA_AT2(a->p, k, j))

PORTA_MDREDUCE2(tea_k_cg_fused_r, tea_cg_fused_args, a, k, j, porta_sum_f64, acc) {
  const bool in = k >= a->k0 && k < a->k1 && j >= a->j0 && j < a->j1;
  /* neighbours, clamped to the ring (the identity inside): a ring cell's stencil is discarded,
     and clamping keeps it within a halo of depth 1 */
  const int64_t kd = k > a->k0 - 1 ? k - 1 : k, ku = k < a->k1 ? k + 1 : k;
  const int64_t jl = j > a->j0 - 1 ? j - 1 : j, jr = j < a->j1 ? j + 1 : j;
  const double p = PORTA_AT2(a->p, k, j);
  const double q = PORTA_AT2(a->r, k, j) + a->beta * p;
  const double kyu = PORTA_AT2(a->ky, ku, j), kyd = PORTA_AT2(a->ky, k, j);
  const double kxr = PORTA_AT2(a->kx, k, jr), kxl = PORTA_AT2(a->kx, k, j);
  /* TEA_AV_NODI with v = q */
  const double aq = (1.0 + a->ry * (kyu + kyd) + a->rx * (kxr + kxl)) * q -
                    a->ry * (kyu * TEA_Q(a, ku, j) + kyd * TEA_Q(a, kd, j)) -
                    a->rx * (kxr * TEA_Q(a, k, jr) + kxl * TEA_Q(a, k, jl));
  PORTA_AT2(a->q, k, j) = q;
  PORTA_AT2(a->u, k, j) += in ? a->alpha * p : 0.0;
  *acc += in ? aq * q : 0.0;
}

int tea_k_cg_fused(tea_chunk *c, int q_field, double alpha, double beta, double *pw) {
  tea_cg_fused_args a;
  a.u = TEA_F(c, TEA_FIELD_U);
  a.p = TEA_F(c, TEA_FIELD_P);
  a.r = TEA_F(c, TEA_FIELD_R);
  a.q = TEA_F(c, q_field);
  a.kx = TEA_F(c, TEA_FIELD_KX);
  a.ky = TEA_F(c, TEA_FIELD_KY);
  a.rx = c->rx;
  a.ry = c->ry;
  a.alpha = alpha;
  a.beta = beta;
  a.k0 = c->halo;
  a.k1 = c->halo + c->ny;
  a.j0 = c->halo;
  a.j1 = c->halo + c->nx;
  *pw = 0.0;
  return porta_parallel_reduce_md("tea_cg_fused", c->exec,
                                  porta_mdrange2(a.k0 - 1, a.k1 + 1, a.j0 - 1, a.j1 + 1),
                                  &tea_k_cg_fused_r, &a, pw);
}

/* u += a p (the last iteration's update, when the fused pass does not follow) */
PORTA_MDFOR2(tea_k_cg_calc_u_f, tea_cg_args, a, k, j) {
  PORTA_AT2(a->u, k, j) += a->alpha * PORTA_AT2(a->p, k, j);
}

int tea_k_cg_calc_u(tea_chunk *c, double alpha) {
  tea_cg_args a = tea_cg_make(c);
  a.alpha = alpha;
  return porta_parallel_for_md("tea_cg_calc_u", c->exec, tea_policy(tea_box_interior(c, 0)),
                               &tea_k_cg_calc_u_f, &a);
}
