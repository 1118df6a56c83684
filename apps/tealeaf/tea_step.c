/** @file tea_step.c
 *  One implicit time step (the reference's tea_leaf): the residual and the first search
 *  direction, the solver's driver (tea_solve.h), the step's figures, and the energy from u.
 *  Host code: all field work is in the tea_kernels_*.c kernels. */
#include <math.h>
#include <string.h>

#include "tea_solve.h"

/* Halos, coefficients, the initial residual and, for the CG-based solvers, the first search
   direction: *v ready for its driver. */
static int step_begin(tea_solve *v, tea_chunk *c, const tea_settings *s, tea_step_stats *st) {
  memset(v, 0, sizeof *v);
  v->c = c;
  v->s = s;
  v->st = st;
  int f2[2] = {TEA_FIELD_ENERGY1, TEA_FIELD_DENSITY};
  PORTA_CHECK(tea_halo_exchange(c, f2, 2, c->halo));
  PORTA_CHECK(tea_k_init_common(c, s));
  PORTA_CHECK(tea_exchange1(c, TEA_FIELD_U, 1));
  double rr;
  PORTA_CHECK(tea_k_residual(c, &rr));
  PORTA_CHECK(tea_allreduce_sum(c, &rr, 1));
  v->old_error = rr;
  v->initial_residual = st->initial_residual = sqrt(fabs(rr));
  if (!isfinite(rr))
    return tea_solve_not_finite("the initial residual", 0, rr, v->initial_residual);
  /* a zero initial residual: u already solves the system (a uniform field); iterating would
     divide 0 by 0 */
  v->last_iter = rr != 0.0 ? s->max_iters : 0;
  v->exch = TEA_FIELD_U;
  if (s->solver != TEA_SOLVER_JACOBI && rr != 0.0) {
    PORTA_CHECK(tea_k_cg_init(c, s->preconditioner, &v->rro));
    PORTA_CHECK(tea_allreduce_sum(c, &v->rro, 1));
    f2[0] = TEA_FIELD_U;
    f2[1] = TEA_FIELD_P;
    PORTA_CHECK(tea_halo_exchange(c, f2, 2, 1));
    v->exch = TEA_FIELD_P;
  }
  return PORTA_SUCCESS;
}

/* The step's figures from the solve, and with tl_check_result the error of u recomputed. */
static int step_figures(const tea_solve *v) {
  tea_step_stats *st = v->st;
  if (v->last_iter == 0) { /* nothing to solve: converged before the first iteration */
    st->converged = true;
  } else {
    /* n is the Fortran loop index at exit: max_iters + 1 when the loop ran out */
    st->iterations = (int)(v->n - 1);
    st->true_iterations = (int)(v->converged ? v->n : v->s->max_iters);
    st->converged = v->converged;
    st->error = v->error / v->initial_residual;
  }
  if (!v->s->check_result) return PORTA_SUCCESS;
  PORTA_CHECK(tea_exchange1(v->c, TEA_FIELD_U, 1));
  double ee;
  PORTA_CHECK(tea_k_residual(v->c, &ee));
  PORTA_CHECK(tea_allreduce_sum(v->c, &ee, 1));
  st->exact_error = v->initial_residual > 0.0 ? sqrt(ee) / v->initial_residual : sqrt(ee);
  return PORTA_SUCCESS;
}

/* The energy from u, refused if any cell's is not finite, and its halo. */
static int step_finish(tea_chunk *c) {
  double nonfinite = 0.0;
  PORTA_CHECK(tea_k_finalise(c, &nonfinite));
  PORTA_CHECK(tea_allreduce_sum(c, &nonfinite, 1));
  if (nonfinite != 0.0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_step", "energy",
                       "the solution is not finite: %.0f cells have a NaN or infinite energy "
                       "after the solve; the deck's values overflow double precision",
                       nonfinite);
  return tea_exchange1(c, TEA_FIELD_ENERGY1, 1);
}

int tea_step_ex(tea_chunk *c, const tea_settings *s, tea_step_stats *st) {
  memset(st, 0, sizeof *st);
  tea_solve v;
  PORTA_CHECK(step_begin(&v, c, s, st));
  switch (s->solver) {
  case TEA_SOLVER_CHEBY: PORTA_CHECK(tea_solve_cheby(&v)); break;
  case TEA_SOLVER_PPCG: PORTA_CHECK(tea_solve_ppcg(&v)); break;
  case TEA_SOLVER_JACOBI: PORTA_CHECK(tea_solve_jacobi(&v)); break;
  default: PORTA_CHECK(tea_solve_cg(&v)); break;
  }
  PORTA_CHECK(step_figures(&v));
  return step_finish(c);
}
