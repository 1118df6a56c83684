/** @file tea_solve_loop.c
 *  The device loop (tea_loop.h): a solver's pass body (tea_pass.h) recorded once as a
 *  porta_loop whose test kernel decides whether another pass runs; per run a start kernel, one
 *  run and one read of the figures. The loop is recorded again if the body, the
 *  preconditioner, the operator's rx, ry, PPCG's constants or Chebyshev's coefficient table
 *  (kernel arguments of the recording) change. Host code. */
#include <stdlib.h>
#include <string.h>

#include "app_env.h"
#include "app_mpi.h"
#include "app_sum_comm.h"
#include "tea_comm.h"
#include "tea_pass.h"

struct tea_loop {
  tea_loop_state st;     /**< the views' memory */
  porta_view_f64 scal_v; /**< the scalars in device memory */
  porta_view_i64 ints_v;
  porta_view_u8 exact_v; /**< exact sums: the scalars' accumulators in device memory */
  porta_view_f64 wire_v; /**< ... and their scratch for the sum over the ranks */
  /** the figures where the host reads them: the views themselves on a host back end, else
   *  copies in pinned memory (host_side) */
  porta_view_f64 scal;
  porta_view_i64 ints;
  porta_view_f64 wire;          /**< exact sums driven from the host: the wire there */
  porta_view_f64 alphas, betas; /**< Chebyshev's coefficients (coef_cap each) */
  int64_t coef_cap;
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
  if (l->scal_v.data) porta_view_f64_release(&l->scal_v);
  if (l->ints_v.data) porta_view_i64_release(&l->ints_v);
  if (l->exact_v.data) porta_view_u8_release(&l->exact_v);
  if (l->wire_v.data) porta_view_f64_release(&l->wire_v);
  if (l->scal.data) porta_view_f64_release(&l->scal);
  if (l->wire.data) porta_view_f64_release(&l->wire);
  if (l->ints.data) porta_view_i64_release(&l->ints);
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
  p.recorded = true;
  p.st = l->st;
  p.decider = porta_loop_decider();
  p.arg.theta = l->theta;
  p.arg.inner = l->inner;
  p.alphas = l->alphas;
  p.betas = l->betas;
  p.ints = l->ints_v;
  const porta_exec own = c->exec;
  c->exec = exec;
  const int rc = l->pass(&p);
  c->exec = own;
  return rc;
}

/** The host side (struct tea_loop: scal, ints, wire) of the views: themselves (retained) on a
 *  host back end, else views in the back end's staging space (pinned memory), to and from which
 *  the copies run on the chunk's instance without a global fence. */
static int host_side(struct tea_loop *l, porta_exec exec) {
  const porta_exec_traits t = porta_exec_query(exec);
  if (!t.on_device) {
    l->scal = l->scal_v;
    l->ints = l->ints_v;
    l->wire = l->wire_v;
    porta_view_f64_retain(&l->scal);
    porta_view_i64_retain(&l->ints);
    if (l->wire.data) porta_view_f64_retain(&l->wire);
    return PORTA_SUCCESS;
  }
  porta_view_options o;
  memset(&o, 0, sizeof o);
  o.space = t.staging_space;
  const int64_t nscal = TEA_LOOP_NSCAL, nints = TEA_LOOP_NINTS;
  const int64_t nwire = TEA_LOOP_NSCAL * (int64_t)APP_SUM_WIRE;
  PORTA_CHECK(porta_view_f64_create(&l->scal, "solver loop scalars (host)", 1, &nscal, &o));
  PORTA_CHECK(porta_view_i64_create(&l->ints, "solver loop counts (host)", 1, &nints, &o));
  if (!l->wire_v.data) return PORTA_SUCCESS;
  return porta_view_f64_create(&l->wire, "solver loop wire (host)", 1, &nwire, &o);
}

/** Copy between the host side and the view on the chunk's instance (nothing where they are one
 *  memory); `wait`: then wait for it (and for the launches before it). */
static int copy_on(tea_chunk *c, porta_view dst, porta_view src, bool wait) {
  if (dst.data == src.data) return PORTA_SUCCESS;
  PORTA_CHECK(porta_view_deep_copy_async(c->exec, dst, src));
  return wait ? porta_exec_fence(c->exec, "tea_loop") : PORTA_SUCCESS;
}

/** The state in the chunk's memory and its host side (once). */
static int state(tea_chunk *c) {
  if (c->loop) return PORTA_SUCCESS;
  struct tea_loop *l = (struct tea_loop *)calloc(1, sizeof *l);
  if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_solve_loop", "loop", "calloc");
  c->loop = l;
  PORTA_CHECK(porta_view_f64_create1(&l->scal_v, "solver loop scalars", TEA_LOOP_NSCAL));
  PORTA_CHECK(porta_view_i64_create1(&l->ints_v, "solver loop counts", TEA_LOOP_NINTS));
  l->st.scal = l->scal_v.data;
  l->st.ints = l->ints_v.data;
  if (c->reproducible) {
    PORTA_CHECK(porta_view_u8_create1(&l->exact_v, "solver loop exact sums",
                                      TEA_LOOP_NSCAL * (int64_t)sizeof(porta_xsum_f64_value)));
    PORTA_CHECK(porta_view_f64_create1(&l->wire_v, "solver loop exact sums' wire",
                                       TEA_LOOP_NSCAL * (int64_t)APP_SUM_WIRE));
    l->st.exact = (porta_xsum_f64_value *)(void *)l->exact_v.data;
    l->st.wire = l->wire_v.data;
  }
  return host_side(l, c->exec);
}

