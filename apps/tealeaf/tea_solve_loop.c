/** @file tea_solve_loop.c
 *  The drivers on the device (tea_loop.h): a solver's iterations recorded once as a porta_loop
 *  whose test kernel decides whether another runs; per step a start kernel, one run and one
 *  read of the figures. The loop is recorded again if the solver, the operator's rx, ry
 *  (kernel arguments of the recording) or the iteration limit change. Host code. */
#include <stdlib.h>

#include "app_env.h"
#include "tea_loop.h"

struct tea_loop {
  tea_loop_state st;
  porta_mirror_f64 scal; /**< the figures on the host */
  porta_mirror_i64 ints;
  porta_loop *loop;
  tea_solver solver; /**< the loop's body */
  double rx, ry;     /**< the operator the loop was recorded with */
  int64_t max_iters; /**< and its max_passes */
};

bool tea_loop_wanted(const tea_chunk *c, const tea_settings *s) {
  const bool want = app_env_flag("TEA_DEVICE_LOOP", porta_exec_query(c->exec).on_device);
  const bool cg = s->solver == TEA_SOLVER_CG && s->preconditioner == TEA_PRECON_NONE &&
                  c->faces_zeroed; /* the lean iteration, p's halo not reflected */
  return want && (cg || s->solver == TEA_SOLVER_JACOBI) && !s->reproducible &&
         !tea_has_neighbours(c);
}

bool tea_solve_on_device(const tea_solve *v) {
  return v->last_iter >= 1 && tea_loop_wanted(v->c, v->s);
}

void tea_loop_free(tea_chunk *c) {
  struct tea_loop *l = c->loop;
  if (!l) return;
  porta_loop_destroy(l->loop);
  if (l->st.scal.data) porta_view_f64_release(&l->st.scal);
  if (l->st.ints.data) porta_view_i64_release(&l->st.ints);
  if (l->scal.data) porta_mirror_f64_release(&l->scal);
  if (l->ints.data) porta_mirror_i64_release(&l->ints);
  free(l);
  c->loop = NULL;
}

static int cg_iteration(porta_exec exec, void *ctx) {
  tea_chunk *c = (tea_chunk *)ctx;
  return tea_k_cg_loop_iteration(c, exec, &c->loop->st);
}

static int jacobi_iteration(porta_exec exec, void *ctx) {
  tea_chunk *c = (tea_chunk *)ctx;
  return tea_k_jacobi_loop_iteration(c, exec, &c->loop->st);
}

/** The device scalars, their host mirrors and the recorded loop (again when it is another's). */
static int ready(tea_chunk *c, tea_solver solver, int64_t max_iters) {
  struct tea_loop *l = c->loop;
  if (!l) {
    l = (struct tea_loop *)calloc(1, sizeof *l);
    if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_solve_loop", "loop", "calloc");
    c->loop = l;
    PORTA_CHECK(porta_view_f64_create1(&l->st.scal, "solver loop scalars", TEA_LOOP_NSCAL));
    PORTA_CHECK(porta_view_i64_create1(&l->st.ints, "solver loop counts", TEA_LOOP_NINTS));
    PORTA_CHECK(porta_view_f64_create_mirror_view(&l->scal, &l->st.scal));
    PORTA_CHECK(porta_view_i64_create_mirror_view(&l->ints, &l->st.ints));
  }
  if (l->loop && l->solver == solver && l->rx == c->rx && l->ry == c->ry &&
      l->max_iters == max_iters)
    return PORTA_SUCCESS;
  PORTA_CHECK(porta_loop_destroy(l->loop));
  l->loop = NULL;
  l->solver = solver;
  l->rx = c->rx;
  l->ry = c->ry;
  l->max_iters = max_iters;
  const bool cg = solver == TEA_SOLVER_CG;
  return porta_loop_create_deciding(cg ? "tea_cg_loop" : "tea_jacobi_loop", c->exec,
                                    cg ? cg_iteration : jacobi_iteration, c, max_iters, &l->loop);
}

int tea_solve_loop(tea_solve *v) {
  tea_chunk *c = v->c;
  PORTA_CHECK(ready(c, v->s->solver, v->last_iter)); /* the limit: max_passes */
  struct tea_loop *l = c->loop;
  PORTA_CHECK(tea_k_loop_start(c, &l->st, v->rro, v->s->eps * v->initial_residual));
  PORTA_CHECK(porta_loop_run(l->loop));
  PORTA_CHECK(porta_deep_copy(l->scal, l->st.scal)); /* waits for the loop */
  PORTA_CHECK(porta_deep_copy(l->ints, l->st.ints));
  const int64_t n = l->ints.data[TEA_LOOP_N];
  const int64_t status = l->ints.data[TEA_LOOP_STATUS];
  if (v->s->solver == TEA_SOLVER_CG) v->st->cg_iterations += (int)n;
  v->error = l->scal.data[TEA_LOOP_ERROR];
  v->rro = l->scal.data[TEA_LOOP_RRO];
  if (n > 1 || status == TEA_LOOP_RUNNING) v->old_error = l->scal.data[TEA_LOOP_OLD];
  if (v->s->verbose_on) v->st->last_residual = v->error;
  if (status == TEA_LOOP_NOT_FINITE)
    return tea_solve_not_finite("the residual", n, v->error, v->initial_residual);
  v->converged = status == TEA_LOOP_CONVERGED;
  v->n = v->converged ? n : v->last_iter + 1; /* the loop index at exit, as the host loop's */
  return PORTA_SUCCESS;
}
