/** @file tea_pass.h
 *  A solver's iteration written once, as a pass: a sequence of steps (kernels with reductions
 *  into the solver's scalars, global sums, halo exchanges, the scalar steps and the convergence
 *  test) that is either driven from the host pass by pass or recorded once into the device loop
 *  (tea_solve_loop.c: a porta_loop, so that on a GPU a whole solve, Chebyshev's and PPCG's after
 *  their switch, runs without a return to the host) and replayed there. This header holds the
 *  solver's scalars and the code that reads and writes them (alpha, beta, the convergence test,
 *  Chebyshev's stop) as inline functions run by one-thread kernels (their launchers are the
 *  solvers' kernel files), the pass and its steps.
 *
 *  Each step has one form: its reductions land in the scalars in the chunk's memory (device
 *  memory on a GPU), its kernels read alpha and beta from there, and a scalar step (alpha =
 *  rro / pw, the test) is a one-thread kernel. What differs is where the chunk's launches go
 *  and how the sums and exchanges travel, and the communication layer decides that: queued on
 *  the GPUs while a loop records (NCCL, peer), else MPI from the host (tea_loop_sum,
 *  tea_halo_exchange_neighbours). A pass driven from the host reads the figures back after it
 *  (tea_loop_read). On a host back end, whose host reads the scalars where they are, the
 *  launchers read them and pass values (tea_scalar_arg; Chebyshev's coefficients from the
 *  host's table, computed as the iterations need them); on a GPU the kernels read them, and
 *  Chebyshev's from tables in its memory (tea_solve_loop_coefs). The same bits either way: the
 *  same kernels and the same divisions, once each.
 *
 *  tea_pass_run decides between the two from the back end and the communicator
 *  (tea_loop_wanted): a GPU whose sums can be queued records, everything else runs from the
 *  host. */
#ifndef TEA_PASS_H
#define TEA_PASS_H

#include <math.h>
#include <string.h>

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
/** Chebyshev's solves of fewer than this many iterations (tl_max_iters) are recorded: the loop
 * holds their coefficients in a table (16 MiB of device memory); larger ones run from the host. */
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
  app_sum_rerun *rerun; /**< ... and their second passes' records (host memory) */
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

/** Whether Chebyshev's pass computes r.r for its test: its stop is its end (the iteration whose
 *  error the host loop recomputes), from the estimated count on. */
PORTA_INLINE_FUNCTION bool tea_cheby_fresh(const int64_t *ints) {
  const int64_t stop = ints[TEA_LOOP_STOP];
  return stop == tea_cheby_end(ints[TEA_LOOP_BASE]) && stop >= ints[TEA_LOOP_EST];
}

/** The coefficient of Chebyshev's iteration n: of its count (STEPS0 + n), the last one past
 *  its iteration limit. */
