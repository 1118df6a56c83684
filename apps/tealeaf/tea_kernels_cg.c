/** @file tea_kernels_cg.c
 *  CG kernels (reference tea_leaf_cg_kernel): init, w = A p fused with p.w, the u/r update
 *  fused with r.r (or the diagonal preconditioner and r.z), and p = r (z) + beta p.
 *  Kernel file (C++17 compatible). */
#include <string.h>

#include "tea_pass.h"

/* One argument struct per kernel family, each holding what its kernels read and write (the
 * preconditioner's variants are kernels of their own, not flags read in the loop). */

/** p = z (z = r, Mi r or the block preconditioner's z); the sum of r.z. */
typedef struct {
  porta_view_f64 r, p, z, mi;
} tea_cg_init_args;

/** w = A p (A: the face coefficients kx, ky, the diagonal di, and rx, ry); the sum of p.w. */
typedef struct {
  porta_view_f64 p, w, kx, ky, di;
  double rx, ry;
} tea_cg_w_args;

/** u += alpha p; r -= alpha w (then z = Mi r); the sum of r.r or r.z. alpha is *alpha_at when
 *  set (a GPU's scalar), else `alpha` (a host back end's launcher read it: tea_scalar_arg). */
typedef struct {
  porta_view_f64 u, p, r, w, z, mi;
  double alpha;
  const double *alpha_at;
} tea_cg_ur_args;

/** The update's alpha (tea_cg_ur_args). */
#define TEA_CG_UR_ALPHA(a) TEA_KERNEL_SCALAR(a, alpha)

/** The sum of r.z. */
typedef struct {
  porta_view_f64 r, z;
} tea_cg_rz_args;

/** r -= alpha w; the sum of r.r. alpha as in tea_cg_ur_args. */
typedef struct {
  porta_view_f64 r, w;
  double alpha;
  const double *alpha_at;
} tea_cg_r_args;

/** u += alpha p; p = r + beta p, whole or split into an edge and an inside. alpha and beta
 *  as in tea_cg_ur_args; fused (tea_k_cg_calc_up): beta = rrn / rro from the scalars in every
 *  cell, and the test at cell (k0, j0), deciding through `loop`. */
typedef struct {
  porta_view_f64 u, p, r;
  double alpha, beta;
  const double *alpha_at, *beta_at;
  tea_loop_state st;
  porta_loop_handle loop;
  int64_t k0, j0;
  tea_split sp;
} tea_cg_up_args;

static tea_cg_w_args tea_cg_w_make(tea_chunk *c) {
  tea_cg_w_args a;
  a.p = TEA_F(c, TEA_FIELD_P);
  a.w = TEA_F(c, TEA_FIELD_W);
  TEA_ARGS_STENCIL(a, c);
  return a;
}

/* Each global-sum reduction is one APP_SUM_KERNEL_MD2 (app_sum.h): the cell's work and its
 * term, from which the double-sum kernel (default) and the exact porta_xsum_f64 kernel
 * (reproducible mode) are generated; c->sum picks one. */

/* p = r; rro += r.p */
APP_SUM_KERNEL_MD2(tea_k_cg_init_none, tea_cg_init_args, a, k, j) {
  double r = PORTA_AT2(a->r, k, j);
  PORTA_AT2(a->p, k, j) = r;
  return r * r;
}

/* z = Mi r when apply_mi (the diagonal preconditioner), else z as the block preconditioner
   left it; p = z; the term r.z */
PORTA_FORCEINLINE_FUNCTION double tea_cg_init_pre(const tea_cg_init_args *a, int64_t k, int64_t j,
                                                  int apply_mi) {
  double r = PORTA_AT2(a->r, k, j);
  double z = apply_mi ? PORTA_AT2(a->mi, k, j) * r : PORTA_AT2(a->z, k, j);
  if (apply_mi) PORTA_AT2(a->z, k, j) = z;
  PORTA_AT2(a->p, k, j) = z;
  return r * z;
}

APP_SUM_KERNEL_MD2(tea_k_cg_init_diag, tea_cg_init_args, a, k, j) {
  return tea_cg_init_pre(a, k, j, 1);
}

APP_SUM_KERNEL_MD2(tea_k_cg_init_block, tea_cg_init_args, a, k, j) {
  return tea_cg_init_pre(a, k, j, 0);
}

