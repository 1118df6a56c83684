/** @file tea_kernels_ppcg.c
 *  PPCG kernels (reference tea_leaf_ppcg_kernel): the outer iteration's and the inner
 *  Chebyshev-polynomial steps' (their loop, with the communication-avoiding halo, is
 *  tea_solve_ppcg.c's).
 *
 *  Deliberate difference from the reference: the reference exchanges r (never changed by the
 *  inner steps) where rtemp is needed, so with halo_depth > 1 on several ranks its overlap cells
 *  use stale rtemp values. We exchange rtemp (TEA_FIELD_RTEMP). On one rank, or with
 *  halo_depth 1, the two are identical. The inner result ("z" of the reference) is left in
 *  UTEMP, which the outer iteration uses directly (no copy z = utemp).
 *  Kernel file (C++17 compatible). */
#include <string.h>

#include "tea_internal.h"

/* One argument struct per kernel family, each with what its kernels read and write; the
 * preconditioner's variants are kernels of their own, not a flag read in the loop. */

/** sd = (M r) / theta; rtemp = r; utemp = sd. */
typedef struct {
  porta_view_f64 r, z, sd, rtemp, utemp;
  double theta_r; /**< 1 / theta */
} tea_pp_init_sd_args;

/** rtemp -= A sd (A: kx, ky, di, rx, ry). */
typedef struct {
  porta_view_f64 sd, rtemp, kx, ky, di;
  double rx, ry;
} tea_pp_inner_r_args;

/** sd = alpha sd + beta (M rtemp); utemp += sd, whole or split into an edge and an inside. */
typedef struct {
  porta_view_f64 sd, utemp, rtemp, z, mi;
  double alpha, beta;
  tea_split sp; /**< the split inner step's edge and inside */
} tea_pp_inner_sd_args;

/** The outer iteration: w = A p with r kept in rstore, and the sums of p.w, utemp.r,
 *  (r - rstore).utemp; p = utemp with the sum of r.p. */
typedef struct {
  porta_view_f64 p, r, w, kx, ky, di, utemp, rstore;
  double rx, ry;
} tea_pp_outer_args;

/* sd = (z or r) / theta; rtemp = r; utemp = sd */
PORTA_FORCEINLINE_FUNCTION void tea_pp_init_sd_cell(const tea_pp_init_sd_args *a, int64_t k,
                                                    int64_t j, int preconditioned) {
  double r = PORTA_AT2(a->r, k, j);
  double src = preconditioned ? PORTA_AT2(a->z, k, j) : r;
  double sd = src * a->theta_r;
  PORTA_AT2(a->sd, k, j) = sd;
  PORTA_AT2(a->rtemp, k, j) = r;
  PORTA_AT2(a->utemp, k, j) = sd;
}

PORTA_MDFOR2(tea_k_pp_init_sd_none, tea_pp_init_sd_args, a, k, j) {
  tea_pp_init_sd_cell(a, k, j, 0);
}

PORTA_MDFOR2(tea_k_pp_init_sd_pre, tea_pp_init_sd_args, a, k, j) {
  tea_pp_init_sd_cell(a, k, j, 1);
}

/* rtemp -= A sd */
PORTA_MDFOR2(tea_k_pp_inner_r, tea_pp_inner_r_args, a, k, j) {
  PORTA_AT2(a->rtemp, k, j) -= TEA_AV(a, a->sd, k, j);
}

/* sd = alpha sd + beta (M rtemp); utemp += sd, M as the preconditioner pc */
PORTA_FORCEINLINE_FUNCTION void tea_pp_inner_sd_cell(const tea_pp_inner_sd_args *a, int64_t k,
                                                     int64_t j, tea_precon pc) {
  double src;
  if (pc == TEA_PRECON_JAC_DIAG)
    src = PORTA_AT2(a->mi, k, j) * PORTA_AT2(a->rtemp, k, j);
  else if (pc == TEA_PRECON_JAC_BLOCK)
    src = PORTA_AT2(a->z, k, j);
  else
    src = PORTA_AT2(a->rtemp, k, j);
  double sd = a->alpha * PORTA_AT2(a->sd, k, j) + a->beta * src;
  PORTA_AT2(a->sd, k, j) = sd;
  PORTA_AT2(a->utemp, k, j) += sd;
}

/* the inner step's kernel for each preconditioner */
TEA_PRECON_KERNELS(tea_k_pp_inner_sd, tea_pp_inner_sd_args, tea_pp_inner_sd_cell);