PORTA_INLINE_FUNCTION int64_t tea_cheby_coef(const int64_t *ints, int64_t n) {
  const int64_t steps = ints[TEA_LOOP_STEPS0] + n, ncoef = ints[TEA_LOOP_NCOEF];
  return steps < ncoef ? steps : ncoef - 1;
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

/** A one-thread kernel's arguments (tea_k_loop_*: the state, the deciding loop's handle where
 *  it decides, a plain test's scalar, a run's start). */
typedef struct tea_loop_ctl_args {
  tea_loop_state st;
  tea_loop_start start;
  porta_loop_handle loop;
  int slot;
} tea_loop_ctl_args;

static inline tea_loop_ctl_args tea_loop_ctl_of(const tea_loop_state *st,
                                                const porta_loop_handle *decider) {
  tea_loop_ctl_args a;
  memset(&a, 0, sizeof a);
  a.st = *st;
  if (decider) a.loop = *decider;
  return a;
}

/** A one-thread kernel NAME_f running the statement __VA_ARGS__ over `a` (a tea_loop_ctl_args),
 *  and its launcher NAME(exec, st, decider) on `exec`, labelled LABEL (decider NULL where the
 *  kernel does not decide): in the solvers' kernel files. */
#define TEA_LOOP_KERNEL(NAME, LABEL, ...)                                                          \
  PORTA_FOR(NAME##_f, tea_loop_ctl_args, a, i) { __VA_ARGS__; }                                    \
  int NAME(porta_exec exec, const tea_loop_state *st, const porta_loop_handle *decider) {          \
    tea_loop_ctl_args args = tea_loop_ctl_of(st, decider);                                         \
    return PORTA_PARALLEL_FOR_LABELED(LABEL, NAME##_f, exec, porta_range(0, 1), &args);            \
  }

/** Start a run: its figures into device memory, the count and status zeroed, Chebyshev's first
 *  pass from n0 (a one-thread kernel, no wait). */
int tea_k_loop_start(tea_chunk *c, const tea_loop_state *st, const tea_loop_start *start);
/** CG's one-thread kernels on `exec` (TEA_LOOP_KERNEL: tea_loop_cg_alpha, decider NULL;
 *  tea_loop_cg_beta_test deciding through `decider`, the recorded loop's). */
int tea_k_loop_cg_alpha(porta_exec exec, const tea_loop_state *st,
                        const porta_loop_handle *decider);
int tea_k_loop_cg_test(porta_exec exec, const tea_loop_state *st, const porta_loop_handle *decider);
/** PPCG's one-thread kernels on `exec`: tea_loop_ppcg_alpha; and CG's test labelled PPCG's. */
int tea_k_loop_ppcg_alpha(porta_exec exec, const tea_loop_state *st,
                          const porta_loop_handle *decider);
int tea_k_loop_ppcg_test(porta_exec exec, const tea_loop_state *st,
                         const porta_loop_handle *decider);
/** CG's lean update with alpha and beta from the scalars: u += alpha p, p = r + beta p, after
 *  the test kernel (on a host back end its launcher reads them: tea_scalar_arg);
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
/** Chebyshev's NORM: r.r into `to` where the pass's test reads it (tea_cheby_fresh), else 0
 *  (a GPU's kernel reads no r then). */
int tea_k_cheby_norm(tea_chunk *c, const tea_loop_state *st, app_sum_to to);
/** Iteration BASE + slot of a Chebyshev pass (tea_kernels_cheby.c), if it is not past STOP:
 *  r = u0 - A u, then p = alpha p + beta (M r), u += p with the coefficients of its count
 *  (jac_block: the block solve z = M r between the two). Its coefficients from the tables
 *  `alphas`, `betas` in the chunk's memory on a GPU; on a host back end its launcher reads the
 *  integers and the host's coefficients (c->ch_alphas, c->ch_betas) and launches nothing past
 *  STOP. With `ring` (not jac_block) the update is split (tea_split): the residual everywhere,
 *  a fence, then the edge's update on *ring beside the inside's on c->exec, neither waited for. */
int tea_k_cheby_step(tea_chunk *c, tea_precon pc, porta_view_f64 alphas, porta_view_f64 betas,
                     const tea_loop_state *st, int64_t slot, const porta_exec *ring);

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

/* ---- the pass ---- */

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
  tea_solve *v;              /**< from the host: the solve */
  tea_pass_arg arg;
  porta_view_f64 alphas, betas; /**< Chebyshev's coefficients in the chunk's memory (a GPU's) */
} tea_pass;

/** One iteration of a solver: the kernels of tea_internal.h and above (their sums into
 *  tea_pass_to's scalars, the one-thread kernels on c->exec with p->decider) and the steps
 *  below. */
typedef int (*tea_pass_body)(tea_pass *p);

/** Where a reduction into scalar `slot` lands (its accumulator with exact sums). */
static inline app_sum_to tea_pass_to(const tea_pass *p, int slot) {
  app_sum_to to;
  to.value = &p->st.scal[slot];
  to.exact = p->st.exact ? &p->st.exact[slot] : NULL;
  to.rerun = p->st.rerun ? &p->st.rerun[slot] : NULL;
  return to;
}

/** The global sum of scalars slot .. slot + n - 1 (tea_loop_sum). */
static inline int tea_pass_sum(tea_pass *p, int slot, int n) { return tea_loop_sum(p->c, slot, n); }
/** `field`'s halo exchanged 1 deep, its physical faces reflected if `reflect`. */
static inline int tea_pass_exchange(tea_pass *p, int field, bool reflect) {
  return reflect ? tea_exchange1(p->c, field, 1) : tea_halo_exchange_neighbours(p->c, &field, 1, 1);
}

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
/** Chebyshev's coefficients 0 .. need - 1 (at most p->arg.ncoef) computed on the host and, on
 *  a GPU, in the tables p->alphas, p->betas in its memory (grown as needed, doubling, which
 *  drops a recorded loop that read the old ones; `fresh`: a solve's first call, whose
 *  coefficients the tables do not hold yet). */
int tea_solve_loop_coefs(tea_pass *p, int64_t need, bool fresh);

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
