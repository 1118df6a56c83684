/** @file tea_loop.h
 *  A solver's iterations on the device (tea_solve_loop.c, tea_kernels_loop.c): CG, Jacobi,
 *  and Chebyshev's and PPCG's iterations after their switch from CG, with their
 *  scalars, the convergence test and the iteration limit in device memory, recorded once as a
 *  porta_loop, so that on a GPU a whole solve (Chebyshev: the rest of it) runs without a return
 *  to the host; the step reads its figures back once. The same bits as the host's loop:
 *  the divisions are the host loop's, done once each by one-thread kernels, and the
 *  reductions are the host loop's kernels (a reduction's grid follows its kernel's occupancy,
 *  so a kernel of its own could sum in another order). */
#ifndef TEA_LOOP_H
#define TEA_LOOP_H

#include <math.h>

#include "tea_solve.h"

PORTA_EXTERN_C_BEGIN

/** The device scalars (tea_loop_state.scal). */
enum {
  TEA_LOOP_RRO,   /**< CG: r.r of the last iteration */
  TEA_LOOP_PW,    /**< CG and PPCG: p.w */
  TEA_LOOP_RZ,    /**< PPCG: utemp.r (next to PW: one reduction writes both) */
  TEA_LOOP_RRN,   /**< CG: r.r of this iteration */
  TEA_LOOP_ALPHA, /**< CG */
  TEA_LOOP_BETA,  /**< CG */
  TEA_LOOP_L1,    /**< Jacobi: the update's L1 norm */
  TEA_LOOP_NORM,  /**< Chebyshev: r.r (read on the iterations that recompute the error) */
  TEA_LOOP_ERROR, /**< the convergence value's square root (tea_solve.error; Chebyshev's is
                     square-rooted again on the iterations that do not recompute it) */
  TEA_LOOP_OLD,   /**< the last iteration's, when it did not converge (tea_solve.old_error) */
  TEA_LOOP_EPS,   /**< eps * the initial residual */
  TEA_LOOP_NSCAL
};
/** The device integers (tea_loop_state.ints). */
enum {
  TEA_LOOP_N,      /**< iterations this run of the loop made */
  TEA_LOOP_STATUS, /**< how it ended (below) */
  TEA_LOOP_N0,     /**< the solve's iterations before it (tea_solve.n - 1 at its start) */
  TEA_LOOP_LAST,   /**< the solve's iteration limit (tea_solve.last_iter) */
  TEA_LOOP_EST,    /**< Chebyshev: the estimated iteration count (cheby_state.est_itc) */
  TEA_LOOP_STEPS0, /**< Chebyshev: its count (the coefficient) at iteration n is STEPS0 + n */
  TEA_LOOP_NCOEF,  /**< Chebyshev: its iteration limit (cheby_state.max_iters) */
  TEA_LOOP_BASE,   /**< Chebyshev: the pass's iterations are BASE + 1 .. BASE + 10 */
  TEA_LOOP_STOP,   /**< Chebyshev: of which those up to STOP run */
  TEA_LOOP_NINTS
};
/** Chebyshev's iterations per pass: the host loop recomputes its error every 10 iterations,
 *  so a pass of 10 (n = 10 k + 1 .. 10 k + 10) computes r.r once, in its last. */
enum { TEA_CHEBY_PASS = 10 };
/** TEA_LOOP_STATUS: still iterating (the limit ends it), converged, or a residual not finite. */
enum { TEA_LOOP_RUNNING = 0, TEA_LOOP_CONVERGED = 1, TEA_LOOP_NOT_FINITE = 2 };

/** What the recorded kernels read and write. */
typedef struct tea_loop_state {
  porta_view_f64 scal; /**< TEA_LOOP_NSCAL doubles */
  porta_view_i64 ints; /**< TEA_LOOP_NINTS integers */
} tea_loop_state;

/** The end of an iteration, in a one-thread kernel (tea_solve_iteration_end's test): count
 *  it, error = sqrt(|value|), converged or not finite (the status), else the error kept as
 *  the old one. Returns whether another iteration runs (the solve's limit not reached). */