int tea_k_cg_init(tea_chunk *c, tea_precon pc, double *rro) {
  tea_cg_init_args a;
  a.r = TEA_F(c, TEA_FIELD_R);
  a.p = TEA_F(c, TEA_FIELD_P);
  a.z = TEA_F(c, TEA_FIELD_Z);
  a.mi = TEA_F(c, TEA_FIELD_MI);
  porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  const char *label = "tea_cg_init";
  *rro = 0.0;
  if (pc == TEA_PRECON_NONE) {
    PORTA_CHECK(tea_sum_check(c, label));
    return APP_SUM_REDUCE(tea_k_cg_init_none, c->sum, label, c->exec, in, &a, 0, rro);
  }
  if (pc == TEA_PRECON_JAC_BLOCK) {
    PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
    PORTA_CHECK(tea_sum_check(c, label));
    return APP_SUM_REDUCE(tea_k_cg_init_block, c->sum, label, c->exec, in, &a, 0, rro);
  }
  PORTA_CHECK(tea_sum_check(c, label));
  return APP_SUM_REDUCE(tea_k_cg_init_diag, c->sum, label, c->exec, in, &a, 0, rro);
}

/* u += a p; r -= a w; rrn += r.r (an exact sum's second pass: r.r as r is now) */
APP_SUM_AGAIN_MD2(tea_k_cg_calc_ur_none, tea_cg_ur_args, a, k, j) {
  const double r = PORTA_AT2(a->r, k, j);
  return r * r;
}
APP_SUM_KERNEL_MD2_UPDATING(tea_k_cg_calc_ur_none, tea_cg_ur_args, a, k, j) {
  const double alpha = TEA_CG_UR_ALPHA(a);
  PORTA_AT2(a->u, k, j) += alpha * PORTA_AT2(a->p, k, j);
  double r = PORTA_AT2(a->r, k, j) - alpha * PORTA_AT2(a->w, k, j);
  PORTA_AT2(a->r, k, j) = r;
  return r * r;
}

/* u += a p; r -= a w; z = Mi r; rrn += r.z (again: r.z as they are now) */
APP_SUM_AGAIN_MD2(tea_k_cg_calc_ur_diag, tea_cg_ur_args, a, k, j) {
  return PORTA_AT2(a->r, k, j) * PORTA_AT2(a->z, k, j);
}
APP_SUM_KERNEL_MD2_UPDATING(tea_k_cg_calc_ur_diag, tea_cg_ur_args, a, k, j) {
  const double alpha = TEA_CG_UR_ALPHA(a);
  PORTA_AT2(a->u, k, j) += alpha * PORTA_AT2(a->p, k, j);
  double r = PORTA_AT2(a->r, k, j) - alpha * PORTA_AT2(a->w, k, j);
  PORTA_AT2(a->r, k, j) = r;
  double z = PORTA_AT2(a->mi, k, j) * r;
  PORTA_AT2(a->z, k, j) = z;
  return r * z;
}

/* u += a p; r -= a w (block preconditioner follows) */
PORTA_MDFOR2(tea_k_cg_calc_ur_only, tea_cg_ur_args, a, k, j) {
  const double alpha = TEA_CG_UR_ALPHA(a);
  PORTA_AT2(a->u, k, j) += alpha * PORTA_AT2(a->p, k, j);
  PORTA_AT2(a->r, k, j) -= alpha * PORTA_AT2(a->w, k, j);
}

/* sum r.z */
APP_SUM_KERNEL_MD2(tea_k_dot_rz, tea_cg_rz_args, a, k, j) {
  return PORTA_AT2(a->r, k, j) * PORTA_AT2(a->z, k, j);
}

/* u += a p; r -= a w; z = Mi r (PPCG: no sum) */
PORTA_MDFOR2(tea_k_cg_calc_ur_z, tea_cg_ur_args, a, k, j) {
  const double alpha = TEA_CG_UR_ALPHA(a);
  PORTA_AT2(a->u, k, j) += alpha * PORTA_AT2(a->p, k, j);
  const double r = PORTA_AT2(a->r, k, j) - alpha * PORTA_AT2(a->w, k, j);
  PORTA_AT2(a->r, k, j) = r;
  PORTA_AT2(a->z, k, j) = PORTA_AT2(a->mi, k, j) * r;
}

