/** @file tea_solve_cheby.c
 *  The Chebyshev driver (reference tea_leaf_cheby): CG iterations until the switch
 *  (tea_solve_switch_due), the eigenvalue estimate from them, then Chebyshev iterations whose
 *  convergence value is recomputed only every 10 iterations from the estimated count on
 *  (tea_solve.h). The iterations after the switch's are written once as a pass of up to 10
 *  (tea_pass.h), run from the host or recorded on the device. */
#include <math.h>
#include <string.h>

#include "tea_pass.h"

/** The Chebyshev half of a solve. */
typedef struct cheby_state {
  int64_t steps;     /**< the reference's count of Chebyshev iterations (0: not begun) */
  int64_t max_iters; /**< at most this many: tl_max_iters less the CG iterations before */
  int64_t est_itc;   /**< the estimated iteration count; the error is recomputed from it on */
  int64_t have_coef; /**< coefficients computed */
  double theta;
} cheby_state;

/* The switch's iteration: the coefficients, the first Chebyshev iteration and the estimate of
   the iterations needed (the reference's tea_leaf_cheby_init and first step). */
static int cheby_first(tea_solve *v, cheby_state *ch) {
  tea_chunk *c = v->c;
  const tea_precon pc = v->s->preconditioner;
  ch->max_iters = v->s->max_iters - v->n + 2;
  PORTA_CHECK(tea_solve_eigenvalues(v));
  /* as many coefficients as iterations run (they grow) */
  PORTA_CHECK(tea_solve_ch_coefs(c, 1, ch->max_iters, &ch->have_coef, &ch->theta));
  v->exch = TEA_FIELD_U;
  double bb;
  PORTA_CHECK(tea_k_norm2(c, TEA_FIELD_U0, &bb));
  PORTA_CHECK(tea_allreduce_sum(c, &bb, 1));
  /* r = u0 - A u reads u's halo, which the CG iterations before never exchange (they read p's
     only): on several ranks the neighbours' cells would be the step's first u */
  PORTA_CHECK(tea_exchange1(c, TEA_FIELD_U, 1));
  PORTA_CHECK(tea_k_cheby_init(c, pc, ch->theta));
  PORTA_CHECK(tea_exchange1(c, v->exch, 1));
  PORTA_CHECK(tea_k_cheby_iterate(c, pc, c->ch_alphas[0], c->ch_betas[0]));
  PORTA_CHECK(tea_k_norm2(c, TEA_FIELD_R, &v->old_error)); /* the reference writes old_error */
  PORTA_CHECK(tea_allreduce_sum(c, &v->old_error, 1));
  const double cn = c->eigmax / c->eigmin;
  const double it_alpha = v->s->eps / 2.0 * sqrt(bb / v->old_error);
  const double gamm = (sqrt(cn) - 1.0) / (sqrt(cn) + 1.0);
  /* nint(); a non-finite estimate recomputes the residual from the start */
  const double est = log(it_alpha) / log(gamm);
  ch->est_itc = !isfinite(est) ? 0 : fabs(est) < 4e18 ? llround(est) : est > 0 ? INT64_MAX : 0;
  /* switched at n = 1 (tl_ch_cg_presteps 1, eigenvalues kept from an earlier step): no CG
     iteration set the error the convergence test reads (the reference reads an unset variable
     there), so it takes this first step's residual */
  if (v->n == 1) v->error = v->old_error;
  /* the reference's count: set to 1 here and incremented after the iteration as every other,
     so the second Chebyshev iteration takes coefficient 2 */
  ch->steps = 1;
  return PORTA_SUCCESS;
}

/** Iteration BASE + slot of the pass, if it runs, with u's exchange (from the host: beside the
 *  update where the chunk has an instance for it). */
static int cheby_iteration(tea_pass *p, int slot) {
  tea_chunk *c = p->c;
  const tea_precon pc = p->s->preconditioner;
  /* past the stop nothing changes: a host back end, whose host reads the integers, skips the
     exchange too (a GPU's pass exchanges u as it is) */
  if (tea_scalars_by_value(c->exec) && p->st.ints[TEA_LOOP_BASE] + slot > p->st.ints[TEA_LOOP_STOP])
    return PORTA_SUCCESS;
  porta_exec side;
  if (pc != TEA_PRECON_JAC_BLOCK && tea_halo_beside(c, &side)) {
    /* the edge's update and the exchange of u beside the inside's update (the physical faces
       are reflected after it) */
    const int u = TEA_FIELD_U;
    PORTA_CHECK(tea_k_cheby_step(c, pc, p->alphas, p->betas, &p->st, slot, &side));
    PORTA_CHECK(tea_halo_exchange_beside(c, &u, 1, 1));
    return tea_reflect_boundaries(c, &u, 1, 1);
  }
  PORTA_CHECK(tea_k_cheby_step(c, pc, p->alphas, p->betas, &p->st, slot, NULL));
  return tea_pass_exchange(p, TEA_FIELD_U, true);
}

/** NORM = r.r, summed, where the pass's test reads it: elsewhere a GPU's kernel reads no r and
 *  sums 0, and a host back end, whose host reads the integers, skips the step. */
static int cheby_norm(tea_pass *p) {
  if (tea_scalars_by_value(p->c->exec) && !tea_cheby_fresh(p->st.ints)) return PORTA_SUCCESS;
  PORTA_CHECK(tea_k_cheby_norm(p->c, &p->st, tea_pass_to(p, TEA_LOOP_NORM)));
  return tea_pass_sum(p, TEA_LOOP_NORM, 1);
}

int tea_cheby_pass(tea_pass *p) {
  for (int slot = 1; slot <= TEA_CHEBY_PASS; ++slot)
    PORTA_CHECK(cheby_iteration(p, slot)); /* r = u0 - A u; p, u; u's exchange */
  PORTA_CHECK(cheby_norm(p));              /* r.r where the test reads it */
  return tea_k_loop_cheby_test(p->c->exec, &p->st, &p->decider); /* the pass's tests */
}

int tea_solve_cheby(tea_solve *v) {
  cheby_state ch = {0, 0, 0, 0, 1.0};
  for (v->n = 1; v->n <= v->last_iter; ++v->n) {
    if (tea_solve_switch_due(v, false)) {
      /* the switch's iteration, then the rest from the host or on the device */
      PORTA_CHECK(cheby_first(v, &ch));
      v->st->cheby_iterations++;
      PORTA_CHECK(tea_exchange1(v->c, TEA_FIELD_U, 1));
      PORTA_CHECK(tea_pass_test_now(v, v->error));
      if (v->converged) return PORTA_SUCCESS;
      ++v->n;
      tea_pass_arg arg;
      memset(&arg, 0, sizeof arg);
      arg.ncoef = ch.max_iters;
      arg.est = ch.est_itc;
      arg.steps = ch.steps + 1; /* the reference's count: the next iteration takes coefficient 2 */
      arg.have_coef = &ch.have_coef;
      arg.ch_theta = &ch.theta;
      return tea_pass_run(v, tea_cheby_pass, "tea_cheby_loop", &arg, &v->st->cheby_iterations);
    }
    PORTA_CHECK(tea_solve_cg_now(v));
    if (v->converged) break;
  }
  return PORTA_SUCCESS;
}
