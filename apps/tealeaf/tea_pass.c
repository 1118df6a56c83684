/** @file tea_pass.c
 *  A solver pass's steps in their two forms, run now or recorded (tea_pass.h), and the run of a
 *  solve's passes. Host code. */
#include <string.h>

#include "app_env.h"
#include "tea_pass.h"

/** Recorded: where a reduction into scalar `slot` lands (its accumulator in exact mode). */
static app_sum_to sum_to(tea_pass *p, int slot) {
  app_sum_to to;
  to.value = &p->st.scal[slot];
  to.exact = p->st.exact ? &p->st.exact[slot] : NULL;
  return to;
}

int tea_pass_sum(tea_pass *p, int slot, int n) {
  if (!p->recorded) return tea_allreduce_sum(p->c, &p->st.scal[slot], n);
  if (p->st.exact) /* this rank's accumulators rounded, or summed over the ranks first */
    return tea_exact_sum_on(p->c, p->exec, &p->st.exact[slot], p->st.wire, &p->st.scal[slot], n);
  return tea_allreduce_sum_on(p->c, p->exec, &p->st.scal[slot], n);
}

int tea_pass_exchange(tea_pass *p, int field, bool reflect) {
  if (p->recorded) return tea_halo_exchange_on(p->c, p->exec, &field, 1, 1, reflect);
  return reflect ? tea_exchange1(p->c, field, 1) : tea_halo_exchange_neighbours(p->c, &field, 1, 1);
}

int tea_pass_test(tea_pass *p, int slot) {
  if (p->recorded) return tea_k_loop_test(p->exec, &p->st, &p->decider, slot);
  tea_loop_test(&p->st, p->st.scal[slot]); /* the host reads the status after the pass */
  return PORTA_SUCCESS;
}

int tea_pass_jacobi_update(tea_pass *p) {
  tea_chunk *c = p->c;
  double *l1 = &p->st.scal[TEA_LOOP_L1];
  porta_exec side;
  if (p->recorded) {
    PORTA_CHECK(tea_k_jacobi_copy_on(c, p->exec, TEA_JACOBI_COPY_ALL));
    return tea_k_jacobi_update_into(c, p->exec, sum_to(p, TEA_LOOP_L1));
  }
  if (!tea_halo_beside(c, &side)) return tea_k_jacobi(c, l1);
  /* un = u: all of it at first; later the interior was copied beside the last exchange, and
     the halo's first layer now has its values (reflected too) */
  PORTA_CHECK(tea_k_jacobi_copy(c, p->v->n == 1 ? TEA_JACOBI_COPY_ALL : TEA_JACOBI_COPY_FRAME));
  return tea_k_jacobi_update(c, l1);
}

int tea_pass_jacobi_exchange(tea_pass *p) {
  tea_chunk *c = p->c;
  porta_exec side;
  if (p->recorded || !tea_halo_beside(c, &side)) return tea_pass_exchange(p, TEA_FIELD_U, true);
  /* the exchange of u beside the next iteration's copy of the interior (the copy reads the
     interior only, the exchange writes only the halo) */
  const int u = TEA_FIELD_U;
  PORTA_CHECK(tea_k_jacobi_copy(c, TEA_JACOBI_COPY_INTERIOR));
  PORTA_CHECK(tea_halo_exchange_beside(c, &u, 1, 1));
  return tea_reflect_boundaries(c, &u, 1, 1);
}

int tea_pass_cg_w(tea_pass *p, bool lean) {
  double *pw = &p->st.scal[TEA_LOOP_PW];
  if (p->recorded)
    return lean ? tea_k_cg_calc_w_lean_into(p->c, p->exec, sum_to(p, TEA_LOOP_PW))
                : tea_k_cg_calc_w_into(p->c, p->exec, sum_to(p, TEA_LOOP_PW));
  return lean ? tea_k_cg_calc_w_lean(p->c, pw) : tea_k_cg_calc_w(p->c, pw);
}

int tea_pass_cg_alpha(tea_pass *p) {
  if (p->recorded) return tea_k_loop_cg_alpha(p->exec, &p->st);
  tea_loop_cg_alpha(&p->st);
  /* the coefficients' history (the switch's eigenvalue estimate) grows with the iterations */
  tea_chunk *c = p->c;
  const int64_t n = p->v->n;
  PORTA_CHECK(tea_solve_ensure(&c->cg_alphas, &c->cg_betas, &c->cg_hist_cap, n, p->s->max_iters));
  c->cg_alphas[n - 1] = p->st.scal[TEA_LOOP_ALPHA];
  return PORTA_SUCCESS;
}