static tea_cg_ur_args tea_cg_ur_make(tea_chunk *c, const double *alpha) {
  tea_cg_ur_args a;
  a.u = TEA_F(c, TEA_FIELD_U);
  a.p = TEA_F(c, TEA_FIELD_P);
  a.r = TEA_F(c, TEA_FIELD_R);
  a.w = TEA_F(c, TEA_FIELD_W);
  a.z = TEA_F(c, TEA_FIELD_Z);
  a.mi = TEA_F(c, TEA_FIELD_MI);
  tea_scalar_arg(c->exec, alpha, &a.alpha, &a.alpha_at);
  return a;
}

int tea_k_ppcg_calc_ur(tea_chunk *c, tea_precon pc, const double *alpha) {
  const porta_exec exec = c->exec;
  const tea_cg_ur_args a = tea_cg_ur_make(c, alpha);
  const porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  if (pc == TEA_PRECON_JAC_DIAG)
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_ur", tea_k_cg_calc_ur_z, exec, in, &a));
  else
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_ur", tea_k_cg_calc_ur_only, exec, in, &a));
  return pc == TEA_PRECON_JAC_BLOCK ? tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z) : PORTA_SUCCESS;
}

int tea_k_cg_calc_ur(tea_chunk *c, tea_precon pc, const double *alpha, app_sum_to rrn) {
  const porta_exec exec = c->exec;
  const porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  if (pc == TEA_PRECON_JAC_BLOCK) { /* the update, the block solve, then r.z */
    PORTA_CHECK(tea_k_ppcg_calc_ur(c, pc, alpha));
    tea_cg_rz_args rz;
    rz.r = TEA_F(c, TEA_FIELD_R);
    rz.z = TEA_F(c, TEA_FIELD_Z);
    return APP_SUM_REDUCE_INTO(tea_k_dot_rz, "tea_dot_rz", exec, in, &rz, rrn);
  }
  const tea_cg_ur_args a = tea_cg_ur_make(c, alpha);
  if (pc == TEA_PRECON_JAC_DIAG)
    return APP_SUM_REDUCE_INTO(tea_k_cg_calc_ur_diag, "tea_cg_calc_ur", exec, in, &a, rrn);
  return APP_SUM_REDUCE_INTO(tea_k_cg_calc_ur_none, "tea_cg_calc_ur", exec, in, &a, rrn);
}

/** p = src + beta p; beta is *beta_at when set (from device memory), else `beta`. */
typedef struct {
  porta_view_f64 p, src;
  double beta;
  const double *beta_at;
} tea_p_args;

PORTA_MDFOR2(tea_k_cg_calc_p_f, tea_p_args, a, k, j) {
  const double beta = TEA_KERNEL_SCALAR(a, beta);
  PORTA_AT2(a->p, k, j) = PORTA_AT2(a->src, k, j) + beta * PORTA_AT2(a->p, k, j);
}

int tea_k_cg_calc_p(tea_chunk *c, int src, const double *beta) {
  const porta_exec exec = c->exec;
  tea_p_args a;
  a.p = TEA_F(c, TEA_FIELD_P);
  a.src = TEA_F(c, src);
  tea_scalar_arg(exec, beta, &a.beta, &a.beta_at);
  return PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_p", tea_k_cg_calc_p_f, exec,
                                    tea_policy(tea_box_interior(c, 0)), &a);
}

/* ---- the scalar steps of CG and PPCG: one-thread kernels (tea_pass.h) ---- */

/* rro = rrn (the last iteration's r.r; the start's rro first); alpha = rro / pw */
TEA_LOOP_KERNEL(tea_k_loop_cg_alpha, "tea_cg_loop_alpha", tea_loop_cg_alpha(&a->st))
/* beta = rrn / rro; rro = rrn; the test on rrn (r.r for CG): whether another iteration runs
   after this one's p update */
TEA_LOOP_KERNEL(tea_k_loop_cg_test, "tea_cg_loop_test",
                porta_loop_decide(&a->loop, tea_loop_cg_beta_test(&a->st)))
/* PPCG: rro = utemp.r; alpha = rro / pw; and CG's test */
TEA_LOOP_KERNEL(tea_k_loop_ppcg_alpha, "tea_ppcg_loop_alpha", tea_loop_ppcg_alpha(&a->st))
TEA_LOOP_KERNEL(tea_k_loop_ppcg_test, "tea_ppcg_loop_test",
                porta_loop_decide(&a->loop, tea_loop_cg_beta_test(&a->st)))