/** The recorded loop of this solver (again when it is another's, or its arguments changed). */
static int ready(tea_chunk *c, const tea_settings *s, tea_pass_body pass, const char *pass_label,
                 bool tables_changed, double theta, int inner) {
  struct tea_loop *l = c->loop;
  const tea_precon pc = s->solver == TEA_SOLVER_JACOBI ? TEA_PRECON_NONE : s->preconditioner;
  if (l->loop && l->solver == s->solver && l->pass == pass && l->pc == pc && l->rx == c->rx &&
      l->ry == c->ry && l->theta == theta && l->inner == inner && !tables_changed)
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
  const tea_loop_state h = {l->scal.data, l->ints.data, NULL, NULL};
  return h;
}

int tea_loop_read(tea_chunk *c, tea_loop_state *host) {
  struct tea_loop *l = c->loop;
  PORTA_CHECK(copy_on(c, PORTA_VIEW_ERASE(l->scal), PORTA_VIEW_ERASE(l->scal_v), false));
  PORTA_CHECK(copy_on(c, PORTA_VIEW_ERASE(l->ints), PORTA_VIEW_ERASE(l->ints_v), true));
  *host = host_state(l);
  return PORTA_SUCCESS;
}

tea_loop_state tea_loop_host(const tea_chunk *c) { return host_state(c->loop); }

int tea_loop_write(tea_chunk *c) {
  struct tea_loop *l = c->loop;
  PORTA_CHECK(copy_on(c, PORTA_VIEW_ERASE(l->scal_v), PORTA_VIEW_ERASE(l->scal), false));
  return copy_on(c, PORTA_VIEW_ERASE(l->ints_v), PORTA_VIEW_ERASE(l->ints), false);
}

int tea_loop_sum(tea_chunk *c, int slot, int n) {
  struct tea_loop *l = c->loop;
  const tea_loop_state *st = &l->st;
  if (!tea_has_neighbours(c)) /* this rank's alone */
    return st->exact ? app_sum_round_on(c->exec, &st->exact[slot], &st->scal[slot], n)
                     : PORTA_SUCCESS;
  struct tea_comm *m = c->comm;
  if (m->queueing) { /* queued on the GPUs (the device communicator) */
    if (st->exact)
      return app_sum_finish_on(c->exec, m->device, m->d.nranks, &st->exact[slot], st->wire,
                               &st->scal[slot], n);
    return porta_device_comm_sum(m->device, c->exec, &st->scal[slot], n);
  }
  /* driven from the host: the values (packed accumulators) through host memory and MPI */
  if (st->exact) {
    PORTA_CHECK(app_sum_pack_on(c->exec, &st->exact[slot], st->wire, n));
    PORTA_CHECK(copy_on(c, PORTA_VIEW_ERASE(l->wire), PORTA_VIEW_ERASE(l->wire_v), true));
    PORTA_CHECK(app_sum_allreduce_wire(c->sum, l->wire.data, APP_SUM_WIRE * n));
    PORTA_CHECK(copy_on(c, PORTA_VIEW_ERASE(l->wire_v), PORTA_VIEW_ERASE(l->wire), false));
    return app_sum_unpack_on(c->exec, st->wire, &st->scal[slot], n, m->d.nranks);
  }
  PORTA_CHECK(copy_on(c, PORTA_VIEW_ERASE(l->scal), PORTA_VIEW_ERASE(l->scal_v), true));
  PORTA_CHECK(app_sum_allreduce(c->sum, &l->scal.data[slot], n));
  return copy_on(c, PORTA_VIEW_ERASE(l->scal_v), PORTA_VIEW_ERASE(l->scal), false);
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

int tea_solve_loop_passes(tea_solve *v, tea_pass_body body, const char *label,
                          const tea_pass_arg *arg, int *count) {
  tea_chunk *c = v->c;
  PORTA_CHECK(state(c));
  bool grown = false; /* Chebyshev's coefficients of the whole solve, computed once */
  if (arg && arg->ncoef > 0)
    PORTA_CHECK(upload_coefs(c, arg->ncoef, arg->ch_theta, arg->have_coef, &grown));
  PORTA_CHECK(ready(c, v->s, body, label, grown, arg ? arg->theta : 0.0, arg ? arg->inner : 0));
  const tea_loop_start start = tea_solve_loop_start(v, v->n - 1, arg);
  return run(v, &start, count);
}
