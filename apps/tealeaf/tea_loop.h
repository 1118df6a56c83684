/** @file tea_loop.h
 *  The solvers' scalars and the code that reads and writes them (alpha, beta, the convergence
 *  test, Chebyshev's stop), written once as inline functions that a pass runs in one-thread
 *  kernels (tea_pass.h); the kernels' launchers (tea_kernels_loop.c), the scalars' state in the
 *  chunk's memory and its sums, and the device loop (tea_solve_loop.c): a solver's passes
 *  recorded once as a porta_loop, so that on a GPU a whole solve (Chebyshev and PPCG: the rest
 *  after their switch) runs without a return to the host; the step reads its figures back once.
 *  The same bits whether the passes are recorded or driven from the host: the same kernels and
 *  the same divisions, once each. */
#ifndef TEA_LOOP_H
#define TEA_LOOP_H

#include <math.h>

#include "tea_solve.h"

PORTA_EXTERN_C_BEGIN

/** The solver's scalars (tea_loop_state.scal). */
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
  TEA_LOOP_HUGE,  /**< an error above this has diverged (0: no such test; tea_solve_loop_start) */
  TEA_LOOP_NSCAL
};
/** The solver's integers (tea_loop_state.ints). */
enum {
  TEA_LOOP_N,      /**< iterations this run made (of the loop, or of passes from the host) */
  TEA_LOOP_STATUS, /**< how it ended (below) */
  TEA_LOOP_N0,     /**< the solve's iterations before it (tea_solve.n - 1 at its start) */
  TEA_LOOP_LAST,   /**< the solve's iteration limit (tea_solve.last_iter) */
  TEA_LOOP_EST,    /**< Chebyshev: the estimated iteration count (cheby_state.est_itc) */
  TEA_LOOP_STEPS0, /**< Chebyshev: its count (the coefficient) at iteration n is STEPS0 + n */
  TEA_LOOP_NCOEF,  /**< Chebyshev: its iteration limit (cheby_state.max_iters) */
  TEA_LOOP_BASE,   /**< Chebyshev: the pass's iterations are BASE + 1 .. tea_cheby_end */
  TEA_LOOP_STOP,   /**< Chebyshev: of which those up to STOP run */
  TEA_LOOP_NINTS
};
/** Chebyshev's iterations per pass: the host loop recomputes its error every 10 iterations,
 *  so a pass (n = 10 k + 1 .. 10 k + 10; the first after the switch from its iteration on)
 *  computes r.r once, in its last. */
enum { TEA_CHEBY_PASS = 10 };
/** Chebyshev's coefficient tables larger than this stay on the host (16 MiB of device memory). */
#define TEA_LOOP_MAX_COEFS ((int64_t)1 << 20)
/** TEA_LOOP_STATUS: still iterating (the limit ends it), converged, a residual not finite, or
 *  one beyond TEA_LOOP_HUGE (diverged). */
enum {
  TEA_LOOP_RUNNING = 0,
  TEA_LOOP_CONVERGED = 1,
  TEA_LOOP_NOT_FINITE = 2,
  TEA_LOOP_DIVERGED = 3
};
/** Chebyshev's solve has diverged when its residual grows to more than this many times the
 *  initial one (a bad eigenvalue estimate: the iterations multiply the residual every time). It
 *  is tested where the residual is recomputed, so both sum modes stop at the same iteration:
 *  --reproducible's exact sums hold r.r only below about 1.4e101 (porta/xsum.h), and a residual
 *  that outgrows them would have stopped that mode alone, with another message. */
#define TEA_DIVERGE_FACTOR 1e20

/** The solver's scalars, in the chunk's memory (device memory on a GPU). */
typedef struct tea_loop_state {
  double *scal;  /**< TEA_LOOP_NSCAL doubles */
  int64_t *ints; /**< TEA_LOOP_NINTS integers */
  /** with exact sums (--reproducible): a reduction into scalar s lands in exact[s], and its sum
   *  rounds it into scal[s] (tea_loop_sum); else NULL */
  porta_xsum_f64_value *exact;
} tea_loop_state;

