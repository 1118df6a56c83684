/** @file tea_solve_loop.c
 *  The device loop: a solver's pass body (tea_pass.h) recorded once as a
 *  porta_loop whose test kernel decides whether another pass runs; per run a start kernel, one
 *  run and one read of the figures. The loop is recorded again if the body, the
 *  preconditioner, the operator's rx, ry, PPCG's constants or Chebyshev's coefficient table
 *  (kernel arguments of the recording) change. Host code. */
#include <stdlib.h>
#include <string.h>

#include "app_env.h"
#include "app_mpi.h"
#include "app_scalars.h"
#include "tea_comm.h"
#include "tea_pass.h"

struct tea_loop {
  tea_loop_state st;            /**< the views' memory */
  app_scalars sc;               /**< the scalars in the chunk's memory, and their host side */
  porta_view_f64 alphas, betas; /**< Chebyshev's coefficients (coef_cap each) */
  int64_t coef_cap, coef_have;  /**< their size, and how many hold the solve's */
  porta_loop *loop;
  tea_solver solver;  /**< the loop's body */
  tea_pass_body pass; /**< ... when it is a pass body (tea_pass.h) */
  tea_precon pc;
  double rx, ry;         /**< the operator the loop was recorded with */
  double theta;          /**< PPCG: its inner steps' coefficients' */
  int inner;             /**< PPCG: inner steps per iteration */
  const tea_settings *s; /**< PPCG: the run's settings (its inner steps read them) */
};

bool tea_loop_wanted(const tea_chunk *c) {
  /* every solver and preconditioner, where the back end records and the sums and exchanges
     can be queued; the exact sums too (their accumulators stay in device memory) */
  return app_loop_wanted(c->exec, "TEA_DEVICE_LOOP", tea_has_neighbours(c) ? 2 : 1,
                         tea_loop_device_comm(c));
}

bool tea_loop_fused(const tea_chunk *c) {
  const bool gpu_sized =
      porta_exec_query(c->exec).on_device && (int64_t)c->nx * c->ny <= TEA_LOOP_FUSE_CELLS;
  return app_env_flag("TEA_LOOP_FUSE", gpu_sized) != 0;
}

void tea_loop_free(tea_chunk *c) {
  struct tea_loop *l = c->loop;
  if (!l) return;
  porta_loop_destroy(l->loop);
  app_scalars_release(&l->sc);
  if (l->alphas.data) porta_view_f64_release(&l->alphas);
  if (l->betas.data) porta_view_f64_release(&l->betas);
  free(l);
  c->loop = NULL;
}

/** A pass body recorded: its steps launch on the loop's space (the chunk's while it records)
 *  into the scalars in its memory. */
static int recorded_pass(porta_exec exec, void *ctx) {
  tea_chunk *c = (tea_chunk *)ctx;
  struct tea_loop *l = c->loop;
  tea_pass p;
  memset(&p, 0, sizeof p);
  p.c = c;
  p.s = l->s;
  p.st = l->st;
  p.decider = porta_loop_decider();
  p.arg.theta = l->theta;
  p.arg.inner = l->inner;
  p.alphas = l->alphas;
  p.betas = l->betas;
  const porta_exec own = c->exec;
  c->exec = exec;
  const int rc = l->pass(&p);
  c->exec = own;
  return rc;
}

/** The state in the chunk's memory and its host side (once). */
static int state(tea_chunk *c) {
  if (c->loop) return PORTA_SUCCESS;
  struct tea_loop *l = (struct tea_loop *)calloc(1, sizeof *l);
  if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_solve_loop", "loop", "calloc");
  c->loop = l;
  PORTA_CHECK(app_scalars_create(&l->sc, "solver loop scalars", c->exec, TEA_LOOP_NSCAL,
                                 TEA_LOOP_NINTS, c->reproducible));
  l->st.scal = l->sc.scal_v.data;
  l->st.ints = l->sc.ints_v.data;
  l->st.exact = app_scalars_to(&l->sc, 0).exact;
  l->st.rerun = app_scalars_to(&l->sc, 0).rerun;
  return PORTA_SUCCESS;
}

