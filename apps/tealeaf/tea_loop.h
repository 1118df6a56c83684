/** @file tea_loop.h
 *  A solver's iterations on the device (tea_solve_loop.c, tea_kernels_loop.c): CG (the lean
 *  iteration) and Jacobi, with their scalars, the convergence test and the iteration limit in
 *  device memory, recorded once as a porta_loop, so that on a GPU a whole solve runs without a
 *  return to the host; the step reads its figures back once. The same bits as the host's loop:
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
  TEA_LOOP_PW,    /**< CG: p.w */
  TEA_LOOP_RRN,   /**< CG: r.r of this iteration */
  TEA_LOOP_ALPHA, /**< CG */
  TEA_LOOP_BETA,  /**< CG */
  TEA_LOOP_L1,    /**< Jacobi: the update's L1 norm */
  TEA_LOOP_ERROR, /**< the convergence value's square root (tea_solve.error at the end) */
  TEA_LOOP_OLD,   /**< the last iteration's, when it did not converge (tea_solve.old_error) */
  TEA_LOOP_EPS,   /**< eps * the initial residual */
  TEA_LOOP_NSCAL
};
/** The device integers (tea_loop_state.ints): iterations run, how the solve ended. */
enum { TEA_LOOP_N, TEA_LOOP_STATUS, TEA_LOOP_NINTS };
/** TEA_LOOP_STATUS: still iterating (the limit ends it), converged, or a residual not finite. */
enum { TEA_LOOP_RUNNING = 0, TEA_LOOP_CONVERGED = 1, TEA_LOOP_NOT_FINITE = 2 };

/** What the recorded kernels read and write. */
typedef struct tea_loop_state {
  porta_view_f64 scal; /**< TEA_LOOP_NSCAL doubles */
  porta_view_i64 ints; /**< TEA_LOOP_NINTS integers */
} tea_loop_state;

/** The end of an iteration, in a one-thread kernel (tea_solve_iteration_end's test): count
 *  it, error = sqrt(|value|), converged or not finite (the status), else the error kept as
 *  the old one. Returns whether another iteration is wanted (the loop's max_passes, the
 *  iteration limit, is porta_loop_decide's to apply). */
PORTA_INLINE_FUNCTION int tea_loop_test(const tea_loop_state *st, double value) {
  ++PORTA_AT1(st->ints, TEA_LOOP_N);
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
  return 1;
}

/** Start a solve: rro and eps * initial residual into device memory, the counts zeroed (a
 *  one-thread kernel, no wait). */
int tea_k_loop_start(tea_chunk *c, const tea_loop_state *st, double rro, double eps_init);
/** One CG iteration on `exec` (a deciding loop's body): w = A p with p.w, alpha, r -= alpha w
 *  with r.r, beta and the test that decides whether another runs, u += alpha p and
 *  p = r + beta p. */
int tea_k_cg_loop_iteration(tea_chunk *c, porta_exec exec, const tea_loop_state *st);
/** One Jacobi iteration on `exec` (a deciding loop's body): un = u, the update with its L1
 *  norm, u's physical halo reflected, and the test. */
int tea_k_jacobi_loop_iteration(tea_chunk *c, porta_exec exec, const tea_loop_state *st);

/** Whether the run's solves run on the device: CG without a preconditioner (Kx and Ky zero on
 *  the physical faces) or Jacobi, in default mode, on one rank, the execution space a GPU
 *  (TEA_DEVICE_LOOP=1: on the host back ends too, for tests; =0: never). */
bool tea_loop_wanted(const tea_chunk *c, const tea_settings *s);
/** tea_loop_wanted, for a solve with at least one iteration. */
bool tea_solve_on_device(const tea_solve *v);
/** The solve as the solver's host loop, on the device: the same iterations, counts and bits;
 *  the figures read back once (CG's coefficient history, tea_solve_cg_iteration's, is not
 *  kept: only Chebyshev and PPCG read it). */
int tea_solve_loop(tea_solve *v);
/** Release the chunk's recorded loop (tea_chunk_free). */
void tea_loop_free(tea_chunk *c);

PORTA_EXTERN_C_END

#endif /* TEA_LOOP_H */
