/** @file tea_solve_ppcg.c
 *  The PPCG driver (reference tea_leaf_ppcg): CG iterations until the switch
 *  (tea_solve_switch_due), the eigenvalue estimate from them, then flexible-CG iterations
 *  preconditioned by `inner` Chebyshev-polynomial steps (tea_solve.h).
 *
 *  The inner steps use the communication-avoiding halo: sd and rtemp are exchanged `halo` deep
 *  once every `halo` steps, and the steps in between compute on the interior grown by the
 *  remaining halo width on faces that have a neighbour rank (redundant work on the overlap).
 *  Its iteration after the switch is written once as a pass (tea_pass.h), run from the host or
 *  recorded on the device. */
#include <string.h>

#include "tea_pass.h"

/* The inner steps (the reference's tea_leaf_ppcg_inner): the result ("z") is left in UTEMP. */
static int ppcg_inner(tea_chunk *c, const tea_settings *s, double theta, int steps) {
  const tea_precon pc = s->preconditioner;
  PORTA_CHECK(tea_k_ppcg_init_sd(c, pc, theta));
  const int h = c->halo;
  int fields[2] = {TEA_FIELD_SD, TEA_FIELD_RTEMP}, sdf = TEA_FIELD_SD;
  const bool any_phys = c->phys_left || c->phys_right || c->phys_bottom || c->phys_top;
  /* the last step of a group that another follows can update its edge (h deep) first and
     exchange it beside the inside's update (not with the block preconditioner, whose columns
     cross the edge) */
  porta_exec side;
  const bool beside = pc != TEA_PRECON_JAC_BLOCK && tea_halo_beside_depth(c, h, &side);
  bool exchanged = false; /* the group's exchange ran beside the last step */
  for (int cur = 1; cur <= steps; cur += h) {
    PORTA_CHECK(exchanged ? tea_reflect_boundaries(c, fields, 2, h)
                          : tea_halo_exchange(c, fields, 2, h));
    exchanged = false;
    for (int extra = h - 1; extra >= 0; --extra) {
      const int step = cur + h - 1 - extra;
      PORTA_CHECK(tea_k_ppcg_inner_r(c, extra));
      if (pc == TEA_PRECON_JAC_BLOCK)
        PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_RTEMP, TEA_FIELD_Z));
      const double alpha = c->ch_alphas[step - 1], beta = c->ch_betas[step - 1];
      if (beside && extra == 0 && step < steps) {
        /* rtemp everywhere before the edge's sd changes on the other instance (rtemp's update
           reads sd around each cell; the exchange sends the edge's rtemp) */
        PORTA_CHECK(porta_exec_fence(c->exec, "tea_ppcg_inner_r"));
        PORTA_CHECK(tea_k_ppcg_inner_sd_split(c, pc, side, alpha, beta));
        PORTA_CHECK(tea_halo_exchange_beside(c, fields, 2, h));
        exchanged = true;
      } else {
        PORTA_CHECK(tea_k_ppcg_inner_sd(c, pc, extra, alpha, beta));
      }
      if (s->reflective_boundary && any_phys) PORTA_CHECK(tea_reflect_boundaries(c, &sdf, 1, 1));
      if (step == steps) break;
    }
  }
  return PORTA_SUCCESS;
}

/* The switch: the coefficients of every inner step, and p from the first inner result (the
   reference's tea_leaf_ppcg_init, steps 2 and 3). */
static int ppcg_first(tea_solve *v, int inner, double *theta) {
  tea_chunk *c = v->c;
  const tea_precon pc = v->s->preconditioner;
  int64_t have_coef = 0;
  PORTA_CHECK(tea_solve_eigenvalues(v));
  PORTA_CHECK(tea_solve_ch_coefs(c, inner, inner, &have_coef, theta));
  if (pc != TEA_PRECON_NONE) PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
  PORTA_CHECK(ppcg_inner(c, v->s, *theta, inner));
  v->st->inner_iterations += inner;
  PORTA_CHECK(tea_k_ppcg_init_p(c, &v->rro));
  PORTA_CHECK(tea_allreduce_sum(c, &v->rro, 1));
  return tea_exchange1(c, TEA_FIELD_P, 1);
}

int tea_ppcg_pass(tea_pass *p) {
  tea_chunk *c = p->c;
  /* w = A p; rstore = r; pw = p.w and rz = utemp.r (RZ next to PW: one reduction writes both) */
  PORTA_CHECK(tea_k_ppcg_calc_w_store(c, tea_pass_to(p, TEA_LOOP_PW)));
  PORTA_CHECK(tea_pass_sum(p, TEA_LOOP_PW, 2));
  PORTA_CHECK(tea_k_loop_ppcg_alpha(c->exec, &p->st, NULL)); /* rro = rz; alpha = rro / pw */
  /* u += alpha p; r -= alpha w (z = M r) */
  PORTA_CHECK(tea_k_ppcg_calc_ur(c, p->s->preconditioner, &p->st.scal[TEA_LOOP_ALPHA]));
  PORTA_CHECK(ppcg_inner(c, p->s, p->arg.theta, p->arg.inner));      /* utemp */
  PORTA_CHECK(tea_k_ppcg_calc_rrn(c, tea_pass_to(p, TEA_LOOP_RRN))); /* (r - rstore).utemp */
  PORTA_CHECK(tea_pass_sum(p, TEA_LOOP_RRN, 1));
  PORTA_CHECK(tea_k_loop_ppcg_test(c->exec, &p->st, &p->decider)); /* beta = rrn / rro; test */
  PORTA_CHECK(
      tea_k_cg_calc_p(c, TEA_FIELD_UTEMP, &p->st.scal[TEA_LOOP_BETA])); /* p = utemp + beta p */
  return tea_pass_exchange(p, TEA_FIELD_P, true);
}

int tea_solve_ppcg(tea_solve *v) {
  tea_pass_arg arg;
  memset(&arg, 0, sizeof arg);
  arg.theta = 1.0;
  arg.inner = tea_ppcg_inner_steps(v->s);
  for (v->n = 1; v->n <= v->last_iter; ++v->n) {
    if (tea_solve_switch_due(v, true)) {
      /* the switch's iteration, then the rest from the host or on the device */
      PORTA_CHECK(ppcg_first(v, arg.inner, &arg.theta));
      PORTA_CHECK(tea_pass_now(v, tea_ppcg_pass, &arg));
      int outer = 1;
      if (!v->converged) {
        ++v->n;
        const int rc = tea_pass_run(v, tea_ppcg_pass, "tea_ppcg_loop", &arg, &outer);
        v->st->inner_iterations += outer * arg.inner;
        return rc;
      }
      v->st->inner_iterations += outer * arg.inner;
      return PORTA_SUCCESS;
    }
    PORTA_CHECK(tea_solve_cg_now(v));
    if (v->converged) break;
  }
  return PORTA_SUCCESS;
}