/** The end of an iteration (the convergence test, written once: a one-thread kernel on the
 *  device, a call on the host): count it, error = sqrt(|value|), converged or not finite (the
 *  status), else the error kept as the old one. Returns whether another iteration runs (the
 *  solve's limit not reached). */
PORTA_INLINE_FUNCTION int tea_loop_test(const tea_loop_state *st, double value) {
  const int64_t n = st->ints[TEA_LOOP_N0] + ++st->ints[TEA_LOOP_N];
  const double error = sqrt(fabs(value));
  st->scal[TEA_LOOP_ERROR] = error;
  if (!isfinite(error)) {
    st->ints[TEA_LOOP_STATUS] = TEA_LOOP_NOT_FINITE;
    return 0;
  }
  if (fabs(error) < st->scal[TEA_LOOP_EPS]) {
    st->ints[TEA_LOOP_STATUS] = TEA_LOOP_CONVERGED;
    return 0;
  }
  if (st->scal[TEA_LOOP_HUGE] > 0.0 && error > st->scal[TEA_LOOP_HUGE]) {
    st->ints[TEA_LOOP_STATUS] = TEA_LOOP_DIVERGED;
    return 0;
  }
  st->scal[TEA_LOOP_OLD] = error;
  return n < st->ints[TEA_LOOP_LAST];
}

/** CG's alpha: rro = rrn (the last iteration's r.r; the start's rro first), alpha = rro / pw. */
PORTA_INLINE_FUNCTION void tea_loop_cg_alpha(const tea_loop_state *st) {
  const double rro = st->scal[TEA_LOOP_RRN];
  st->scal[TEA_LOOP_RRO] = rro;
  st->scal[TEA_LOOP_ALPHA] = rro / st->scal[TEA_LOOP_PW];
}

/** PPCG's alpha: rro = utemp.r, alpha = rro / pw. */
PORTA_INLINE_FUNCTION void tea_loop_ppcg_alpha(const tea_loop_state *st) {
  const double rro = st->scal[TEA_LOOP_RZ];
  st->scal[TEA_LOOP_RRO] = rro;
  st->scal[TEA_LOOP_ALPHA] = rro / st->scal[TEA_LOOP_PW];
}

/** CG's beta = rrn / rro, rro = rrn, and the test on rrn. Returns whether another runs. */
PORTA_INLINE_FUNCTION int tea_loop_cg_beta_test(const tea_loop_state *st) {
  const double rrn = st->scal[TEA_LOOP_RRN];
  st->scal[TEA_LOOP_BETA] = rrn / st->scal[TEA_LOOP_RRO];
  st->scal[TEA_LOOP_RRO] = rrn;
  return tea_loop_test(st, rrn);
}

/** Where a run of the loop starts (tea_k_loop_start). */
typedef struct tea_loop_start {
  double rro;                /**< CG */
  double eps_init;           /**< eps * the initial residual */
  double huge;               /**< TEA_LOOP_HUGE */
  double error;              /**< Chebyshev: tea_solve.error so far */
  int64_t n0, last;          /**< iterations before, the limit */
  int64_t est, steps, ncoef; /**< Chebyshev (steps: its count at iteration n0 + 1) */
} tea_loop_start;

/** The end of Chebyshev's pass after iteration `base`: the next multiple of TEA_CHEBY_PASS
 *  (the iteration whose error the host loop recomputes, from the estimated count on). */
PORTA_INLINE_FUNCTION int64_t tea_cheby_end(int64_t base) {
  return base - base % TEA_CHEBY_PASS + TEA_CHEBY_PASS;
}

/** The last iteration of Chebyshev's pass BASE + 1 .. its end that runs: the first of those
 *  before its end (whose error is the last one square-rooted again, known now) that converges,
 *  else its end, and never past the limit. */