/* ---- lean CG iteration (no preconditioner; docs/tealeaf.md "CG data movement"); its calc_w is
 * every CG iteration's (with a preconditioner too: its exact first pass over the stored Di cost
 * 194 us against 171 ordinary on an H200, and 8 B/cell more in any mode)
 * The reference streams Di and updates u in the r loop: 112 B/cell (120 with w's write-allocate).
 * Here Di is recomputed from Kx, Ky (tea_k_init_di's expression), and u's update moves to the p
 * update (same old p), so each loop touches as few arrays as possible:
 *   calc_w       w = A p; pw = p.w           reads p, Kx, Ky; writes w        32 B
 *   calc_r       r -= alpha w; rr = r.r      reads r, w; writes r             24 B
 *   calc_up      u += alpha p; p = r + beta p reads u, p, r; writes u, p      40 B
 * = 96 B/cell (104 on a CPU, which reads w's lines before writing them). Recomputing A p in the
 * r update instead of storing w (104 B/cell, measured) and fusing p's update into the next A p
 * (96 B/cell, but a stencil over r + beta p recomputed at five points) both ran slower on an
 * H100. In C builds (no FMA contraction) the iterates are bitwise those of the reference
 * ordering; nvcc contracts, so on a GPU the last bits may differ from that ordering. */

/* (A v)(k,j) as TEA_AV with Di = 1 + ry (Ky(k+1,j) + Ky(k,j)) + rx (Kx(k,j+1) + Kx(k,j)). */
#define TEA_AV_NODI(a, v, k, j)                                                                    \
  ((1.0 + a->ry * (PORTA_AT2(a->ky, k + 1, j) + PORTA_AT2(a->ky, k, j)) +                          \
    a->rx * (PORTA_AT2(a->kx, k, j + 1) + PORTA_AT2(a->kx, k, j))) *                               \
       PORTA_AT2(v, k, j) -                                                                        \
   a->ry * (PORTA_AT2(a->ky, k + 1, j) * PORTA_AT2(v, k + 1, j) +                                  \
            PORTA_AT2(a->ky, k, j) * PORTA_AT2(v, k - 1, j)) -                                     \
   a->rx * (PORTA_AT2(a->kx, k, j + 1) * PORTA_AT2(v, k, j + 1) +                                  \
            PORTA_AT2(a->kx, k, j) * PORTA_AT2(v, k, j - 1)))

/* w = A p; pw += p.w */
APP_SUM_KERNEL_MD2(tea_k_cg_calc_w_r, tea_cg_w_args, a, k, j) {
  const double w = TEA_AV_NODI(a, a->p, k, j);
  PORTA_AT2(a->w, k, j) = w;
  return w * PORTA_AT2(a->p, k, j);
}

/* r -= a w; rrn += r.r (again: r.r as r is now) */
APP_SUM_AGAIN_MD2(tea_k_cg_calc_r_r, tea_cg_r_args, a, k, j) {
  const double r = PORTA_AT2(a->r, k, j);
  return r * r;
}
APP_SUM_KERNEL_MD2_UPDATING(tea_k_cg_calc_r_r, tea_cg_r_args, a, k, j) {
  const double alpha = TEA_CG_UR_ALPHA(a);
  const double r = PORTA_AT2(a->r, k, j) - alpha * PORTA_AT2(a->w, k, j);
  PORTA_AT2(a->r, k, j) = r;
  return r * r;
}

int tea_k_cg_calc_r(tea_chunk *c, const double *alpha, app_sum_to rrn) {
  const porta_exec exec = c->exec;
  tea_cg_r_args a;
  a.r = TEA_F(c, TEA_FIELD_R);
  a.w = TEA_F(c, TEA_FIELD_W);
  tea_scalar_arg(exec, alpha, &a.alpha, &a.alpha_at);
  return APP_SUM_REDUCE_INTO(tea_k_cg_calc_r_r, "tea_cg_calc_r", exec,
                             tea_policy(tea_box_interior(c, 0)), &a, rrn);
}

