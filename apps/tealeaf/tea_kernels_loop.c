/** @file tea_kernels_loop.c
 *  The kernels of the passes over the solver's scalars (tea_pass.h, tea_loop.h): a run's start,
 *  the one-thread kernels (alpha, CG's beta and test, PPCG's alpha, Jacobi's and Chebyshev's
 *  tests, each an inline function of tea_loop.h), and CG's u, p update reading alpha and beta
 *  from the scalars (fused: every thread computes beta, the same division, and one cell's thread
 *  runs the test; on a host back end, unfused, its launcher reads them). Kernels only: the sums and
 *  exchanges between them are the pass's steps. Kernel file (C++17 compatible). */
#include <string.h>

#include "tea_loop.h"

typedef struct {
  porta_view_f64 u, p, r;
  tea_loop_state st;
  porta_loop_handle loop; /**< the deciding loop's */
  int64_t k0, j0;         /**< the cell whose thread runs the test */
  tea_split sp;           /**< the split update's geometry (tea_k_cg_calc_up_ring_at) */
} tea_cg_up_loop_args;

/* u += alpha p; p = r + beta p (beta from the test kernel) */
PORTA_INLINE_FUNCTION void tea_cg_up_loop_cell(const tea_cg_up_loop_args *a, int64_t k, int64_t j) {
  tea_cg_up_cell(a->u, a->p, a->r, k, j, a->st.scal[TEA_LOOP_ALPHA], a->st.scal[TEA_LOOP_BETA]);
}

PORTA_MDFOR2(tea_k_cg_calc_up_loop, tea_cg_up_loop_args, a, k, j) { tea_cg_up_loop_cell(a, k, j); }

/* beta = rrn / rro; u += alpha p; p = r + beta p; one thread: the test on r.r (rro becomes rrn
   in the next iteration's alpha kernel, after every thread here has read it) */
PORTA_INLINE_FUNCTION void tea_cg_up_test_loop_cell(const tea_cg_up_loop_args *a, int64_t k,
                                                    int64_t j) {
  const double rrn = PORTA_LDG(a->st.scal[TEA_LOOP_RRN]);
  const double beta = rrn / PORTA_LDG(a->st.scal[TEA_LOOP_RRO]);
  tea_cg_up_cell(a->u, a->p, a->r, k, j, PORTA_LDG(a->st.scal[TEA_LOOP_ALPHA]), beta);
  if (k == a->k0 && j == a->j0) { /* beta kept for the host (CG's coefficient history) */
    a->st.scal[TEA_LOOP_BETA] = beta;
    porta_loop_decide(&a->loop, tea_loop_test(&a->st, rrn));
  }
}

PORTA_MDFOR2(tea_k_cg_calc_up_test_loop, tea_cg_up_loop_args, a, k, j) {
  tea_cg_up_test_loop_cell(a, k, j);
}

TEA_SPLIT_KERNELS(tea_k_cg_up_loop_split, tea_cg_up_loop_args, tea_cg_up_loop_cell,
                  "tea_cg_calc_up", tea_k_cg_calc_up_loop)
TEA_SPLIT_KERNELS(tea_k_cg_up_test_loop_split, tea_cg_up_loop_args, tea_cg_up_test_loop_cell,
                  "tea_cg_calc_up", tea_k_cg_calc_up_test_loop)

typedef struct {
  tea_loop_state st;
  tea_loop_start start;   /**< tea_k_loop_start's */
  porta_loop_handle loop; /**< the deciding loop's (the test kernels) */
  int slot;               /**< the scalar a plain test reads */
} tea_loop_ctl_args;

PORTA_FOR(tea_k_loop_start_f, tea_loop_ctl_args, a, i) { tea_loop_begin(&a->st, &a->start); }

/* rro = rrn (the last iteration's r.r; the start's rro first); alpha = rro / pw */
PORTA_FOR(tea_k_cg_loop_alpha_f, tea_loop_ctl_args, a, i) { tea_loop_cg_alpha(&a->st); }

/* beta = rrn / rro; rro = rrn; the test on rrn (r.r for CG): whether another iteration runs
   after this one's p update */
PORTA_FOR(tea_k_cg_loop_test_f, tea_loop_ctl_args, a, i) {
  porta_loop_decide(&a->loop, tea_loop_cg_beta_test(&a->st));
}

/* PPCG: rro = utemp.r; alpha = rro / pw */
PORTA_FOR(tea_k_ppcg_loop_alpha_f, tea_loop_ctl_args, a, i) { tea_loop_ppcg_alpha(&a->st); }

/* the test on one scalar (Jacobi: the update's L1 norm) */
PORTA_FOR(tea_k_loop_test_f, tea_loop_ctl_args, a, i) {
  porta_loop_decide(&a->loop, tea_loop_test(&a->st, a->st.scal[a->slot]));
}

/* Chebyshev's tests of a pass's iterations that ran, and the next pass */
PORTA_FOR(tea_k_cheby_loop_test_f, tea_loop_ctl_args, a, i) {
  porta_loop_decide(&a->loop, tea_loop_cheby_test(&a->st));
}

/** A one-thread kernel's arguments (the decider only where it decides). */
static tea_loop_ctl_args tea_loop_ctl_of(const tea_loop_state *st,
                                         const porta_loop_handle *decider) {
  tea_loop_ctl_args a;
  memset(&a, 0, sizeof a);
  a.st = *st;
  if (decider) a.loop = *decider;
  return a;
}