PORTA_INLINE_FUNCTION int tea_loop_test(const tea_loop_state *st, double value) {
  const int64_t n = PORTA_AT1(st->ints, TEA_LOOP_N0) + ++PORTA_AT1(st->ints, TEA_LOOP_N);
  const double error = sqrt(fabs(value));
  PORTA_AT1(st->scal, TEA_LOOP_ERROR) = error;
  if (!isfinite(error)) {
    PORTA_AT1(st->ints, TEA_LOOP_STATUS) = TEA_LOOP_NOT_FINITE;
    return 0;
  }
  if (fabs(error) < PORTA_AT1(st->scal, TEA_LOOP_EPS)) {
    PORTA_AT1(st->ints, TEA_LOOP_STATUS) = TEA_LOOP_CONVERGED;
    return 0;
  }
  PORTA_AT1(st->scal, TEA_LOOP_OLD) = error;
  return n < PORTA_AT1(st->ints, TEA_LOOP_LAST);
}

/** Where a run of the loop starts (tea_k_loop_start). */
typedef struct tea_loop_start {
  double rro;                /**< CG */
  double eps_init;           /**< eps * the initial residual */
  double error;              /**< Chebyshev: tea_solve.error so far */
  int64_t n0, last;          /**< iterations before, the limit */
  int64_t est, steps, ncoef; /**< Chebyshev (steps: its count at iteration n0 + 1) */
} tea_loop_start;

/** The last iteration of Chebyshev's pass BASE + 1 .. BASE + 10 that runs: the first of its
 *  first nine (whose error is the last one square-rooted again, known now) that converges,
 *  else its tenth, and never past the limit. */
PORTA_INLINE_FUNCTION int64_t tea_cheby_stop(const tea_loop_state *st) {
  const int64_t base = PORTA_AT1(st->ints, TEA_LOOP_BASE);
  const int64_t last = PORTA_AT1(st->ints, TEA_LOOP_LAST);
  double e = PORTA_AT1(st->scal, TEA_LOOP_ERROR);
  for (int64_t n = base + 1; n < base + TEA_CHEBY_PASS; ++n) {
    e = sqrt(fabs(e));
    if (!isfinite(e) || fabs(e) < PORTA_AT1(st->scal, TEA_LOOP_EPS) || n >= last) return n;
  }
  return base + TEA_CHEBY_PASS < last ? base + TEA_CHEBY_PASS : last;
}

/** Start a run: its figures into device memory, the count and status zeroed, Chebyshev's first
 *  pass from n0 (a one-thread kernel, no wait). */
int tea_k_loop_start(tea_chunk *c, const tea_loop_state *st, const tea_loop_start *start);
/** One CG iteration on `exec` (a deciding loop's body): w = A p with p.w, alpha, r -= alpha w
 *  with r.r, beta and the test that decides whether another runs, u += alpha p and
 *  p = r + beta p. `fused`: the p update computes beta in every thread and runs the test in one
 *  (one kernel less per iteration, about 2 us on a GPU; on large grids the divisions cost more:
 *  4 % of tea_bm_5's time on an H200, so tea_solve_loop.c fuses up to TEA_LOOP_FUSE_CELLS). */
int tea_k_cg_loop_iteration(tea_chunk *c, porta_exec exec, const tea_loop_state *st, bool fused);
/** One CG iteration as the host loop runs it with a preconditioner `pc` (jac_diag or
 *  jac_block), on `exec`: w = A p with p.w, alpha, u += alpha p and r -= alpha w with r.z
 *  (z = M r: jac_diag in the same kernel, jac_block's block solve after it), beta and the test,
 *  p = z + beta p, and p's physical halo reflected (one rank: its exchange). */
int tea_k_cg_loop_iteration_pc(tea_chunk *c, porta_exec exec, const tea_loop_state *st,
                               tea_precon pc);
/** CG's p update and test fused on grids of up to this many cells (TEA_LOOP_FUSE=0|1 forces
 *  either way, for tests). */
#define TEA_LOOP_FUSE_CELLS ((int64_t)1 << 22)
/** One Jacobi iteration on `exec` (a deciding loop's body): un = u, the update with its L1
 *  norm, u's physical halo reflected, and the test. */
