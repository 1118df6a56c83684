/** @file tea_kernels_cheby.c
 *  Chebyshev kernels (reference tea_leaf_cheby_kernel): r = u0 - A u (w is not stored: the
 *  reference writes it but never reads it), then p = alpha p + beta (M) r and u += p.
 *  Kernel file (C++17 compatible). */
#include <string.h>

#include "tea_pass.h"

/* Two kernel families (the residual's struct is tea_internal.h's), each with the struct of what
 * it reads and writes; the preconditioner's variants are kernels of their own
 * (TEA_PRECON_KERNELS), not a flag read in the loop. */

/** p = alpha p + beta (M r) (the first step: p = (M r) / theta); u += p. */
typedef struct {
  porta_view_f64 u, p, r, z, mi;
  double alpha, beta, theta;
  tea_split sp; /**< the split update's edge and inside */
} tea_ch_update_args;

/* r = u0 - A u (tea_resid_args, tea_internal.h) */
PORTA_MDFOR2(tea_k_ch_resid, tea_resid_args, a, k, j) {
  PORTA_AT2(a->r, k, j) = PORTA_AT2(a->u0, k, j) - TEA_AV(a, a->u, k, j);
}

/** M r at cell (k, j) for the preconditioner pc: Mi r (kept in z), the block's z, or r. */
PORTA_FORCEINLINE_FUNCTION double tea_ch_source(const tea_ch_update_args *a, int64_t k, int64_t j,
                                                tea_precon pc) {
  if (pc == TEA_PRECON_JAC_DIAG) {
    const double src = PORTA_AT2(a->mi, k, j) * PORTA_AT2(a->r, k, j);
    PORTA_AT2(a->z, k, j) = src;
    return src;
  }
  return pc == TEA_PRECON_JAC_BLOCK ? PORTA_AT2(a->z, k, j) : PORTA_AT2(a->r, k, j);
}

/* first step: p = (M r) / theta; u += p */
PORTA_FORCEINLINE_FUNCTION void tea_ch_init_cell(const tea_ch_update_args *a, int64_t k, int64_t j,
                                                 tea_precon pc) {
  double p = tea_ch_source(a, k, j, pc) / a->theta;
  PORTA_AT2(a->p, k, j) = p;
  PORTA_AT2(a->u, k, j) += p;
}

/* p = alpha p + beta (M r); u += p */
PORTA_FORCEINLINE_FUNCTION void tea_ch_iter_cell_ab(const tea_ch_update_args *a, int64_t k,
                                                    int64_t j, tea_precon pc, double alpha,
                                                    double beta) {
  const double src = tea_ch_source(a, k, j, pc);
  double p = alpha * PORTA_AT2(a->p, k, j) + beta * src;
  PORTA_AT2(a->p, k, j) = p;
  PORTA_AT2(a->u, k, j) += p;
}

PORTA_FORCEINLINE_FUNCTION void tea_ch_iter_cell(const tea_ch_update_args *a, int64_t k, int64_t j,
                                                 tea_precon pc) {
  tea_ch_iter_cell_ab(a, k, j, pc, a->alpha, a->beta);
}

/** Iteration BASE + slot of a pass with its coefficients in memory (a GPU's): nothing past
 *  STOP; the coefficients of its count from the tables. */
typedef struct {
  tea_ch_update_args up;
  tea_resid_args resid;
  porta_view_f64 alphas, betas;
  tea_loop_state st;
  int64_t slot;
  tea_split sp; /**< the split update's edge and inside */
} tea_ch_loop_args;

PORTA_FORCEINLINE_FUNCTION bool tea_ch_loop_runs(const tea_ch_loop_args *a) {
  return PORTA_LDG(a->st.ints[TEA_LOOP_BASE]) + a->slot <= PORTA_LDG(a->st.ints[TEA_LOOP_STOP]);
}

PORTA_MDFOR2(tea_k_ch_resid_loop, tea_ch_loop_args, a, k, j) {
  if (!tea_ch_loop_runs(a)) return;
  const tea_resid_args *r = &a->resid;
  PORTA_AT2(r->r, k, j) = PORTA_AT2(r->u0, k, j) - TEA_AV(r, r->u, k, j);
}