int tea_k_loop_start(tea_chunk *c, const tea_loop_state *st, const tea_loop_start *start) {
  tea_loop_ctl_args a;
  memset(&a, 0, sizeof a);
  a.st = *st;
  a.start = *start;
  return PORTA_PARALLEL_FOR_LABELED("tea_loop_start", tea_k_loop_start_f, c->exec,
                                    porta_range(0, 1), &a);
}

int tea_k_loop_cg_alpha(porta_exec exec, const tea_loop_state *st) {
  tea_loop_ctl_args a = tea_loop_ctl_of(st, NULL);
  return PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_alpha", tea_k_cg_loop_alpha_f, exec,
                                    porta_range(0, 1), &a);
}

int tea_k_loop_test(porta_exec exec, const tea_loop_state *st, const porta_loop_handle *decider,
                    int slot) {
  tea_loop_ctl_args a = tea_loop_ctl_of(st, decider);
  a.slot = slot;
  return PORTA_PARALLEL_FOR_LABELED("tea_jacobi_loop_test", tea_k_loop_test_f, exec,
                                    porta_range(0, 1), &a);
}

int tea_k_loop_cg_test(porta_exec exec, const tea_loop_state *st,
                       const porta_loop_handle *decider) {
  tea_loop_ctl_args a = tea_loop_ctl_of(st, decider);
  return PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_test", tea_k_cg_loop_test_f, exec,
                                    porta_range(0, 1), &a);
}

/** The update's arguments (the test at the interior's first cell). */
static tea_cg_up_loop_args up_args(tea_chunk *c, const tea_loop_state *st,
                                   const porta_loop_handle *decider) {
  const tea_box in = tea_box_interior(c, 0);
  tea_cg_up_loop_args up;
  memset(&up, 0, sizeof up);
  up.u = TEA_F(c, TEA_FIELD_U);
  up.p = TEA_F(c, TEA_FIELD_P);
  up.r = TEA_F(c, TEA_FIELD_R);
  up.st = *st;
  up.loop = *decider;
  up.k0 = in.k0;
  up.j0 = in.j0;
  return up;
}

/** Whether the update takes alpha and beta as values, read by its launcher: unfused, where
 *  tea_scalars_by_value. */
static bool by_value(porta_exec exec, bool fused) { return !fused && tea_scalars_by_value(exec); }

int tea_k_cg_calc_up(tea_chunk *c, const tea_loop_state *st, const porta_loop_handle *decider,
                     bool fused) {
  const porta_exec exec = c->exec;
  if (!fused) PORTA_CHECK(tea_k_loop_cg_test(exec, st, decider));
  if (by_value(exec, fused))
    return tea_k_cg_calc_up_values(c, st->scal[TEA_LOOP_ALPHA], st->scal[TEA_LOOP_BETA]);
  tea_cg_up_loop_args up = up_args(c, st, decider);
  const porta_mdrange_policy all = tea_policy(tea_box_interior(c, 0));
  return fused
             ? PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up", tea_k_cg_calc_up_test_loop, exec, all,
                                          &up)
             : PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up", tea_k_cg_calc_up_loop, exec, all, &up);
}

int tea_k_cg_calc_up_split(tea_chunk *c, porta_exec ring_exec, const tea_loop_state *st,
                           const porta_loop_handle *decider, bool fused) {
  if (by_value(c->exec, fused))
    return tea_k_cg_calc_up_split_values(c, ring_exec, st->scal[TEA_LOOP_ALPHA],
                                         st->scal[TEA_LOOP_BETA]);
  tea_cg_up_loop_args up = up_args(c, st, decider);
  PORTA_CHECK(tea_split_begin(c, 1, "tea_cg_calc_up_inside", &up.sp));
  const porta_range_policy ring = porta_range(0, up.sp.ring);
  PORTA_CHECK(fused ? PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up_ring",
                                                 tea_k_cg_up_test_loop_split_ring, ring_exec, ring,
                                                 &up)
                    : PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up_ring", tea_k_cg_up_loop_split_ring,
                                                 ring_exec, ring, &up));
  const porta_mdrange_policy inside = tea_split_inside_policy(&up.sp);
  if (!up.sp.k_contiguous) /* a host's layout: the inside box itself */
    return fused ? PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up_inside", tea_k_cg_calc_up_test_loop,
                                              c->exec, inside, &up)
                 : PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up_inside", tea_k_cg_calc_up_loop,
                                              c->exec, inside, &up);
  return fused
             ? PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up_inside",
                                          tea_k_cg_up_test_loop_split_inside, c->exec, inside, &up)
             : PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up_inside", tea_k_cg_up_loop_split_inside,
                                          c->exec, inside, &up);
}

int tea_k_loop_cheby_test(porta_exec exec, const tea_loop_state *st,
                          const porta_loop_handle *decider) {
  tea_loop_ctl_args a = tea_loop_ctl_of(st, decider);
  return PORTA_PARALLEL_FOR_LABELED("tea_cheby_loop_test", tea_k_cheby_loop_test_f, exec,
                                    porta_range(0, 1), &a);
}

int tea_k_loop_ppcg_alpha(porta_exec exec, const tea_loop_state *st) {
  tea_loop_ctl_args a = tea_loop_ctl_of(st, NULL);
  return PORTA_PARALLEL_FOR_LABELED("tea_ppcg_loop_alpha", tea_k_ppcg_loop_alpha_f, exec,
                                    porta_range(0, 1), &a);
}

int tea_k_loop_ppcg_test(porta_exec exec, const tea_loop_state *st,
                         const porta_loop_handle *decider) {
  tea_loop_ctl_args a = tea_loop_ctl_of(st, decider);
  return PORTA_PARALLEL_FOR_LABELED("tea_ppcg_loop_test", tea_k_cg_loop_test_f, exec,
                                    porta_range(0, 1), &a);
}