/** The recorded loop of this solver (again when it is another's, or its arguments changed). */
static int ready(tea_chunk *c, const tea_settings *s, tea_pass_body pass, const char *pass_label,
                 double theta, int inner) {
  struct tea_loop *l = c->loop;
  const tea_precon pc = s->solver == TEA_SOLVER_JACOBI ? TEA_PRECON_NONE : s->preconditioner;
  if (l->loop && l->solver == s->solver && l->pass == pass && l->pc == pc && l->rx == c->rx &&
      l->ry == c->ry && l->theta == theta && l->inner == inner)
    return PORTA_SUCCESS;
  PORTA_CHECK(porta_loop_destroy(l->loop));
  l->loop = NULL;
  l->solver = s->solver;
  l->pass = pass;
  l->pc = pc;
  l->rx = c->rx;
  l->ry = c->ry;
  l->theta = theta;
  l->inner = inner;
  l->s = s;
  /* at most max_iters passes: the solve's limit (TEA_LOOP_LAST) ends a run first; exchanges
     of the host loop's own code in a body (PPCG's inner steps) are queued while it records */
  tea_set_queueing(c, true);
  const int rc =
      porta_loop_create_deciding(pass_label, c->exec, recorded_pass, c, s->max_iters, &l->loop);
  tea_set_queueing(c, false);
  return rc;
}

int tea_solve_loop_settle(tea_solve *v, const tea_loop_state *st, int64_t n0) {
  const int64_t n = st->ints[TEA_LOOP_N];
  const int64_t status = st->ints[TEA_LOOP_STATUS];
  v->error = st->scal[TEA_LOOP_ERROR];
  v->rro = st->scal[TEA_LOOP_RRN]; /* the last r.r (CG, PPCG), else the start's */
  if (n > 1 || status == TEA_LOOP_RUNNING) v->old_error = st->scal[TEA_LOOP_OLD];
  if (v->s->verbose_on) v->st->last_residual = v->error;
  if (status == TEA_LOOP_NOT_FINITE)
    return tea_solve_not_finite("the residual", n0 + n, v->error, v->initial_residual);
  if (status == TEA_LOOP_DIVERGED) return tea_solve_diverged(v, n0 + n);
  v->converged = status == TEA_LOOP_CONVERGED;
  return PORTA_SUCCESS;
}

int tea_loop_state_of(tea_chunk *c, tea_loop_state *st) {
  PORTA_CHECK(state(c));
  *st = c->loop->st;
  return PORTA_SUCCESS;
}

/** The host side's scalars and integers as a state. */
static tea_loop_state host_state(const struct tea_loop *l) {
  const tea_loop_state h = {l->sc.scal.data, l->sc.ints.data, NULL, NULL};
  return h;
}

int tea_loop_read(tea_chunk *c, tea_loop_state *host) {
  PORTA_CHECK(app_scalars_read(&c->loop->sc, c->exec));
  *host = host_state(c->loop);
  return PORTA_SUCCESS;
}

tea_loop_state tea_loop_host(const tea_chunk *c) { return host_state(c->loop); }

int tea_loop_write(tea_chunk *c) { return app_scalars_write(&c->loop->sc, c->exec); }

int tea_loop_sum(tea_chunk *c, int slot, int n) {
  if (!tea_has_neighbours(c)) /* this rank's alone */
    return app_scalars_sum(&c->loop->sc, c->exec, c->sum, NULL, 1, slot, n);
  const struct tea_comm *m = c->comm;
  return app_scalars_sum(&c->loop->sc, c->exec, c->sum, m->queueing ? m->device : NULL, m->d.nranks,
                         slot, n);
}

/** Run the loop from `start`, read its figures back once, and set the solve's state as the
 *  host loop leaves it; *iterations += the iterations it made. */
static int run(tea_solve *v, const tea_loop_start *start, int *iterations) {
  tea_chunk *c = v->c;
  struct tea_loop *l = c->loop;
  PORTA_CHECK(tea_k_loop_start(c, &l->st, start));
  PORTA_CHECK(porta_loop_run(l->loop));
  tea_loop_state host;
  PORTA_CHECK(tea_loop_read(c, &host)); /* waits for the loop (on the chunk's instance) */
  const int64_t n = host.ints[TEA_LOOP_N];
  if (iterations) *iterations += (int)n;
  PORTA_CHECK(tea_solve_loop_settle(v, &host, start->n0));
  /* the loop index at exit, as the host loop's */
  v->n = v->converged ? start->n0 + n : v->last_iter + 1;
  return PORTA_SUCCESS;
}