/* the same split: the edge (halo deep) beside, then the inside (not with the block
   preconditioner, whose columns cross the edge) */
TEA_SPLIT_KERNELS(tea_k_pp_inner_sd_split_none, tea_pp_inner_sd_args, tea_k_pp_inner_sd_none_cell,
                  "tea_ppcg_inner_sd", tea_k_pp_inner_sd_none);
TEA_SPLIT_KERNELS(tea_k_pp_inner_sd_split_diag, tea_pp_inner_sd_args, tea_k_pp_inner_sd_diag_cell,
                  "tea_ppcg_inner_sd", tea_k_pp_inner_sd_diag);

int tea_k_ppcg_init_sd(tea_chunk *c, tea_precon pc, double theta) {
  tea_pp_init_sd_args a;
  a.r = TEA_F(c, TEA_FIELD_R);
  a.z = TEA_F(c, TEA_FIELD_Z);
  a.sd = TEA_F(c, TEA_FIELD_SD);
  a.rtemp = TEA_F(c, TEA_FIELD_RTEMP);
  a.utemp = TEA_F(c, TEA_FIELD_UTEMP);
  a.theta_r = 1.0 / theta;
  const porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  if (pc != TEA_PRECON_NONE)
    return PORTA_PARALLEL_FOR_LABELED("tea_ppcg_init_sd", tea_k_pp_init_sd_pre, c->exec, in, &a);
  return PORTA_PARALLEL_FOR_LABELED("tea_ppcg_init_sd", tea_k_pp_init_sd_none, c->exec, in, &a);
}

int tea_k_ppcg_inner_r(tea_chunk *c, int extra) {
  tea_pp_inner_r_args a;
  a.sd = TEA_F(c, TEA_FIELD_SD);
  a.rtemp = TEA_F(c, TEA_FIELD_RTEMP);
  TEA_ARGS_STENCIL(a, c);
  return PORTA_PARALLEL_FOR_LABELED("tea_ppcg_inner_r", tea_k_pp_inner_r, c->exec,
                                    tea_policy(tea_box_interior(c, extra)), &a);
}

static tea_pp_inner_sd_args tea_pp_inner_sd_make(tea_chunk *c, double alpha, double beta) {
  tea_pp_inner_sd_args a;
  a.sd = TEA_F(c, TEA_FIELD_SD);
  a.utemp = TEA_F(c, TEA_FIELD_UTEMP);
  a.rtemp = TEA_F(c, TEA_FIELD_RTEMP);
  a.z = TEA_F(c, TEA_FIELD_Z);
  a.mi = TEA_F(c, TEA_FIELD_MI);
  a.alpha = alpha;
  a.beta = beta;
  memset(&a.sp, 0, sizeof a.sp);
  return a;
}

int tea_k_ppcg_inner_sd(tea_chunk *c, tea_precon pc, int extra, double alpha, double beta) {
  tea_pp_inner_sd_args a = tea_pp_inner_sd_make(c, alpha, beta);
  return tea_k_pp_inner_sd_launch("tea_ppcg_inner_sd", c->exec,
                                  tea_policy(tea_box_interior(c, extra)), pc, &a);
}

int tea_k_ppcg_inner_sd_split(tea_chunk *c, tea_precon pc, porta_exec ring_exec, double alpha,
                              double beta) {
  if (pc == TEA_PRECON_JAC_BLOCK)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_k_ppcg_inner_sd_split", "precon",
                       "the block preconditioner's columns cross the edge: no split");
  tea_pp_inner_sd_args a = tea_pp_inner_sd_make(c, alpha, beta);
  if (pc == TEA_PRECON_JAC_DIAG) return tea_k_pp_inner_sd_split_diag_run(c, c->halo, ring_exec, &a);
  return tea_k_pp_inner_sd_split_none_run(c, c->halo, ring_exec, &a);
}

static tea_pp_outer_args tea_pp_outer_make(tea_chunk *c) {
  tea_pp_outer_args a;
  a.p = TEA_F(c, TEA_FIELD_P);
  a.r = TEA_F(c, TEA_FIELD_R);
  a.w = TEA_F(c, TEA_FIELD_W);
  TEA_ARGS_STENCIL(a, c);
  a.utemp = TEA_F(c, TEA_FIELD_UTEMP);
  a.rstore = TEA_F(c, TEA_FIELD_RSTORE);
  return a;
}

