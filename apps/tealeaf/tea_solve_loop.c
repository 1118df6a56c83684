/** @file tea_solve_loop.c
 *  The drivers on the device (tea_loop.h): a solver's iterations recorded once as a porta_loop
 *  whose test kernel decides whether another runs; per step a start kernel, one run and one
 *  read of the figures. The loop is recorded again if the solver, the preconditioner, the
 *  operator's rx, ry or the coefficient table (kernel arguments of the recording) change.
 *  Host code. */
#include <stdlib.h>
#include <string.h>

#include "app_env.h"
#include "tea_loop.h"

/** Chebyshev's coefficient tables larger than this stay on the host (16 MiB of device memory). */
#define TEA_LOOP_MAX_COEFS ((int64_t)1 << 20)

struct tea_loop {
  tea_loop_state st;
  porta_mirror_f64 scal; /**< the figures on the host */
  porta_mirror_i64 ints;
  porta_view_f64 alphas, betas; /**< Chebyshev's coefficients (coef_cap each) */
  int64_t coef_cap;
  porta_loop *loop;
  tea_solver solver; /**< the loop's body */
  tea_precon pc;
  double rx, ry;         /**< the operator the loop was recorded with */
  double theta;          /**< PPCG: its inner steps' coefficients' */
  int inner;             /**< PPCG: inner steps per iteration */
  const tea_settings *s; /**< PPCG: the run's settings (its inner steps read them) */
};

bool tea_loop_wanted(const tea_chunk *c, const tea_settings *s) {
  const bool want = app_env_flag("TEA_DEVICE_LOOP", porta_exec_query(c->exec).on_device);
  /* every solver and preconditioner; not the exact sums, and across ranks only where the
     sums and exchanges can be queued on the GPUs (NCCL) */
  return want && !s->reproducible && tea_loop_can_queue(c);
}

bool tea_solve_on_device(const tea_solve *v) {
  return v->last_iter >= 1 && tea_loop_wanted(v->c, v->s);
}

bool tea_solve_ppcg_on_device(const tea_solve *v) {
  return v->n <= v->last_iter && tea_loop_wanted(v->c, v->s);
}

bool tea_solve_cheby_on_device(const tea_solve *v, int64_t ncoef) {
  return v->n <= v->last_iter && (v->n - 1) % TEA_CHEBY_PASS == 0 && ncoef <= TEA_LOOP_MAX_COEFS &&
         tea_loop_wanted(v->c, v->s);
}

void tea_loop_free(tea_chunk *c) {
  struct tea_loop *l = c->loop;
  if (!l) return;
  porta_loop_destroy(l->loop);
  if (l->st.scal.data) porta_view_f64_release(&l->st.scal);
  if (l->st.ints.data) porta_view_i64_release(&l->st.ints);
  if (l->scal.data) porta_mirror_f64_release(&l->scal);
  if (l->ints.data) porta_mirror_i64_release(&l->ints);
  if (l->alphas.data) porta_view_f64_release(&l->alphas);
  if (l->betas.data) porta_view_f64_release(&l->betas);
  free(l);
  c->loop = NULL;
}

static int cg_iteration(porta_exec exec, void *ctx) {
  tea_chunk *c = (tea_chunk *)ctx;
  struct tea_loop *l = c->loop;
  /* the host loop's iterations (tea_solve_cg_iteration): with a preconditioner the one with z,
     else the lean one, which reflects p's halo only on a reflective boundary (where Kx, Ky are
     not zero on the faces) */
  if (l->pc != TEA_PRECON_NONE) return tea_k_cg_loop_iteration_pc(c, exec, &l->st, l->pc);
  const bool fused =
      app_env_flag("TEA_LOOP_FUSE", (int64_t)c->nx * c->ny <= TEA_LOOP_FUSE_CELLS) != 0;
  PORTA_CHECK(tea_k_cg_loop_iteration(c, exec, &l->st, fused));
  const int p = TEA_FIELD_P;
  /* p's exchange, after the test (which decides only whether another pass follows): the
     physical faces only where Kx and Ky are not zero there (the host loop's lean iteration) */
  return tea_halo_exchange_on(c, exec, &p, 1, 1, !c->faces_zeroed);
}

static int jacobi_iteration(porta_exec exec, void *ctx) {
  tea_chunk *c = (tea_chunk *)ctx;
  return tea_k_jacobi_loop_iteration(c, exec, &c->loop->st);
}

