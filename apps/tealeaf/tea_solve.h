/** @file tea_solve.h
 *  One implicit step's solve, one driver per solver: tea_solve_cg.c, tea_solve_cheby.c,
 *  tea_solve_ppcg.c and tea_solve_jacobi.c each write their iteration once as a pass
 *  (tea_pass.h), run from the host or recorded on the device; the pieces they share (the
 *  switch from CG, the eigenvalue estimate, the coefficients) are in tea_solve_common.c;
 *  tea_step.c sets a step up, runs its solver's driver and finishes it.
 *
 *  The drivers follow the reference's tea_leaf (tea_solve.f90) on purpose, including its quirks
 *  (tealeaf.md 1.5-1.6):
 *  - convergence test every iteration: sqrt(|error|) < eps * initial_residual, where error is
 *    r.r (CG), r.z (preconditioned CG), the flexible-CG numerator (PPCG), the L1 norm of the
 *    update (Jacobi) or a possibly stale value (Chebyshev: recomputed only when n >= est_itc
 *    and n mod 10 == 0; in between the old value is square-rooted again each iteration);
 *  - the printed iteration count is n-1 at exit (one less than executed when converged,
 *    max_iters when not): stats->iterations; stats->true_iterations holds the executed count;
 *  - Chebyshev / PPCG switch after tl_ch_cg_presteps CG iterations once sqrt(rr) of the
 *    previous iteration is <= tl_ch_cg_epslim (absolute); the eigenvalue estimate of the first
 *    switch is kept for the whole run (c->have_eigs); later PPCG steps switch at n = 2.
 *  Host code. */
#ifndef TEA_SOLVE_H
#define TEA_SOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "tea_internal.h"

/** A step's solve as its iterations go. */
typedef struct tea_solve {
  tea_chunk *c;
  const tea_settings *s;
  tea_step_stats *st;
  int64_t n;               /**< the iteration, from 1: the reference's loop index */
  int64_t last_iter;       /**< tl_max_iters, or 0 when the initial residual is 0 */
  double initial_residual; /**< sqrt(|r.r|) before the first iteration */
  double error;            /**< this iteration's convergence value, then its square root */
  double old_error;        /**< the last iteration's (the switch from CG reads it) */
  double rro;              /**< r.z of the last iteration (r.r without a preconditioner) */
  int exch;                /**< the field exchanged, 1 deep, after every iteration */
  bool converged;
} tea_solve;

/** The drivers: iterations n = 1 .. last_iter until converged; v->n is the loop index at exit
 *  (last_iter + 1 when they ran out). */
int tea_solve_cg(tea_solve *v);
int tea_solve_cheby(tea_solve *v);
int tea_solve_ppcg(tea_solve *v);
int tea_solve_jacobi(tea_solve *v);

/** One CG iteration (tea_solve_cg.c) run now, with its exchange of p and its convergence test:
 *  Chebyshev's and PPCG's before their switch. */
int tea_solve_cg_now(tea_solve *v);
/** Whether Chebyshev or PPCG (`ppcg`) takes over from CG at this iteration. */
bool tea_solve_switch_due(const tea_solve *v, bool ppcg);
/** The extreme eigenvalues from the CG iterations so far (once a run: c->have_eigs). */
int tea_solve_eigenvalues(tea_solve *v);
/** Chebyshev coefficients 0..need-1 (of `total`) in c->ch_alphas / ch_betas; *have of them are
 *  there already. A longer list is recomputed from the start, so that its values are those of
 *  one computation of `total` (bitwise). */
int tea_solve_ch_coefs(tea_chunk *c, int64_t need, int64_t total, int64_t *have, double *theta);
/** Grow (*p, *q) to at least `need` doubles each (at most `most`), geometrically, so that storage
 *  follows the iterations run rather than tl_max_iters. */
int tea_solve_ensure(double **p, double **q, int *cap, int64_t need, int64_t most);
/** A failure for a global value the solve cannot go on with (NaN or infinity). */
int tea_solve_not_finite(const char *what, int64_t n, double v, double initial_residual);
/** The error of a solve whose residual outgrew TEA_DIVERGE_FACTOR times the initial one at
 *  iteration n (tea_pass.h): the same message in both sum modes. */
int tea_solve_diverged(const tea_solve *v, int64_t n);
/** Exchange one field `depth` deep (reflecting the physical faces). */
int tea_exchange1(tea_chunk *c, int field, int depth);

#endif /* TEA_SOLVE_H */
