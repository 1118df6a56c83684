/** @file tea_cg_loop.h
 *  CG on the device (tea_solve_cg_loop.c, tea_kernels_cg_loop.c): the lean CG iteration with
 *  its scalars (rro, pw, rrn, alpha, beta), the convergence test and the iteration limit in
 *  device memory, recorded once as a porta_loop, so that on a GPU a whole solve runs without a
 *  return to the host; the step reads its figures back once. The same bits as the host's loop:
 *  alpha and beta are the same divisions, done once each by one-thread kernels, and the
 *  reductions are the host loop's kernels. */
#ifndef TEA_CG_LOOP_H
#define TEA_CG_LOOP_H

#include "tea_solve.h"

PORTA_EXTERN_C_BEGIN

/** The device scalars (tea_cg_loop.scal). */
enum {
  TEA_LOOP_RRO,
  TEA_LOOP_PW,
  TEA_LOOP_RRN,
  TEA_LOOP_ALPHA,
  TEA_LOOP_BETA,
  TEA_LOOP_ERROR,
  TEA_LOOP_OLD,
  TEA_LOOP_EPS,
  TEA_LOOP_NSCAL
};
/** The device integers (tea_cg_loop.ints): iterations run, how the solve ended, the limit. */
enum { TEA_LOOP_N, TEA_LOOP_STATUS, TEA_LOOP_LAST, TEA_LOOP_NINTS };
/** TEA_LOOP_STATUS: still iterating (the limit ends it), converged, or a residual not finite. */
enum { TEA_LOOP_RUNNING = 0, TEA_LOOP_CONVERGED = 1, TEA_LOOP_NOT_FINITE = 2 };

/** What the recorded kernels read and write. */
typedef struct tea_cg_loop_state {
  porta_view_f64 scal; /**< TEA_LOOP_NSCAL doubles */
  porta_view_i64 ints; /**< TEA_LOOP_NINTS integers */
} tea_cg_loop_state;

/** Start a solve: rro, eps * initial residual and the iteration limit into device memory (a
 *  one-thread kernel, no wait). */
int tea_k_cg_loop_start(tea_chunk *c, const tea_cg_loop_state *st, double rro, double eps_init,
                        int64_t last_iter);
/** One CG iteration on `exec` (a deciding loop's body): w = A p with p.w, alpha, r -= alpha w
 *  with r.r, beta and the test that decides whether another runs, u += alpha p and
 *  p = r + beta p. */
int tea_k_cg_loop_iteration(tea_chunk *c, porta_exec exec, const tea_cg_loop_state *st);

/** Whether the run's CG solves run on the device: the CG solver without a preconditioner in
 *  default mode, on one rank, Kx and Ky zero on the physical faces, and the execution space a
 *  GPU (TEA_DEVICE_LOOP=1: on the host back ends too, for tests; =0: never). */
bool tea_cg_loop_wanted(const tea_chunk *c, const tea_settings *s);
/** tea_cg_loop_wanted, for a solve with at least one iteration. */
bool tea_solve_cg_on_device(const tea_solve *v);
/** The solve as tea_solve_cg's loop, on the device: the same iterations, counts and bits; the
 *  figures read back once (the coefficient history of tea_solve_cg_iteration is not kept: only
 *  Chebyshev and PPCG read it). */
int tea_solve_cg_loop(tea_solve *v);
/** Release the chunk's device CG (tea_chunk_free). */
void tea_cg_loop_free(tea_chunk *c);

PORTA_EXTERN_C_END

#endif /* TEA_CG_LOOP_H */