/* u += alpha p; p = r + beta p */
PORTA_INLINE_FUNCTION void tea_cg_up(const tea_cg_up_args *a, int64_t k, int64_t j) {
  tea_cg_up_cell(a->u, a->p, a->r, k, j, TEA_KERNEL_SCALAR(a, alpha), TEA_KERNEL_SCALAR(a, beta));
}

PORTA_MDFOR2(tea_k_cg_calc_up_f, tea_cg_up_args, a, k, j) { tea_cg_up(a, k, j); }

/* beta = rrn / rro; u += alpha p; p = r + beta p; one thread: the test on r.r (rro becomes rrn
   in the next iteration's alpha kernel, after every thread here has read it) */
PORTA_INLINE_FUNCTION void tea_cg_up_test(const tea_cg_up_args *a, int64_t k, int64_t j) {
  const double rrn = PORTA_LDG(a->st.scal[TEA_LOOP_RRN]);
  const double beta = rrn / PORTA_LDG(a->st.scal[TEA_LOOP_RRO]);
  tea_cg_up_cell(a->u, a->p, a->r, k, j, PORTA_LDG(a->st.scal[TEA_LOOP_ALPHA]), beta);
  if (k == a->k0 && j == a->j0) { /* beta kept for the host (CG's coefficient history) */
    a->st.scal[TEA_LOOP_BETA] = beta;
    porta_loop_decide(&a->loop, tea_loop_test(&a->st, rrn));
  }
}

PORTA_MDFOR2(tea_k_cg_calc_up_test_f, tea_cg_up_args, a, k, j) { tea_cg_up_test(a, k, j); }

TEA_SPLIT_KERNELS(tea_k_cg_up_split, tea_cg_up_args, tea_cg_up, "tea_cg_calc_up",
                  tea_k_cg_calc_up_f)
TEA_SPLIT_KERNELS(tea_k_cg_up_test_split, tea_cg_up_args, tea_cg_up_test, "tea_cg_calc_up",
                  tea_k_cg_calc_up_test_f)

/** The update's arguments, after the test kernel unless fused (alpha and beta read here where
 *  tea_scalars_by_value); the fused test at the interior's first cell. */
static tea_cg_up_args tea_cg_up_make(tea_chunk *c, const tea_loop_state *st,
                                     const porta_loop_handle *decider) {
  const tea_box in = tea_box_interior(c, 0);
  tea_cg_up_args a;
  memset(&a, 0, sizeof a);
  a.u = TEA_F(c, TEA_FIELD_U);
  a.p = TEA_F(c, TEA_FIELD_P);
  a.r = TEA_F(c, TEA_FIELD_R);
  tea_scalar_arg(c->exec, &st->scal[TEA_LOOP_ALPHA], &a.alpha, &a.alpha_at);
  tea_scalar_arg(c->exec, &st->scal[TEA_LOOP_BETA], &a.beta, &a.beta_at);
  a.st = *st;
  a.loop = *decider;
  a.k0 = in.k0;
  a.j0 = in.j0;
  return a;
}

int tea_k_cg_calc_up(tea_chunk *c, const tea_loop_state *st, const porta_loop_handle *decider,
                     bool fused) {
  if (!fused) PORTA_CHECK(tea_k_loop_cg_test(c->exec, st, decider));
  const tea_cg_up_args a = tea_cg_up_make(c, st, decider);
  const porta_mdrange_policy all = tea_policy(tea_box_interior(c, 0));
  return fused ? PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up", tea_k_cg_calc_up_test_f, c->exec, all,
                                            &a)
               : PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up", tea_k_cg_calc_up_f, c->exec, all, &a);
}

int tea_k_cg_calc_up_split(tea_chunk *c, porta_exec ring_exec, const tea_loop_state *st,
                           const porta_loop_handle *decider, bool fused) {
  tea_cg_up_args a = tea_cg_up_make(c, st, decider);
  return fused ? tea_k_cg_up_test_split_run(c, 1, ring_exec, &a)
               : tea_k_cg_up_split_run(c, 1, ring_exec, &a);
}

int tea_k_cg_calc_w(tea_chunk *c, app_sum_to pw) {
  const porta_exec exec = c->exec;
  tea_cg_w_args a = tea_cg_w_make(c);
  return APP_SUM_REDUCE_INTO(tea_k_cg_calc_w_r, "tea_cg_calc_w", exec,
                             tea_policy(tea_box_interior(c, 0)), &a, pw);
}