static int cheby_iteration(porta_exec exec, void *ctx) {
  tea_chunk *c = (tea_chunk *)ctx;
  struct tea_loop *l = c->loop;
  return tea_k_cheby_loop_pass(c, exec, &l->st, l->pc, l->alphas, l->betas);
}

static int ppcg_iteration(porta_exec exec, void *ctx) {
  tea_chunk *c = (tea_chunk *)ctx;
  struct tea_loop *l = c->loop;
  PORTA_CHECK(tea_k_ppcg_loop_first(c, exec, &l->st, l->pc));
  /* the inner steps are the host loop's own code: the chunk's kernels launch on the loop's
     space while it records */
  const porta_exec own = c->exec;
  c->exec = exec;
  const int rc = tea_solve_ppcg_inner(c, l->s, l->theta, l->inner);
  c->exec = own;
  PORTA_CHECK(rc);
  return tea_k_ppcg_loop_last(c, exec, &l->st);
}

/** The device state and its host mirrors (once). */
static int state(tea_chunk *c) {
  if (c->loop) return PORTA_SUCCESS;
  struct tea_loop *l = (struct tea_loop *)calloc(1, sizeof *l);
  if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_solve_loop", "loop", "calloc");
  c->loop = l;
  PORTA_CHECK(porta_view_f64_create1(&l->st.scal, "solver loop scalars", TEA_LOOP_NSCAL));
  PORTA_CHECK(porta_view_i64_create1(&l->st.ints, "solver loop counts", TEA_LOOP_NINTS));
  PORTA_CHECK(porta_view_f64_create_mirror_view(&l->scal, &l->st.scal));
  return porta_view_i64_create_mirror_view(&l->ints, &l->st.ints);
}

/** The recorded loop of this solver (again when it is another's, or its arguments changed). */
static int ready(tea_chunk *c, const tea_settings *s, bool tables_changed, double theta,
                 int inner) {
  struct tea_loop *l = c->loop;
  const tea_precon pc = s->solver == TEA_SOLVER_JACOBI ? TEA_PRECON_NONE : s->preconditioner;
  if (l->loop && l->solver == s->solver && l->pc == pc && l->rx == c->rx && l->ry == c->ry &&
      l->theta == theta && l->inner == inner && !tables_changed)
    return PORTA_SUCCESS;
  PORTA_CHECK(porta_loop_destroy(l->loop));
  l->loop = NULL;
  l->solver = s->solver;
  l->pc = pc;
  l->rx = c->rx;
  l->ry = c->ry;
  l->theta = theta;
  l->inner = inner;
  l->s = s;
  const char *label = s->solver == TEA_SOLVER_CG       ? "tea_cg_loop"
                      : s->solver == TEA_SOLVER_JACOBI ? "tea_jacobi_loop"
                      : s->solver == TEA_SOLVER_CHEBY  ? "tea_cheby_loop"
                                                       : "tea_ppcg_loop";
  porta_loop_body body = s->solver == TEA_SOLVER_CG       ? cg_iteration
                         : s->solver == TEA_SOLVER_JACOBI ? jacobi_iteration
                         : s->solver == TEA_SOLVER_CHEBY  ? cheby_iteration
                                                          : ppcg_iteration;
  /* at most max_iters passes: the solve's limit (TEA_LOOP_LAST) ends a run first; exchanges
     of the host loop's own code in a body (PPCG's inner steps) are queued while it records */
  tea_set_queueing(c, true);
  const int rc = porta_loop_create_deciding(label, c->exec, body, c, s->max_iters, &l->loop);
  tea_set_queueing(c, false);
  return rc;
}

/** Run the loop from `start`, read its figures back once, and set the solve's state as the
 *  host loop leaves it; *iterations += the iterations it made. */
