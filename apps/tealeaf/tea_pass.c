/** @file tea_pass.c
 *  The run of a solve's passes (tea_pass.h): recorded on the device (tea_solve_loop.c) or
 *  driven from the host pass by pass. Host code. */
#include <string.h>

#include "tea_pass.h"

/** A solve's passes driven from the host: the scalars in the chunk's memory, begun once, read
 *  back after each pass. */
typedef struct {
  tea_pass p;
  tea_loop_state host; /**< the figures as the last pass left them */
  int64_t n0;
} pass_now;

/** The passes' start on the host side (not yet in the chunk's memory: tea_loop_write). */
static int now_begin(pass_now *w, tea_solve *v, const tea_pass_arg *arg) {
  memset(w, 0, sizeof *w);
  w->p.c = v->c;
  w->p.s = v->s;
  w->p.v = v;
  if (arg) w->p.arg = *arg;
  w->n0 = v->n - 1;
  PORTA_CHECK(tea_loop_state_of(v->c, &w->p.st));
  w->host = tea_loop_host(v->c);
  const tea_loop_start start = tea_solve_loop_start(v, w->n0, arg);
  tea_loop_begin(&w->host, &start);
  return PORTA_SUCCESS;
}

/** now_begin, then the start in the chunk's memory (nothing to copy on a host back end, whose
 *  host side is the state). */
static int now_start(pass_now *w, tea_solve *v, const tea_pass_arg *arg) {
  PORTA_CHECK(now_begin(w, v, arg));
  return tea_loop_write(v->c);
}

/** After a pass: the solve's figures, v->n its last iteration. */
static int now_settle(pass_now *w, tea_solve *v) {
  PORTA_CHECK(tea_loop_read(v->c, &w->host));
  PORTA_CHECK(tea_solve_loop_settle(v, &w->host, w->n0));
  v->n = w->n0 + w->host.ints[TEA_LOOP_N];
  return PORTA_SUCCESS;
}

int tea_pass_now(tea_solve *v, tea_pass_body body, const tea_pass_arg *arg) {
  pass_now w;
  PORTA_CHECK(now_start(&w, v, arg));
  PORTA_CHECK(body(&w.p));
  return now_settle(&w, v);
}

int tea_pass_test_now(tea_solve *v, double value) {
  pass_now w;
  PORTA_CHECK(now_begin(&w, v, NULL));
  w.host.scal[TEA_LOOP_NORM] = value; /* where the test kernel reads it */
  PORTA_CHECK(tea_loop_write(v->c));
  PORTA_CHECK(tea_k_loop_test(v->c->exec, &w.p.st, &w.p.decider, TEA_LOOP_NORM));
  return now_settle(&w, v);
}

int tea_pass_run(tea_solve *v, tea_pass_body body, const char *label, const tea_pass_arg *arg,
                 int *count) {
  if (v->n > v->last_iter) return PORTA_SUCCESS;
  if (tea_loop_wanted(v->c) && (!arg || arg->ncoef <= 0 || v->s->max_iters < TEA_LOOP_MAX_COEFS))
    return tea_solve_loop_passes(v, body, label, arg, count);
  pass_now w;
  PORTA_CHECK(now_start(&w, v, arg));
  for (bool fresh = true;; fresh = false) {
    const int64_t before = w.host.ints[TEA_LOOP_N];
    if (arg && arg->ncoef > 0) { /* Chebyshev's coefficients up to the pass's end */
      const int64_t *ints = w.host.ints;
      const int64_t last = tea_cheby_coef(ints, tea_cheby_end(ints[TEA_LOOP_BASE]));
      PORTA_CHECK(tea_solve_loop_coefs(&w.p, last + 1, fresh));
    }
    PORTA_CHECK(body(&w.p));
    PORTA_CHECK(now_settle(&w, v));
    if (count) *count += (int)(w.host.ints[TEA_LOOP_N] - before);
    if (v->converged) return PORTA_SUCCESS;
    if (v->n >= v->last_iter) break;
    ++v->n;
  }
  v->n = v->last_iter + 1; /* the loop index when the iterations ran out */
  return PORTA_SUCCESS;
}
