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

/* p = r; rro += r.p */
PORTA_MDREDUCE2(tea_k_cg_init_none, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  double r = PORTA_AT2(a->r, k, j);
  PORTA_AT2(a->p, k, j) = r;
  *acc += r * r;
}

/* z = Mi r (diag only); p = z; rro += r.p */
PORTA_MDREDUCE2(tea_k_cg_init_pre, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  double r = PORTA_AT2(a->r, k, j);
  double z = a->alpha != 0.0 ? PORTA_AT2(a->mi, k, j) * r : PORTA_AT2(a->z, k, j);
  if (a->alpha != 0.0) PORTA_AT2(a->z, k, j) = z;
  PORTA_AT2(a->p, k, j) = z;
  *acc += r * z;
}

int tea_k_cg_init(tea_chunk *c, tea_precon pc, double *rro) {
  tea_cg_args a = tea_cg_make(c);
  porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  *rro = 0.0;
  if (pc == TEA_PRECON_NONE)
    return porta_parallel_reduce_md("tea_cg_init", c->exec, in, &tea_k_cg_init_none, &a, rro);
  if (pc == TEA_PRECON_JAC_BLOCK) PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
  a.alpha = pc == TEA_PRECON_JAC_DIAG ? 1.0 : 0.0; /* flag: apply Mi inline */
  return porta_parallel_reduce_md("tea_cg_init", c->exec, in, &tea_k_cg_init_pre, &a, rro);
}

/* w = A p; pw += p.w */
PORTA_MDREDUCE2(tea_k_cg_calc_w_r, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  double w = TEA_AV(a, a->p, k, j);
  PORTA_AT2(a->w, k, j) = w;
  *acc += w * PORTA_AT2(a->p, k, j);
}

int tea_k_cg_calc_w(tea_chunk *c, double *pw) {
  tea_cg_args a = tea_cg_make(c);
  *pw = 0.0;
  return porta_parallel_reduce_md("tea_cg_calc_w", c->exec, tea_policy(tea_box_interior(c, 0)),
                                  &tea_k_cg_calc_w_r, &a, pw);
}

/* u += a p; r -= a w; rrn += r.r */
PORTA_MDREDUCE2(tea_k_cg_calc_ur_none, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  PORTA_AT2(a->u, k, j) += a->alpha * PORTA_AT2(a->p, k, j);
  double r = PORTA_AT2(a->r, k, j) - a->alpha * PORTA_AT2(a->w, k, j);
  PORTA_AT2(a->r, k, j) = r;
  *acc += r * r;
}

/* u += a p; r -= a w; z = Mi r; rrn += r.z */
PORTA_MDREDUCE2(tea_k_cg_calc_ur_diag, tea_cg_args, a, k, j, porta_sum_f64, acc) {
  PORTA_AT2(a->u, k, j) += a->alpha * PORTA_AT2(a->p, k, j);
  double r = PORTA_AT2(a->r, k, j) - a->alpha * PORTA_AT2(a->w, k, j);
  PORTA_AT2(a->r, k, j) = r;
  double z = PORTA_AT2(a->mi, k, j) * r;
  PORTA_AT2(a->z, k, j) = z;
  *acc += r * z;
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

int tea_k_cg_calc_ur(tea_chunk *c, tea_precon pc, double alpha, double *rrn) {
  tea_cg_args a = tea_cg_make(c);
  a.alpha = alpha;
  porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  double s = 0.0;
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