static int run(tea_solve *v, const tea_loop_start *start, int *iterations) {
  tea_chunk *c = v->c;
  struct tea_loop *l = c->loop;
  PORTA_CHECK(tea_k_loop_start(c, &l->st, start));
  PORTA_CHECK(porta_loop_run(l->loop));
  PORTA_CHECK(porta_deep_copy(l->scal, l->st.scal)); /* waits for the loop */
  PORTA_CHECK(porta_deep_copy(l->ints, l->st.ints));
  const int64_t n = l->ints.data[TEA_LOOP_N];
  const int64_t status = l->ints.data[TEA_LOOP_STATUS];
  *iterations += (int)n;
  v->error = l->scal.data[TEA_LOOP_ERROR];
  v->rro = l->scal.data[TEA_LOOP_RRN]; /* the last r.r (CG, PPCG), else the start's */
  if (n > 1 || status == TEA_LOOP_RUNNING) v->old_error = l->scal.data[TEA_LOOP_OLD];
  if (v->s->verbose_on) v->st->last_residual = v->error;
  if (status == TEA_LOOP_NOT_FINITE)
    return tea_solve_not_finite("the residual", start->n0 + n, v->error, v->initial_residual);
  v->converged = status == TEA_LOOP_CONVERGED;
  /* the loop index at exit, as the host loop's */
  v->n = v->converged ? start->n0 + n : v->last_iter + 1;
  return PORTA_SUCCESS;
}

/** A run's start from the solve as it stands, after `n0` iterations. */
static tea_loop_start start_of(const tea_solve *v, int64_t n0) {
  tea_loop_start start;
  memset(&start, 0, sizeof start);
  start.rro = v->rro;
  start.eps_init = v->s->eps * v->initial_residual;
  start.error = v->error;
  start.n0 = n0;
  start.last = v->last_iter;
  return start;
}

int tea_solve_loop(tea_solve *v) {
  tea_chunk *c = v->c;
  PORTA_CHECK(state(c));
  PORTA_CHECK(ready(c, v->s, false, 0.0, 0));
  const tea_loop_start start = start_of(v, 0);
  int unused = 0;
  return run(v, &start, v->s->solver == TEA_SOLVER_CG ? &v->st->cg_iterations : &unused);
}

/** Chebyshev's coefficients 0..ncoef-1 in device memory (the views grow: then *grown). */
static int upload_coefs(tea_chunk *c, int64_t ncoef, double *theta, int64_t *have_coef,
                        bool *grown) {
  struct tea_loop *l = c->loop;
  PORTA_CHECK(tea_solve_ch_coefs(c, ncoef, ncoef, have_coef, theta));
  *grown = ncoef > l->coef_cap;
  if (*grown) {
    if (l->alphas.data) porta_view_f64_release(&l->alphas);
    if (l->betas.data) porta_view_f64_release(&l->betas);
    l->coef_cap = 0;
    PORTA_CHECK(porta_view_f64_create1(&l->alphas, "chebyshev alphas", ncoef));
    PORTA_CHECK(porta_view_f64_create1(&l->betas, "chebyshev betas", ncoef));
    l->coef_cap = ncoef;
  }
  const porta_view_f64 *dst[2] = {&l->alphas, &l->betas};
  const double *src[2] = {c->ch_alphas, c->ch_betas};
  for (int t = 0; t < 2; ++t) {
    porta_mirror_f64 m;
    PORTA_CHECK(porta_view_f64_create_mirror_view(&m, dst[t]));
    memcpy(m.data, src[t], (size_t)ncoef * sizeof(double));
    const int rc = porta_deep_copy(*dst[t], m);
    porta_mirror_f64_release(&m);
    PORTA_CHECK(rc);
  }
  return PORTA_SUCCESS;
}

int tea_solve_cheby_loop(tea_solve *v, int64_t steps, int64_t ncoef, int64_t est, double *theta,
                         int64_t *have_coef) {
  tea_chunk *c = v->c;
  PORTA_CHECK(state(c));
  bool grown = false;
  PORTA_CHECK(upload_coefs(c, ncoef, theta, have_coef, &grown));
  PORTA_CHECK(ready(c, v->s, grown, 0.0, 0));
  tea_loop_start start = start_of(v, v->n - 1);
  start.est = est;
  start.steps = steps;
  start.ncoef = ncoef;
  return run(v, &start, &v->st->cheby_iterations);
}

int tea_solve_ppcg_loop(tea_solve *v, int inner, double theta) {
  tea_chunk *c = v->c;
  PORTA_CHECK(state(c));
  PORTA_CHECK(ready(c, v->s, false, theta, inner));
  const tea_loop_start start = start_of(v, v->n - 1);
  int outer = 0;
  const int rc = run(v, &start, &outer);
  v->st->inner_iterations += outer * inner;
  return rc;
}