int tea_pass_cg_r(tea_pass *p, bool lean) {
  const tea_precon pc = p->s->preconditioner;
  double *rrn = &p->st.scal[TEA_LOOP_RRN];
  const double *alpha = &p->st.scal[TEA_LOOP_ALPHA];
  if (p->recorded)
    return lean ? tea_k_cg_calc_r_into(p->c, p->exec, alpha, sum_to(p, TEA_LOOP_RRN))
                : tea_k_cg_calc_ur_into(p->c, p->exec, pc, alpha, sum_to(p, TEA_LOOP_RRN));
  return lean ? tea_k_cg_calc_r(p->c, *alpha, rrn) : tea_k_cg_calc_ur(p->c, pc, *alpha, rrn);
}

int tea_pass_cg_test(tea_pass *p) {
  if (p->recorded) return tea_k_loop_cg_test(p->exec, &p->st, &p->decider);
  tea_loop_cg_beta_test(&p->st); /* the host reads the status after the pass */
  p->c->cg_betas[p->v->n - 1] = p->st.scal[TEA_LOOP_BETA];
  return PORTA_SUCCESS;
}

int tea_pass_cg_up(tea_pass *p) {
  tea_chunk *c = p->c;
  /* p is read only through A, which weighs a physical halo cell by exactly 0 when the faces
     are zeroed: reflecting it would change no result */
  const bool reflect = !c->faces_zeroed;
  if (p->recorded) {
    const bool fused =
        app_env_flag("TEA_LOOP_FUSE", (int64_t)c->nx * c->ny <= TEA_LOOP_FUSE_CELLS) != 0;
    porta_exec side;
    if (reflect || !tea_loop_side(c, &side)) {
      PORTA_CHECK(tea_k_cg_calc_up_at(c, p->exec, &p->st, &p->decider, fused));
      return reflect ? tea_pass_exchange(p, TEA_FIELD_P, reflect)
                     : tea_halo_exchange_faces_on(c, p->exec, TEA_FIELD_P);
    }
    /* the edge's update, then p's faces sent, on the instance beside, forked from the loop's
       and joined again, while the inside's update runs (A reads no corner of p) */
    if (!fused) PORTA_CHECK(tea_k_loop_cg_test(p->exec, &p->st, &p->decider));
    PORTA_CHECK(porta_exec_wait(side, p->exec));
    PORTA_CHECK(tea_k_cg_calc_up_ring_at(c, side, &p->st, &p->decider, fused));
    PORTA_CHECK(tea_halo_exchange_faces_on(c, side, TEA_FIELD_P));
    PORTA_CHECK(tea_k_cg_calc_up_inside_at(c, p->exec, &p->st, &p->decider, fused));
    return porta_exec_wait(p->exec, side);
  }
  PORTA_CHECK(tea_pass_cg_test(p));
  const double alpha = p->st.scal[TEA_LOOP_ALPHA], beta = p->st.scal[TEA_LOOP_BETA];
  porta_exec side;
  if (!reflect && tea_halo_beside(c, &side)) {
    /* u += alpha p; p = r + beta p on the edge beside, the inside on c->exec, and the exchange
       of p beside that (it reads and writes only the edge and the halo) */
    PORTA_CHECK(tea_k_cg_calc_up_split(c, side, alpha, beta));
    const int f = TEA_FIELD_P;
    return tea_halo_exchange_beside(c, &f, 1, 1);
  }
  PORTA_CHECK(tea_k_cg_calc_up(c, alpha, beta)); /* u += alpha p (old p); p = r + beta p */
  return tea_pass_exchange(p, TEA_FIELD_P, reflect);
}

int tea_pass_cg_p(tea_pass *p, int src) {
  if (p->recorded) return tea_k_cg_calc_p_at(p->c, p->exec, src, &p->st.scal[TEA_LOOP_BETA]);
  return tea_k_cg_calc_p(p->c, src, p->st.scal[TEA_LOOP_BETA]);
}

int tea_pass_ppcg_w(tea_pass *p) {
  double *pw = &p->st.scal[TEA_LOOP_PW]; /* RZ next to it: one reduction writes both */
  if (p->recorded) return tea_k_ppcg_calc_w_store_into(p->c, p->exec, sum_to(p, TEA_LOOP_PW));
  return tea_k_ppcg_calc_w_store(p->c, pw, &p->st.scal[TEA_LOOP_RZ]);
}

int tea_pass_ppcg_alpha(tea_pass *p) {
  if (p->recorded) return tea_k_loop_ppcg_alpha(p->exec, &p->st);
  tea_loop_ppcg_alpha(&p->st);
  return PORTA_SUCCESS;
}

int tea_pass_ppcg_ur(tea_pass *p) {
  const tea_precon pc = p->s->preconditioner;
  if (p->recorded) return tea_k_cg_calc_ur_at(p->c, p->exec, pc, &p->st.scal[TEA_LOOP_ALPHA]);
  return tea_k_cg_calc_ur(p->c, pc, p->st.scal[TEA_LOOP_ALPHA], NULL);
}