PORTA_INLINE_FUNCTION int64_t tea_cheby_stop(const tea_loop_state *st) {
  const int64_t base = st->ints[TEA_LOOP_BASE];
  const int64_t end = tea_cheby_end(base);
  const int64_t last = st->ints[TEA_LOOP_LAST];
  double e = st->scal[TEA_LOOP_ERROR];
  for (int64_t n = base + 1; n < end; ++n) {
    e = sqrt(fabs(e));
    if (!isfinite(e) || fabs(e) < st->scal[TEA_LOOP_EPS] || n >= last) return n;
  }
  return end < last ? end : last;
}

/** Chebyshev's tests of a pass's iterations that ran: r.r where the host loop recomputes its
 *  error (the pass's end, from the estimated count on), else the old error square-rooted
 *  again; then the next pass and its stop. Returns whether another pass runs. */
PORTA_INLINE_FUNCTION int tea_loop_cheby_test(const tea_loop_state *st) {
  const int64_t base = st->ints[TEA_LOOP_BASE];
  const int64_t stop = st->ints[TEA_LOOP_STOP];
  const int64_t end = tea_cheby_end(base);
  int again = 0;
  for (int64_t n = base + 1; n <= stop; ++n) {
    const bool fresh = n == end && n >= st->ints[TEA_LOOP_EST];
    again = tea_loop_test(st, fresh ? st->scal[TEA_LOOP_NORM] : st->scal[TEA_LOOP_ERROR]);
    if (!again) break;
  }
  if (again) {
    st->ints[TEA_LOOP_BASE] = end;
    st->ints[TEA_LOOP_STOP] = tea_cheby_stop(st);
  }
  return again;
}

/** A run's start into the scalars (tea_k_loop_start's kernel for a recorded loop; on the host
 *  side for passes driven from the host). */
PORTA_INLINE_FUNCTION void tea_loop_begin(const tea_loop_state *st, const tea_loop_start *start) {
  st->scal[TEA_LOOP_RRO] = start->rro;
  st->scal[TEA_LOOP_RRN] = start->rro; /* CG's alpha: rro = rrn */
  st->scal[TEA_LOOP_EPS] = start->eps_init;
  st->scal[TEA_LOOP_HUGE] = start->huge;
  st->scal[TEA_LOOP_ERROR] = start->error;
  st->ints[TEA_LOOP_N] = 0;
  st->ints[TEA_LOOP_STATUS] = TEA_LOOP_RUNNING;
  st->ints[TEA_LOOP_N0] = start->n0;
  st->ints[TEA_LOOP_LAST] = start->last;
  st->ints[TEA_LOOP_EST] = start->est;
  st->ints[TEA_LOOP_STEPS0] = start->steps - (start->n0 + 1);
  st->ints[TEA_LOOP_NCOEF] = start->ncoef;
  st->ints[TEA_LOOP_BASE] = start->n0;
  st->ints[TEA_LOOP_STOP] = tea_cheby_stop(st);
}

/** Start a run: its figures into device memory, the count and status zeroed, Chebyshev's first
 *  pass from n0 (a one-thread kernel, no wait). */
int tea_k_loop_start(tea_chunk *c, const tea_loop_state *st, const tea_loop_start *start);
/** CG's one-thread kernels on `exec` (tea_loop_cg_alpha; tea_loop_cg_beta_test deciding
 *  through `decider`, the recorded loop's). */
int tea_k_loop_cg_alpha(porta_exec exec, const tea_loop_state *st);
int tea_k_loop_cg_test(porta_exec exec, const tea_loop_state *st, const porta_loop_handle *decider);
/** PPCG's one-thread kernels on `exec`: tea_loop_ppcg_alpha; and CG's test labelled PPCG's. */
int tea_k_loop_ppcg_alpha(porta_exec exec, const tea_loop_state *st);
int tea_k_loop_ppcg_test(porta_exec exec, const tea_loop_state *st,
                         const porta_loop_handle *decider);