PORTA_FORCEINLINE_FUNCTION void tea_ch_loop_cell(const tea_ch_loop_args *a, int64_t k, int64_t j,
                                                 tea_precon pc) {
  if (!tea_ch_loop_runs(a)) return;
  const int64_t idx = tea_cheby_coef(a->st.ints, PORTA_LDG(a->st.ints[TEA_LOOP_BASE]) + a->slot);
  tea_ch_iter_cell_ab(&a->up, k, j, pc, PORTA_LDG(PORTA_AT1(a->alphas, idx)),
                      PORTA_LDG(PORTA_AT1(a->betas, idx)));
}

/* the update's kernels for each preconditioner: the first step and the iteration */
TEA_PRECON_KERNELS(tea_k_ch_init_p, tea_ch_update_args, tea_ch_init_cell);
TEA_PRECON_KERNELS(tea_k_ch_iter_p, tea_ch_update_args, tea_ch_iter_cell);
/* the loop's iteration (with the block preconditioner z comes from its own kernel, run before) */
TEA_PRECON_KERNELS(tea_k_ch_iter_loop, tea_ch_loop_args, tea_ch_loop_cell);

/* the iteration split into an edge and an inside (not with the block preconditioner, whose
   columns cross the edge) */
TEA_SPLIT_KERNELS(tea_k_ch_iter_p_split_none, tea_ch_update_args, tea_k_ch_iter_p_none_cell,
                  "tea_cheby_update", tea_k_ch_iter_p_none);
TEA_SPLIT_KERNELS(tea_k_ch_iter_p_split_diag, tea_ch_update_args, tea_k_ch_iter_p_diag_cell,
                  "tea_cheby_update", tea_k_ch_iter_p_diag);
TEA_SPLIT_KERNELS(tea_k_ch_iter_loop_split_none, tea_ch_loop_args, tea_k_ch_iter_loop_none_cell,
                  "tea_cheby_update", tea_k_ch_iter_loop_none);
TEA_SPLIT_KERNELS(tea_k_ch_iter_loop_split_diag, tea_ch_loop_args, tea_k_ch_iter_loop_diag_cell,
                  "tea_cheby_update", tea_k_ch_iter_loop_diag);

static tea_ch_update_args tea_ch_update_make(tea_chunk *c, double alpha, double beta,
                                             double theta) {
  tea_ch_update_args a;
  a.u = TEA_F(c, TEA_FIELD_U);
  a.p = TEA_F(c, TEA_FIELD_P);
  a.r = TEA_F(c, TEA_FIELD_R);
  a.z = TEA_F(c, TEA_FIELD_Z);
  a.mi = TEA_F(c, TEA_FIELD_MI);
  a.alpha = alpha;
  a.beta = beta;
  a.theta = theta;
  memset(&a.sp, 0, sizeof a.sp);
  return a;
}

/* r = u0 - A u over `in`, then the block preconditioner (z = M r) when pc asks for it (a step's
   first part; its update follows) */
static int tea_ch_residual(tea_chunk *c, tea_precon pc, porta_mdrange_policy in) {
  tea_resid_args ra = tea_resid_make(c);
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cheby_resid", tea_k_ch_resid, c->exec, in, &ra));
  if (pc == TEA_PRECON_JAC_BLOCK) PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
  return PORTA_SUCCESS;
}

int tea_k_cheby_init(tea_chunk *c, tea_precon pc, double theta) {
  const tea_ch_update_args a = tea_ch_update_make(c, 0.0, 0.0, theta);
  const porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  PORTA_CHECK(tea_ch_residual(c, pc, in));
  return tea_k_ch_init_p_launch("tea_cheby_update", c->exec, in, pc, &a);
}

int tea_k_cheby_iterate(tea_chunk *c, tea_precon pc, double alpha, double beta) {
  const tea_ch_update_args a = tea_ch_update_make(c, alpha, beta, 1.0);
  const porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  PORTA_CHECK(tea_ch_residual(c, pc, in));
  return tea_k_ch_iter_p_launch("tea_cheby_update", c->exec, in, pc, &a);
}

