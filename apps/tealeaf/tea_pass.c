/** @file tea_pass.c
 *  A solver pass's steps (tea_pass.h), each one form whether the pass runs from the host or is
 *  recorded, and the run of a solve's passes. Host code. */
#include <string.h>

#include "tea_pass.h"

int tea_pass_sum(tea_pass *p, int slot, int n) { return tea_loop_sum(p->c, slot, n); }

int tea_pass_exchange(tea_pass *p, int field, bool reflect) {
  return reflect ? tea_exchange1(p->c, field, 1) : tea_halo_exchange_neighbours(p->c, &field, 1, 1);
}

int tea_pass_jacobi_update(tea_pass *p) {
  tea_chunk *c = p->c;
  porta_exec side;
  /* un = u: all of it, but beside the exchanges after the first iteration the interior was
     copied beside the last exchange and the halo's first layer now has its values (reflected
     too) */
  const bool frame = tea_halo_beside(c, &side) && p->v->n > 1;
  PORTA_CHECK(tea_k_jacobi_copy(c, frame ? TEA_JACOBI_COPY_FRAME : TEA_JACOBI_COPY_ALL));
  return tea_k_jacobi_update(c, tea_pass_to(p, TEA_LOOP_L1));
}

int tea_pass_jacobi_exchange(tea_pass *p) {
  tea_chunk *c = p->c;
  porta_exec side;
  if (!tea_halo_beside(c, &side)) return tea_pass_exchange(p, TEA_FIELD_U, true);
  /* the exchange of u beside the next iteration's copy of the interior (the copy reads the
     interior only, the exchange writes only the halo) */
  const int u = TEA_FIELD_U;
  PORTA_CHECK(tea_k_jacobi_copy(c, TEA_JACOBI_COPY_INTERIOR));
  PORTA_CHECK(tea_halo_exchange_beside(c, &u, 1, 1));
  return tea_reflect_boundaries(c, &u, 1, 1);
}

int tea_pass_cg_up(tea_pass *p) {
  tea_chunk *c = p->c;
  /* p is read only through A, which weighs a physical halo cell by exactly 0 when the faces
     are zeroed: reflecting it would change no result */
  const bool reflect = !c->faces_zeroed;
  const bool fused = tea_loop_fused(c);
  porta_exec side;
  if (reflect || !tea_side(c, &side)) {
    PORTA_CHECK(tea_k_cg_calc_up(c, &p->st, &p->decider, fused));
    return reflect ? tea_pass_exchange(p, TEA_FIELD_P, reflect)
                   : tea_halo_exchange_faces(c, c->exec, TEA_FIELD_P);
  }
  /* the edge's update on the instance beside, forked from the chunk's and joined again, the
     inside's on the chunk's, and p's faces sent beside (A reads no corner of p) */
  if (!fused) PORTA_CHECK(tea_k_loop_cg_test(c->exec, &p->st, &p->decider));
  PORTA_CHECK(porta_exec_wait(side, c->exec));
  PORTA_CHECK(tea_k_cg_calc_up_split(c, side, &p->st, &p->decider, fused));
  PORTA_CHECK(tea_halo_exchange_faces(c, side, TEA_FIELD_P));
  return porta_exec_wait(c->exec, side);
}

int tea_pass_cheby_iteration(tea_pass *p, int slot) {
  tea_chunk *c = p->c;
  const tea_precon pc = p->s->preconditioner;
  if (p->recorded) { /* the coefficients in the loop's memory */
    PORTA_CHECK(tea_k_cheby_loop_update(c, pc, p->alphas, p->betas, p->ints, slot));
    /* past the stop it exchanges u as it is (the same values) */
    return tea_pass_exchange(p, TEA_FIELD_U, true);
  }
  const int64_t *ints = p->host.ints; /* the pass's start: its test changes them at its end */
  const int64_t n = ints[TEA_LOOP_BASE] + slot;
  if (n > ints[TEA_LOOP_STOP]) return PORTA_SUCCESS;
  const int64_t steps = ints[TEA_LOOP_STEPS0] + n, ncoef = ints[TEA_LOOP_NCOEF];
  const int64_t idx = steps < ncoef ? steps : ncoef - 1;
  PORTA_CHECK(tea_solve_ch_coefs(c, idx + 1, ncoef, p->arg.have_coef, p->arg.ch_theta));
  const double alpha = c->ch_alphas[idx], beta = c->ch_betas[idx];
  porta_exec side;
  if (pc != TEA_PRECON_JAC_BLOCK && tea_halo_beside(c, &side)) {
    /* the edge's update and the exchange of u beside the inside's update (the physical faces
       are reflected after it) */
    const int u = TEA_FIELD_U;
    PORTA_CHECK(tea_k_cheby_iterate_split(c, pc, side, alpha, beta));
    PORTA_CHECK(tea_halo_exchange_beside(c, &u, 1, 1));
    return tea_reflect_boundaries(c, &u, 1, 1);
  }
  PORTA_CHECK(tea_k_cheby_iterate(c, pc, alpha, beta));
  return tea_pass_exchange(p, TEA_FIELD_U, true);
}

int tea_pass_cheby_norm(tea_pass *p) {
  if (!p->recorded) { /* only where the test reads it */
    const int64_t *ints = p->host.ints;
    const int64_t end = tea_cheby_end(ints[TEA_LOOP_BASE]);
    if (ints[TEA_LOOP_STOP] != end || end < ints[TEA_LOOP_EST]) return PORTA_SUCCESS;
  }
  PORTA_CHECK(tea_k_norm2_into(p->c, TEA_FIELD_R, tea_pass_to(p, TEA_LOOP_NORM)));
  return tea_pass_sum(p, TEA_LOOP_NORM, 1);
}

/** A solve's passes driven from the host: the scalars in the chunk's memory, begun once, read
 *  back after each pass. */
typedef struct {
  tea_pass p;
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
  w->p.host = tea_loop_host(v->c);
  const tea_loop_start start = tea_solve_loop_start(v, w->n0, arg);
  tea_loop_begin(&w->p.host, &start);
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
  PORTA_CHECK(tea_loop_read(v->c, &w->p.host));
  PORTA_CHECK(tea_solve_loop_settle(v, &w->p.host, w->n0));
  v->n = w->n0 + w->p.host.ints[TEA_LOOP_N];
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
  w.p.host.scal[TEA_LOOP_NORM] = value; /* where the test kernel reads it */
  PORTA_CHECK(tea_loop_write(v->c));
  PORTA_CHECK(tea_k_loop_test(v->c->exec, &w.p.st, &w.p.decider, TEA_LOOP_NORM));
  return now_settle(&w, v);
}

int tea_pass_run(tea_solve *v, tea_pass_body body, const char *label, const tea_pass_arg *arg,
                 int *count) {
  if (v->n > v->last_iter) return PORTA_SUCCESS;
  if (tea_loop_wanted(v->c) && (!arg || arg->ncoef <= TEA_LOOP_MAX_COEFS))
    return tea_solve_loop_passes(v, body, label, arg, count);
  pass_now w;
  PORTA_CHECK(now_start(&w, v, arg));
  for (;;) {
    const int64_t before = w.p.host.ints[TEA_LOOP_N];
    PORTA_CHECK(body(&w.p));
    PORTA_CHECK(now_settle(&w, v));
    if (count) *count += (int)(w.p.host.ints[TEA_LOOP_N] - before);
    if (v->converged) return PORTA_SUCCESS;
    if (v->n >= v->last_iter) break;
    ++v->n;
  }
  v->n = v->last_iter + 1; /* the loop index when the iterations ran out */
  return PORTA_SUCCESS;
}