/** CG's lean update with alpha and beta from the scalars: u += alpha p, p = r + beta p, after
 *  the test kernel (on a host back end its launcher reads them: tea_k_cg_calc_up_values);
 *  `fused`: the test in the update's kernel instead (every thread computes
 *  beta, one cell's thread runs the test: one kernel less per iteration, about 2 us on a GPU;
 *  on large grids the divisions cost more: 4 % of tea_bm_5's time on an H200, so the pass
 *  fuses up to TEA_LOOP_FUSE_CELLS). */
int tea_k_cg_calc_up(tea_chunk *c, const tea_loop_state *st, const porta_loop_handle *decider,
                     bool fused);
/** tea_k_cg_calc_up split (tea_split, an edge 1 deep): the edge's cells on `ring_exec`, the
 *  inside's on the chunk's space, neither waited for (the caller orders them: porta_exec_wait).
 *  With `fused` the edge's kernel runs the test (its cell is the interior's first, on the
 *  edge). */
int tea_k_cg_calc_up_split(tea_chunk *c, porta_exec ring_exec, const tea_loop_state *st,
                           const porta_loop_handle *decider, bool fused);
/** CG's p update and test fused on a GPU's grids of up to this many cells (TEA_LOOP_FUSE=0|1
 *  forces either way, for tests). */
#define TEA_LOOP_FUSE_CELLS ((int64_t)1 << 22)
/** Whether the chunk's CG update runs the test (tea_k_cg_calc_up's `fused`): on a GPU up to
 *  TEA_LOOP_FUSE_CELLS, not on the host back ends, whose launcher reads alpha and beta once
 *  instead of a division in every cell. */
bool tea_loop_fused(const tea_chunk *c);
/** The convergence test on scalar `slot` in a one-thread kernel on `exec`, deciding through
 *  `decider` (Jacobi's on its L1 norm). */
int tea_k_loop_test(porta_exec exec, const tea_loop_state *st, const porta_loop_handle *decider,
                    int slot);
/** Chebyshev's test (tea_loop_cheby_test) in a one-thread kernel on `exec`. */
int tea_k_loop_cheby_test(porta_exec exec, const tea_loop_state *st,
                          const porta_loop_handle *decider);
/** Iteration BASE + slot of a Chebyshev pass (tea_kernels_cheby.c), if it is not past STOP:
 *  r = u0 - A u, then p = alpha p + beta (M r), u += p with the coefficients of its count
 *  (jac_block: the block solve z = M r between the two, on every slot). */
int tea_k_cheby_loop_update(tea_chunk *c, tea_precon pc, porta_view_f64 alphas,
                            porta_view_f64 betas, porta_view_i64 ints, int64_t slot);

/** Whether the run's solves run on the device: every solver with every preconditioner (CG and
 *  Jacobi throughout, Chebyshev and PPCG their iterations after the switch), with plain or
 *  exact sums, on one rank or on several whose sums and exchanges can be queued, the
 *  execution space a GPU (TEA_DEVICE_LOOP=1: on the host back ends too, for tests; =0: never). */
bool tea_loop_wanted(const tea_chunk *c);
/** The solver's scalars in the chunk's memory (made at the first call). */
int tea_loop_state_of(tea_chunk *c, tea_loop_state *st);
/** Their host side (the state itself on a host back end, else copies in pinned memory):
 *  tea_loop_read copies the state there (a wait for the launches before), tea_loop_host
 *  returns it as the last read or write left it, and tea_loop_write copies it back, queued. */
int tea_loop_read(tea_chunk *c, tea_loop_state *host);
tea_loop_state tea_loop_host(const tea_chunk *c);
int tea_loop_write(tea_chunk *c);
/** The global sum of scalars slot .. slot + n - 1 (exact: of their accumulators): queued while
 *  a loop records (the device communicator), else driven from the host by MPI through host
 *  memory. */
int tea_loop_sum(tea_chunk *c, int slot, int n);
/** Release the chunk's recorded loop (tea_run_finish: before the communicator and chunk). */
void tea_loop_free(tea_chunk *c);

PORTA_EXTERN_C_END

#endif /* TEA_LOOP_H */
