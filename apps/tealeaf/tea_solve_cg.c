/** @file tea_solve_cg.c
 *  The CG driver (reference tea_leaf_cg): its iteration, written once as a pass (tea_pass.h)
 *  that runs from the host or is recorded on the device. */
#include "tea_pass.h"

/** CG's lean end: the test, u += alpha p and p = r + beta p, p's exchange (the test fused into
 *  the update on a GPU's grids up to TEA_LOOP_FUSE_CELLS; p's faces sent beside the inside's
 *  update where the chunk has an instance for it and the faces need no reflection). */
static int cg_up(tea_pass *p) {
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

int tea_cg_pass(tea_pass *p) {
  tea_chunk *c = p->c;
  const tea_precon pc = p->s->preconditioner;
  const double *alpha = &p->st.scal[TEA_LOOP_ALPHA];
  /* lean iteration (96 instead of 112 B/cell, tea_kernels_cg.c) unless the preconditioner
     needs z; its iterates are the reference kernels' bits where nothing contracts */
  const bool lean = pc == TEA_PRECON_NONE;
  const app_sum_to pw = tea_pass_to(p, TEA_LOOP_PW), rrn = tea_pass_to(p, TEA_LOOP_RRN);
  PORTA_CHECK(tea_k_cg_calc_w(c, pw)); /* w = A p (Di recomputed); p.w */
  PORTA_CHECK(tea_pass_sum(p, TEA_LOOP_PW, 1));
  PORTA_CHECK(tea_k_loop_cg_alpha(c->exec, &p->st, NULL)); /* alpha = rro / pw */
  /* r -= alpha w (and u, z); rrn = r.r (r.z) */
  PORTA_CHECK(lean ? tea_k_cg_calc_r(c, alpha, rrn) : tea_k_cg_calc_ur(c, pc, alpha, rrn));
  PORTA_CHECK(tea_pass_sum(p, TEA_LOOP_RRN, 1));
  if (lean) return cg_up(p); /* the test; u += alpha p; p = r + beta p; p's exchange */
  PORTA_CHECK(tea_k_loop_cg_test(c->exec, &p->st, &p->decider)); /* beta = rrn / rro; the test */
  PORTA_CHECK(tea_k_cg_calc_p(c, TEA_FIELD_Z, &p->st.scal[TEA_LOOP_BETA])); /* p = z + beta p */
  return tea_pass_exchange(p, TEA_FIELD_P, true);
}

int tea_solve_cg(tea_solve *v) {
  v->n = 1;
  return tea_pass_run(v, tea_cg_pass, "tea_cg_loop", NULL, &v->st->cg_iterations);
}

int tea_solve_cg_now(tea_solve *v) {
  tea_chunk *c = v->c;
  const int64_t n = v->n;
  v->st->cg_iterations++;
  PORTA_CHECK(tea_pass_now(v, tea_cg_pass, NULL));
  /* the coefficients' history (the switch's eigenvalue estimate) grows with the iterations */
  const double *scal = tea_loop_host(c).scal; /* as the pass's end read them */
  PORTA_CHECK(tea_solve_ensure(&c->cg_alphas, &c->cg_betas, &c->cg_hist_cap, n, v->s->max_iters));
  c->cg_alphas[n - 1] = scal[TEA_LOOP_ALPHA];
  c->cg_betas[n - 1] = scal[TEA_LOOP_BETA];
  return PORTA_SUCCESS;
}