porta_exec tea_pass_enter(tea_pass *p) {
  const porta_exec own = p->c->exec;
  p->c->exec = p->exec;
  return own;
}

void tea_pass_leave(tea_pass *p, porta_exec own) { p->c->exec = own; }

int tea_pass_ppcg_rrn(tea_pass *p) {
  double *rrn = &p->st.scal[TEA_LOOP_RRN];
  if (p->recorded) return tea_k_ppcg_calc_rrn_into(p->c, p->exec, sum_to(p, TEA_LOOP_RRN));
  return tea_k_ppcg_calc_rrn(p->c, rrn);
}

int tea_pass_ppcg_test(tea_pass *p) {
  if (p->recorded) return tea_k_loop_ppcg_test(p->exec, &p->st, &p->decider);
  tea_loop_cg_beta_test(&p->st);
  return PORTA_SUCCESS;
}

int tea_pass_cheby_iteration(tea_pass *p, int slot) {
  tea_chunk *c = p->c;
  const tea_precon pc = p->s->preconditioner;
  if (p->recorded) {
    PORTA_CHECK(tea_k_cheby_loop_update(c, p->exec, pc, p->alphas, p->betas, p->ints, slot));
    /* past the stop it exchanges u as it is (the same values) */
    return tea_pass_exchange(p, TEA_FIELD_U, true);
  }
  const int64_t *ints = p->st.ints;
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
  double *norm = &p->st.scal[TEA_LOOP_NORM];
  if (p->recorded) {
    PORTA_CHECK(tea_k_norm2_into(p->c, p->exec, TEA_FIELD_R, sum_to(p, TEA_LOOP_NORM)));
  } else {
    const int64_t *ints = p->st.ints;
    const int64_t end = tea_cheby_end(ints[TEA_LOOP_BASE]);
    if (ints[TEA_LOOP_STOP] != end || end < ints[TEA_LOOP_EST]) return PORTA_SUCCESS;
    PORTA_CHECK(tea_k_norm2(p->c, TEA_FIELD_R, norm));
  }
  return tea_pass_sum(p, TEA_LOOP_NORM, 1);
}

int tea_pass_cheby_test(tea_pass *p) {
  if (p->recorded) return tea_k_loop_cheby_test(p->exec, &p->st, &p->decider);
  tea_loop_cheby_test(&p->st);
  return PORTA_SUCCESS;
}

/** A solve's passes run now: the scalars in host memory, begun once. */
typedef struct {
  tea_pass p;
  double scal[TEA_LOOP_NSCAL];
  int64_t ints[TEA_LOOP_NINTS];
  int64_t n0;
} pass_now;

static void now_begin(pass_now *w, tea_solve *v, const tea_pass_arg *arg) {
  memset(w, 0, sizeof *w);
  w->p.c = v->c;
  w->p.s = v->s;
  w->p.exec = v->c->exec;
  w->p.st.scal = w->scal;
  w->p.st.ints = w->ints;
  w->p.v = v;
  if (arg) w->p.arg = *arg;
  w->n0 = v->n - 1;
  const tea_loop_start start = tea_solve_loop_start(v, w->n0, arg);
  tea_loop_begin(&w->p.st, &start);
}

/** After a pass: the solve's figures, v->n its last iteration. */
static int now_settle(pass_now *w, tea_solve *v) {
  PORTA_CHECK(tea_solve_loop_settle(v, &w->p.st, w->n0));
  v->n = w->n0 + w->ints[TEA_LOOP_N];
  return PORTA_SUCCESS;
}

int tea_pass_now(tea_solve *v, tea_pass_body body, const tea_pass_arg *arg) {
  pass_now w;
  now_begin(&w, v, arg);
  PORTA_CHECK(body(&w.p));
  return now_settle(&w, v);
}

int tea_pass_test_now(tea_solve *v, double value) {
  pass_now w;
  now_begin(&w, v, NULL);
  tea_loop_test(&w.p.st, value);
  return now_settle(&w, v);
}

int tea_pass_run(tea_solve *v, tea_pass_body body, const char *label, const tea_pass_arg *arg,
                 int *count) {
  if (v->n > v->last_iter) return PORTA_SUCCESS;
  if (tea_loop_wanted(v->c) && (!arg || arg->ncoef <= TEA_LOOP_MAX_COEFS))
    return tea_solve_loop_passes(v, body, label, arg, count);
  pass_now w;
  now_begin(&w, v, arg);
  for (;;) {
    const int64_t before = w.ints[TEA_LOOP_N];
    PORTA_CHECK(body(&w.p));
    if (count) *count += (int)(w.ints[TEA_LOOP_N] - before);
    PORTA_CHECK(now_settle(&w, v));
    if (v->converged) return PORTA_SUCCESS;
    if (v->n >= v->last_iter) break;
    ++v->n;
  }
  v->n = v->last_iter + 1; /* the loop index when the iterations ran out */
  return PORTA_SUCCESS;
}