int tea_k_jacobi_loop_iteration(tea_chunk *c, porta_exec exec, const tea_loop_state *st);
/** A pass of Chebyshev iterations on `exec` (a deciding loop's body; TEA_CHEBY_PASS of them,
 *  those past TEA_LOOP_STOP doing nothing) with the coefficients in device memory (alphas,
 *  betas: TEA_LOOP_NCOEF each): each r = u0 - A u, the update, u's physical halo reflected;
 *  then r.r, and the test of each iteration that ran (r.r where the host loop recomputes its
 *  error, n >= est and n mod 10 = 0; else the old error square-rooted again), which also
 *  chooses the next pass's stop. Any preconditioner. */
int tea_k_cheby_loop_pass(tea_chunk *c, porta_exec exec, const tea_loop_state *st, tea_precon pc,
                          porta_view_f64 alphas, porta_view_f64 betas);
/** Iteration BASE + slot of a Chebyshev pass (tea_kernels_cheby.c), if it is not past STOP:
 *  r = u0 - A u, then p = alpha p + beta (M r), u += p with the coefficients of its count
 *  (jac_block: the block solve z = M r between the two, on every slot). */
int tea_k_cheby_loop_update(tea_chunk *c, porta_exec exec, tea_precon pc, porta_view_f64 alphas,
                            porta_view_f64 betas, porta_view_i64 ints, int64_t slot);

/** One PPCG outer iteration's kernels of its own on `exec` (a deciding loop's body;
 *  tea_solve_ppcg.c runs them around the inner steps): the first part (w = A p with p.w and
 *  utemp.r, alpha = rro / pw with rro = utemp.r, u += alpha p, r -= alpha w) and the last
 *  (rrn, beta and the test as CG's, p = utemp + beta p). Any preconditioner (z = M r after the
 *  r update: jac_diag in its kernel, jac_block's block solve after it). */
int tea_k_ppcg_loop_first(tea_chunk *c, porta_exec exec, const tea_loop_state *st, tea_precon pc);
int tea_k_ppcg_loop_last(tea_chunk *c, porta_exec exec, const tea_loop_state *st);

/** Whether the run's solves run on the device: every solver with every preconditioner (CG and
 *  Jacobi throughout, Chebyshev and PPCG their iterations after the switch), in default mode,
 *  on one rank, the execution space a GPU (TEA_DEVICE_LOOP=1: on the host back ends too, for
 *  tests; =0: never). */
bool tea_loop_wanted(const tea_chunk *c, const tea_settings *s);
/** tea_loop_wanted, for a solve with at least one iteration. */
bool tea_solve_on_device(const tea_solve *v);
/** The solve as the solver's host loop, on the device: the same iterations, counts and bits;
 *  the figures read back once (CG's coefficient history, tea_solve_cg_iteration's, is not
 *  kept: only Chebyshev and PPCG read it). */
int tea_solve_loop(tea_solve *v);
/** The rest of a Chebyshev solve on the device, from iteration v->n on (v->n - 1 a multiple of
 *  10: the host ran the CG iterations, the switch's and up to the next multiple of 10;
 *  `steps`, `ncoef` and `est` as its cheby_state), with the
 *  coefficients of the whole solve computed once (a table larger than 2^20 entries stays on
 *  the host: tea_solve_cheby_on_device). Adds its iterations to the step's Chebyshev count. */
int tea_solve_cheby_loop(tea_solve *v, int64_t steps, int64_t ncoef, int64_t est, double *theta,
                         int64_t *have_coef);
/** Whether tea_solve_cheby_loop takes the rest of this Chebyshev solve. */
bool tea_solve_cheby_on_device(const tea_solve *v, int64_t ncoef);
/** The rest of a PPCG solve on the device, from iteration v->n on (the host ran the CG
 *  iterations and the switch's), `inner` inner steps of the run's coefficients (theta) each;
 *  adds them to the step's inner count. */
int tea_solve_ppcg_loop(tea_solve *v, int inner, double theta);
/** Whether tea_solve_ppcg_loop takes the rest of this PPCG solve. */
bool tea_solve_ppcg_on_device(const tea_solve *v);
/** The inner steps (tea_solve_ppcg.c; the loop's body runs them on the loop's space). */
int tea_solve_ppcg_inner(tea_chunk *c, const tea_settings *s, double theta, int steps);
/** Release the chunk's recorded loop (tea_chunk_free). */
void tea_loop_free(tea_chunk *c);

PORTA_EXTERN_C_END

#endif /* TEA_LOOP_H */