tea_loop_start tea_solve_loop_start(const tea_solve *v, int64_t n0, const tea_pass_arg *arg) {
  tea_loop_start start;
  memset(&start, 0, sizeof start);
  start.rro = v->rro;
  start.eps_init = v->s->eps * v->initial_residual;
  /* Chebyshev's iterations diverge with a poor eigenvalue estimate (the CG iterations before,
     tested the same, never grow the residual so far) */
  if (v->s->solver == TEA_SOLVER_CHEBY) start.huge = TEA_DIVERGE_FACTOR * v->initial_residual;
  start.error = v->error;
  start.n0 = n0;
  start.last = v->last_iter;
  if (arg) {
    start.est = arg->est;
    start.steps = arg->steps;
    start.ncoef = arg->ncoef;
  }
  return start;
}

int tea_solve_loop_coefs(tea_pass *p, int64_t need, bool fresh) {
  tea_chunk *c = p->c;
  const tea_pass_arg *arg = &p->arg;
  PORTA_CHECK(state(c));
  struct tea_loop *l = c->loop;
  if (need > arg->ncoef) need = arg->ncoef;
  PORTA_CHECK(tea_solve_ch_coefs(c, need, arg->ncoef, arg->have_coef, arg->ch_theta));
  if (tea_scalars_by_value(c->exec)) return PORTA_SUCCESS; /* the launchers read the host's */
  if (fresh) l->coef_have = 0; /* a solve's coefficients (its eigenvalues) */
  if (need > l->coef_cap) {    /* the tables grow, doubling, to the solve's limit at most */
    int64_t cap = 2 * l->coef_cap > 1024 ? 2 * l->coef_cap : 1024;
    cap = cap < need ? need : cap > arg->ncoef ? arg->ncoef : cap;
    if (l->alphas.data) porta_view_f64_release(&l->alphas);
    if (l->betas.data) porta_view_f64_release(&l->betas);
    l->coef_cap = l->coef_have = 0;
    PORTA_CHECK(porta_view_f64_create1(&l->alphas, "chebyshev alphas", cap));
    PORTA_CHECK(porta_view_f64_create1(&l->betas, "chebyshev betas", cap));
    l->coef_cap = cap;
    /* a recorded loop read the tables released: recorded again when next wanted (ready) */
    if (l->loop) PORTA_CHECK(porta_loop_destroy(l->loop));
    l->loop = NULL;
  }
  p->alphas = l->alphas;
  p->betas = l->betas;
  if (need <= l->coef_have) return PORTA_SUCCESS;
  /* what the host has computed, up to the tables' size */
  const int64_t n = *arg->have_coef < l->coef_cap ? *arg->have_coef : l->coef_cap;
  const porta_view_f64 *dst[2] = {&l->alphas, &l->betas};
  const double *src[2] = {c->ch_alphas, c->ch_betas};
  for (int t = 0; t < 2; ++t) {
    porta_mirror_f64 m;
    PORTA_CHECK(porta_view_f64_create_mirror_view(&m, dst[t]));
    memcpy(m.data, src[t], (size_t)n * sizeof(double));
    const int rc = porta_deep_copy(*dst[t], m);
    porta_mirror_f64_release(&m);
    PORTA_CHECK(rc);
  }
  l->coef_have = n;
  return PORTA_SUCCESS;
}

int tea_solve_loop_passes(tea_solve *v, tea_pass_body body, const char *label,
                          const tea_pass_arg *arg, int *count) {
  tea_chunk *c = v->c;
  PORTA_CHECK(state(c));
  if (arg && arg->ncoef > 0) { /* Chebyshev's coefficients of the whole solve, computed once */
    tea_pass p;
    memset(&p, 0, sizeof p);
    p.c = c;
    p.arg = *arg;
    PORTA_CHECK(tea_solve_loop_coefs(&p, arg->ncoef, true));
  }
  PORTA_CHECK(ready(c, v->s, body, label, arg ? arg->theta : 0.0, arg ? arg->inner : 0));
  const tea_loop_start start = tea_solve_loop_start(v, v->n - 1, arg);
  return run(v, &start, count);
}