/* w = A p; rstore = r; pw += p.w */
PORTA_FORCEINLINE_FUNCTION double tea_pp_calc_w_cell(const tea_pp_outer_args *a, int64_t k,
                                                     int64_t j) {
  double p = PORTA_AT2(a->p, k, j);
  double w = TEA_AV(a, a->p, k, j);
  PORTA_AT2(a->w, k, j) = w;
  PORTA_AT2(a->rstore, k, j) = PORTA_AT2(a->r, k, j);
  return w * p;
}
/* rz += utemp.r */
PORTA_FORCEINLINE_FUNCTION double tea_pp_rz_cell(const tea_pp_outer_args *a, int64_t k, int64_t j) {
  return PORTA_AT2(a->utemp, k, j) * PORTA_AT2(a->r, k, j);
}

/* Reproducible mode: the two sums as two reductions (a pair of porta_xsum_f64 values would not
 * fit a CUDA block's shared memory). */
APP_SUM_KERNEL_MD2(tea_k_pp_calc_w, tea_pp_outer_args, a, k, j) {
  return tea_pp_calc_w_cell(a, k, j);
}
APP_SUM_KERNEL_MD2(tea_k_pp_rz, tea_pp_outer_args, a, k, j) { return tea_pp_rz_cell(a, k, j); }

/* Default mode: both sums in one pass over the arrays (the same terms in the same order). */
PORTA_DEFINE_SUM_REDUCER(tea_sum2, double, 2)
PORTA_MDREDUCE2(tea_k_pp_calc_w_rz, tea_pp_outer_args, a, k, j, tea_sum2, acc) {
  acc->v[0] += tea_pp_calc_w_cell(a, k, j);
  acc->v[1] += tea_pp_rz_cell(a, k, j);
}

/* rrn += (r - rstore).utemp */
APP_SUM_KERNEL_MD2(tea_k_pp_rrn, tea_pp_outer_args, a, k, j) {
  return (PORTA_AT2(a->r, k, j) - PORTA_AT2(a->rstore, k, j)) * PORTA_AT2(a->utemp, k, j);
}

/* p = utemp; rro += r.p */
APP_SUM_KERNEL_MD2(tea_k_pp_init_p, tea_pp_outer_args, a, k, j) {
  double p = PORTA_AT2(a->utemp, k, j);
  PORTA_AT2(a->p, k, j) = p;
  return PORTA_AT2(a->r, k, j) * p;
}

int tea_k_ppcg_init_p(tea_chunk *c, double *rro) {
  tea_pp_outer_args a = tea_pp_outer_make(c);
  *rro = 0.0;
  PORTA_CHECK(tea_sum_check(c, "tea_ppcg_init_p"));
  return APP_SUM_REDUCE(tea_k_pp_init_p, c->sum, "tea_ppcg_init_p", c->exec,
                        tea_policy(tea_box_interior(c, 0)), &a, 0, rro);
}

int tea_k_ppcg_calc_w_store(tea_chunk *c, app_sum_to pw_rz) {
  const porta_exec exec = c->exec;
  tea_pp_outer_args a = tea_pp_outer_make(c);
  const porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  if (pw_rz.exact) { /* two exact sums, as the host loop's */
    const app_sum_to rz = app_sum_to_next(pw_rz);
    PORTA_CHECK(APP_SUM_REDUCE_INTO(tea_k_pp_calc_w, "tea_ppcg_calc_w", exec, in, &a, pw_rz));
    return APP_SUM_REDUCE_INTO(tea_k_pp_rz, "tea_ppcg_calc_rz", exec, in, &a, rz);
  }
  /* value[0..1] is the reducer's value (two doubles), in memory of exec's space */
  tea_sum2_value *v = (tea_sum2_value *)pw_rz.value;
  return PORTA_PARALLEL_REDUCE_INTO_LABELED("tea_ppcg_calc_w", tea_k_pp_calc_w_rz, exec, in, &a, v);
}

int tea_k_ppcg_calc_rrn(tea_chunk *c, app_sum_to rrn) {
  const porta_exec exec = c->exec;
  tea_pp_outer_args a = tea_pp_outer_make(c);
  return APP_SUM_REDUCE_INTO(tea_k_pp_rrn, "tea_ppcg_calc_rrn", exec,
                             tea_policy(tea_box_interior(c, 0)), &a, rrn);
}
