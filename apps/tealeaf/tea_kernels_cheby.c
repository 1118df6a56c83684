/** @file tea_kernels_cheby.c
 *  Chebyshev kernels (reference tea_leaf_cheby_kernel): r = u0 - A u (w is not stored: the
 *  reference writes it but never reads it), then p = alpha p + beta (M) r and u += p.
 *  Kernel file (C++17 compatible). */
#include <string.h>

#include "tea_internal.h"

typedef struct {
  porta_view_f64 u, u0, p, r, z, mi, kx, ky, di;
  double rx, ry, alpha, beta, theta;
  int pc;
  tea_split sp; /**< the split update's edge and inside */
} tea_ch_args;

PORTA_MDFOR2(tea_k_ch_resid, tea_ch_args, a, k, j) {
  PORTA_AT2(a->r, k, j) = PORTA_AT2(a->u0, k, j) - TEA_AV(a, a->u, k, j);
}

/* first step: p = (M r) / theta; u += p */
PORTA_MDFOR2(tea_k_ch_init_p, tea_ch_args, a, k, j) {
  double src;
  if (a->pc == TEA_PRECON_JAC_DIAG) {
    src = PORTA_AT2(a->mi, k, j) * PORTA_AT2(a->r, k, j);
    PORTA_AT2(a->z, k, j) = src;
  } else if (a->pc == TEA_PRECON_JAC_BLOCK) {
    src = PORTA_AT2(a->z, k, j);
  } else {
    src = PORTA_AT2(a->r, k, j);
  }
  double p = src / a->theta;
  PORTA_AT2(a->p, k, j) = p;
  PORTA_AT2(a->u, k, j) += p;
}

/* p = alpha p + beta (M r); u += p */
PORTA_INLINE_FUNCTION void tea_ch_iter_cell(const tea_ch_args *a, int64_t k, int64_t j) {
  double src;
  if (a->pc == TEA_PRECON_JAC_DIAG) {
    src = PORTA_AT2(a->mi, k, j) * PORTA_AT2(a->r, k, j);
    PORTA_AT2(a->z, k, j) = src;
  } else if (a->pc == TEA_PRECON_JAC_BLOCK) {
    src = PORTA_AT2(a->z, k, j);
  } else {
    src = PORTA_AT2(a->r, k, j);
  }
  double p = a->alpha * PORTA_AT2(a->p, k, j) + a->beta * src;
  PORTA_AT2(a->p, k, j) = p;
  PORTA_AT2(a->u, k, j) += p;
}

PORTA_MDFOR2(tea_k_ch_iter_p, tea_ch_args, a, k, j) { tea_ch_iter_cell(a, k, j); }

TEA_SPLIT_KERNELS(tea_k_ch_iter_p_split, tea_ch_args, tea_ch_iter_cell, "tea_cheby_update",
                  tea_k_ch_iter_p);

static tea_ch_args tea_ch_make(tea_chunk *c, tea_precon pc) {
  tea_ch_args a;
  TEA_ARGS_SOLVER(a, c);
  a.u0 = TEA_F(c, TEA_FIELD_U0);
  a.theta = 1.0;
  a.pc = (int)pc;
  return a;
}

static int tea_ch_step(tea_chunk *c, tea_precon pc, tea_ch_args *a, const porta_kernel *upd) {
  porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cheby_resid", tea_k_ch_resid, c->exec, in, a));
  if (pc == TEA_PRECON_JAC_BLOCK) PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
  return porta_parallel_for_md("tea_cheby_update", c->exec, in, upd, a);
}

int tea_k_cheby_init(tea_chunk *c, tea_precon pc, double theta) {
  tea_ch_args a = tea_ch_make(c, pc);
  a.theta = theta;
  return tea_ch_step(c, pc, &a, &tea_k_ch_init_p);
}

int tea_k_cheby_iterate(tea_chunk *c, tea_precon pc, double alpha, double beta) {
  tea_ch_args a = tea_ch_make(c, pc);
  a.alpha = alpha;
  a.beta = beta;
  return tea_ch_step(c, pc, &a, &tea_k_ch_iter_p);
}

int tea_k_cheby_iterate_split(tea_chunk *c, tea_precon pc, porta_exec ring_exec, double alpha,
                              double beta) {
  if (pc == TEA_PRECON_JAC_BLOCK)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_k_cheby_iterate_split", "precon",
                       "the block preconditioner's columns cross the edge: no split");
  tea_ch_args a = tea_ch_make(c, pc);
  a.alpha = alpha;
  a.beta = beta;
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cheby_resid", tea_k_ch_resid, c->exec,
                                         tea_policy(tea_box_interior(c, 0)), &a));
  /* the residual reads u around every cell: all of it before any cell's u changes */
  PORTA_CHECK(porta_exec_fence(c->exec, "tea_cheby_resid"));
  return tea_split_run(c, 1, ring_exec, &tea_k_ch_iter_p_split, &a, &a.sp);
}
