/** @file tea_solve_cg_loop.c
 *  The CG driver on the device (tea_cg_loop.h): tea_solve_cg's iterations recorded once as a
 *  porta_loop whose test kernel decides whether another runs; per step a start kernel,
 *  one run and one read of the figures. The loop is recorded again if the operator's rx, ry
 *  (kernel arguments of the recording) or the iteration limit change. Host code. */
#include <math.h>
#include <stdlib.h>

#include "app_env.h"
#include "tea_cg_loop.h"

struct tea_cg_loop {
  tea_cg_loop_state st;
  porta_mirror_f64 scal; /**< the figures on the host */
  porta_mirror_i64 ints;
  porta_loop *loop;
  double rx, ry;     /**< the operator the loop was recorded with */
  int64_t max_iters; /**< and its max_passes */
};

bool tea_cg_loop_wanted(const tea_chunk *c, const tea_settings *s) {
  const bool want = app_env_flag("TEA_DEVICE_LOOP", porta_exec_query(c->exec).on_device);
  return want && s->solver == TEA_SOLVER_CG && s->preconditioner == TEA_PRECON_NONE &&
         !s->reproducible && c->faces_zeroed && !tea_has_neighbours(c);
}

bool tea_solve_cg_on_device(const tea_solve *v) {
  return v->last_iter >= 1 && tea_cg_loop_wanted(v->c, v->s);
}

void tea_cg_loop_free(tea_chunk *c) {
  struct tea_cg_loop *l = c->cg_loop;
  if (!l) return;
  porta_loop_destroy(l->loop);
  if (l->st.scal.data) porta_view_f64_release(&l->st.scal);
  if (l->st.ints.data) porta_view_i64_release(&l->st.ints);
  if (l->scal.data) porta_mirror_f64_release(&l->scal);
  if (l->ints.data) porta_mirror_i64_release(&l->ints);
  free(l);
  c->cg_loop = NULL;
}

static int iteration(porta_exec exec, void *ctx) {
  tea_chunk *c = (tea_chunk *)ctx;
  return tea_k_cg_loop_iteration(c, exec, &c->cg_loop->st);
}

/** The device scalars, their host mirrors and the recorded loop (again when rx, ry changed). */
static int ready(tea_chunk *c, int64_t max_iters) {
  struct tea_cg_loop *l = c->cg_loop;
  if (!l) {
    l = (struct tea_cg_loop *)calloc(1, sizeof *l);
    if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_solve_cg_loop", "cg loop", "calloc");
    c->cg_loop = l;
    PORTA_CHECK(porta_view_f64_create1(&l->st.scal, "cg loop scalars", TEA_LOOP_NSCAL));
    PORTA_CHECK(porta_view_i64_create1(&l->st.ints, "cg loop counts", TEA_LOOP_NINTS));
    PORTA_CHECK(porta_view_f64_create_mirror_view(&l->scal, &l->st.scal));
    PORTA_CHECK(porta_view_i64_create_mirror_view(&l->ints, &l->st.ints));
  }
  if (l->loop && l->rx == c->rx && l->ry == c->ry && l->max_iters == max_iters)
    return PORTA_SUCCESS;
  PORTA_CHECK(porta_loop_destroy(l->loop));
  l->loop = NULL;
  l->rx = c->rx;
  l->ry = c->ry;
  l->max_iters = max_iters;
  return porta_loop_create_deciding("tea_cg_loop", c->exec, iteration, c, max_iters, &l->loop);
}

int tea_solve_cg_loop(tea_solve *v) {
  tea_chunk *c = v->c;
  PORTA_CHECK(ready(c, v->s->max_iters));
  struct tea_cg_loop *l = c->cg_loop;
  PORTA_CHECK(
      tea_k_cg_loop_start(c, &l->st, v->rro, v->s->eps * v->initial_residual, v->last_iter));
  PORTA_CHECK(porta_loop_run(l->loop));
  PORTA_CHECK(porta_deep_copy(l->scal, l->st.scal)); /* waits for the loop */
  PORTA_CHECK(porta_deep_copy(l->ints, l->st.ints));
  const int64_t n = l->ints.data[TEA_LOOP_N];
  const int64_t status = l->ints.data[TEA_LOOP_STATUS];
  v->st->cg_iterations += (int)n;
  v->error = l->scal.data[TEA_LOOP_ERROR];
  v->rro = l->scal.data[TEA_LOOP_RRO];
  if (n > 1 || status == TEA_LOOP_RUNNING) v->old_error = l->scal.data[TEA_LOOP_OLD];
  if (v->s->verbose_on) v->st->last_residual = v->error;
  if (status == TEA_LOOP_NOT_FINITE)
    return tea_solve_not_finite("the residual", n, v->error, v->initial_residual);
  v->converged = status == TEA_LOOP_CONVERGED;
  v->n = v->converged ? n : v->last_iter + 1; /* the loop index at exit, as tea_solve_cg's */
  return PORTA_SUCCESS;
}