/** The pass's iteration with the coefficients in memory (tea_k_cheby_step on a GPU). */
static int cheby_step_tables(tea_chunk *c, tea_precon pc, porta_view_f64 alphas,
                             porta_view_f64 betas, const tea_loop_state *st, int64_t slot,
                             const porta_exec *ring) {
  const porta_exec exec = c->exec;
  const porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  tea_ch_loop_args a;
  memset(&a, 0, sizeof a);
  a.up = tea_ch_update_make(c, 0.0, 0.0, 1.0);
  a.resid = tea_resid_make(c);
  a.alphas = alphas;
  a.betas = betas;
  a.st = *st;
  a.slot = slot;
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cheby_resid", tea_k_ch_resid_loop, exec, in, &a));
  /* z = M r: the block solve. Past the pass's stop r is unchanged, so it writes the z that is
     there already. */
  if (pc == TEA_PRECON_JAC_BLOCK) PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
  if (!ring) return tea_k_ch_iter_loop_launch("tea_cheby_update", exec, in, pc, &a);
  /* the residual reads u around every cell: all of it before any cell's u changes */
  PORTA_CHECK(porta_exec_fence(exec, "tea_cheby_resid"));
  if (pc == TEA_PRECON_JAC_DIAG) return tea_k_ch_iter_loop_split_diag_run(c, 1, *ring, &a);
  return tea_k_ch_iter_loop_split_none_run(c, 1, *ring, &a);
}

int tea_k_cheby_step(tea_chunk *c, tea_precon pc, porta_view_f64 alphas, porta_view_f64 betas,
                     const tea_loop_state *st, int64_t slot, const porta_exec *ring) {
  if (ring && pc == TEA_PRECON_JAC_BLOCK)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_k_cheby_step", "precon",
                       "the block preconditioner's columns cross the edge: no split");
  if (!tea_scalars_by_value(c->exec))
    return cheby_step_tables(c, pc, alphas, betas, st, slot, ring);
  /* a host back end: the launcher reads the pass's integers and the host's coefficients */
  const int64_t n = st->ints[TEA_LOOP_BASE] + slot;
  if (n > st->ints[TEA_LOOP_STOP]) return PORTA_SUCCESS;
  const int64_t idx = tea_cheby_coef(st->ints, n);
  const double alpha = c->ch_alphas[idx], beta = c->ch_betas[idx];
  if (!ring) return tea_k_cheby_iterate(c, pc, alpha, beta);
  tea_resid_args ra = tea_resid_make(c);
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cheby_resid", tea_k_ch_resid, c->exec,
                                         tea_policy(tea_box_interior(c, 0)), &ra));
  PORTA_CHECK(porta_exec_fence(c->exec, "tea_cheby_resid"));
  tea_ch_update_args a = tea_ch_update_make(c, alpha, beta, 1.0);
  if (pc == TEA_PRECON_JAC_DIAG) return tea_k_ch_iter_p_split_diag_run(c, 1, *ring, &a);
  return tea_k_ch_iter_p_split_none_run(c, 1, *ring, &a);
}

/** r.r where the pass's test reads it. */
typedef struct {
  porta_view_f64 r;
  tea_loop_state st;
} tea_ch_norm_args;

APP_SUM_KERNEL_MD2(tea_k_ch_norm_r, tea_ch_norm_args, a, k, j) {
  if (!tea_cheby_fresh(a->st.ints)) return 0.0;
  const double r = PORTA_AT2(a->r, k, j);
  return r * r;
}

int tea_k_cheby_norm(tea_chunk *c, const tea_loop_state *st, app_sum_to to) {
  tea_ch_norm_args a;
  a.r = TEA_F(c, TEA_FIELD_R);
  a.st = *st;
  return APP_SUM_REDUCE_INTO(tea_k_ch_norm_r, "tea_norm2", c->exec,
                             tea_policy(tea_box_interior(c, 0)), &a, to);
}

/* Chebyshev's tests of a pass's iterations that ran, and the next pass */
TEA_LOOP_KERNEL(tea_k_loop_cheby_test, "tea_cheby_loop_test",
                porta_loop_decide(&a->loop, tea_loop_cheby_test(&a->st)))
