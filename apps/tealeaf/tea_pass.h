/** @file tea_pass.h
 *  A solver's iteration written once, as a sequence of steps (kernels with reductions into the
 *  solver's scalars, global sums, halo exchanges, the scalar steps and the convergence test),
 *  that is either driven from the host pass by pass or recorded once into the device loop
 *  (tea_loop.h) and replayed there.
 *
 *  Each step has one form: its reductions land in the scalars in the chunk's memory (device
 *  memory on a GPU), its kernels read alpha and beta from there, and a scalar step (alpha =
 *  rro / pw, the test) is a one-thread kernel (tea_loop.h). What differs is where the chunk's
 *  launches go and how the sums and exchanges travel, and the communication layer decides
 *  that: queued on the GPUs while a loop records (NCCL, peer), else MPI from the host
 *  (tea_loop_sum, tea_halo_exchange_neighbours). A pass driven from the host reads the
 *  figures back after it (tea_loop_read). Chebyshev's coefficients are the one exception:
 *  recorded they are a table in the loop's memory, driven from the host they are computed as
 *  the iterations need them.
 *
 *  tea_pass_run decides between the two from the back end and the communicator
 *  (tea_loop_wanted): a GPU whose sums can be queued records, everything else runs from the
 *  host. Host code. */
#ifndef TEA_PASS_H
#define TEA_PASS_H

#include "tea_loop.h"

PORTA_EXTERN_C_BEGIN

/** A pass body's own constants (kernel arguments of a recording: a change records it again). */
typedef struct tea_pass_arg {
  double theta;       /**< PPCG: its inner steps' coefficients' */
  int inner;          /**< PPCG: inner steps per iteration */
  int64_t ncoef;      /**< Chebyshev: its coefficients (its iteration limit); 0: no table */
  int64_t est;        /**< Chebyshev: the estimated iteration count */
  int64_t steps;      /**< Chebyshev: its count at the run's first iteration */
  int64_t *have_coef; /**< Chebyshev: the host's coefficients computed so far (grown as used) */
  double *ch_theta;   /**< Chebyshev: their theta */
} tea_pass_arg;

/** One pass of a solver. Its launches go to the chunk's space (c->exec: the loop's while it
 *  records). */
typedef struct tea_pass {
  tea_chunk *c;
  const tea_settings *s;
  tea_loop_state st;         /**< the scalars, in the chunk's memory */
  porta_loop_handle decider; /**< recorded: the loop's, for the kernel that decides; else 0 */
  bool recorded;             /**< recorded: Chebyshev's coefficients in alphas, betas */
  tea_solve *v;              /**< from the host: the solve */
  tea_loop_state host;       /**< from the host: the figures as the last pass left them */
  tea_pass_arg arg;
  porta_view_f64 alphas, betas; /**< recorded: Chebyshev's coefficients in device memory */
  porta_view_i64 ints;          /**< recorded: the integers' view (st.ints) */
} tea_pass;

/** One iteration of a solver: the kernels of tea_internal.h and tea_loop.h (their sums into
 *  tea_pass_to's scalars, the one-thread kernels on c->exec with p->decider) and the steps
 *  below. */
typedef int (*tea_pass_body)(tea_pass *p);

/** Where a reduction into scalar `slot` lands (its accumulator with exact sums). */
static inline app_sum_to tea_pass_to(const tea_pass *p, int slot) {
  app_sum_to to;
  to.value = &p->st.scal[slot];
  to.exact = p->st.exact ? &p->st.exact[slot] : NULL;
  return to;
}

/** The global sum of scalars slot .. slot + n - 1 (tea_loop_sum). */
int tea_pass_sum(tea_pass *p, int slot, int n);
/** `field`'s halo exchanged 1 deep, its physical faces reflected if `reflect`. */
int tea_pass_exchange(tea_pass *p, int field, bool reflect);

/** Jacobi: un = u and the update, L1 = its L1 norm. */
int tea_pass_jacobi_update(tea_pass *p);
/** Jacobi: u's exchange, its faces reflected (from the host: beside the next iteration's copy
 *  of the interior where the chunk has an instance for it). */
int tea_pass_jacobi_exchange(tea_pass *p);

/** CG's lean end: the test, u += alpha p and p = r + beta p, p's exchange (the test fused into
 *  the update on a GPU's grids up to TEA_LOOP_FUSE_CELLS; p's faces sent beside the inside's
 *  update where the chunk has an instance for it and the faces need no reflection). */
int tea_pass_cg_up(tea_pass *p);

/** Chebyshev: iteration BASE + slot of the pass, if it runs, with u's exchange (from the host:
 *  the exchange beside the update where the chunk has an instance for it). */
int tea_pass_cheby_iteration(tea_pass *p, int slot);
/** Chebyshev: NORM = r.r, summed, where the pass's test reads it (recorded: every pass). */
int tea_pass_cheby_norm(tea_pass *p);

/** One pass of `body` driven from the host, at iteration v->n: the solve's figures (error,
 * old_error, rro, converged) as the pass leaves them, a failure if the residual is not finite. */
int tea_pass_now(tea_solve *v, tea_pass_body body, const tea_pass_arg *arg);
/** The convergence test (tea_loop_test) on `value` at iteration v->n from the host, for an
 *  iteration that is not a pass (Chebyshev's switch): the solve's figures as tea_pass_now. */
int tea_pass_test_now(tea_solve *v, double value);
/** The solve's iterations from v->n to its limit or convergence, recorded on the device or
 *  driven from the host (tea_loop_wanted); `*count` (if not NULL) += the passes run. v->n is the
 * loop index at exit, as the reference's (last_iter + 1 when they ran out). */
int tea_pass_run(tea_solve *v, tea_pass_body body, const char *label, const tea_pass_arg *arg,
                 int *count);

/** The device loop's side (tea_solve_loop.c): the start of a run after `n0` iterations; the
 *  solve's figures from the scalars after a run or pass that began after `n0` (v->n is the
 *  caller's); the passes of `body` recorded once (again when the body or its arguments change)
 *  and run on the device, the figures read back once. */
tea_loop_start tea_solve_loop_start(const tea_solve *v, int64_t n0, const tea_pass_arg *arg);
int tea_solve_loop_settle(tea_solve *v, const tea_loop_state *st, int64_t n0);
int tea_solve_loop_passes(tea_solve *v, tea_pass_body body, const char *label,
                          const tea_pass_arg *arg, int *count);

/** The CG iteration (tea_solve_cg.c): also Chebyshev's and PPCG's before their switch. */
int tea_cg_pass(tea_pass *p);
/** PPCG's iteration after its switch (tea_solve_ppcg.c). */
int tea_ppcg_pass(tea_pass *p);
/** Chebyshev's iterations after its switch, TEA_CHEBY_PASS at a time (tea_solve_cheby.c). */
int tea_cheby_pass(tea_pass *p);
/** The Jacobi iteration (tea_solve_jacobi.c). */
int tea_jacobi_pass(tea_pass *p);

PORTA_EXTERN_C_END

#endif /* TEA_PASS_H */
