/** @file tea_solve_cheby.c
 *  The Chebyshev driver (reference tea_leaf_cheby): CG iterations until the switch
 *  (tea_solve_switch_due), the eigenvalue estimate from them, then Chebyshev iterations whose
 *  convergence value is recomputed only every 10 iterations from the estimated count on
 *  (tea_solve.h); on a GPU the iterations after the switch's run without a return to the host
 *  (tea_loop.h). */
#include <math.h>

#include "tea_loop.h"

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

/* A later Chebyshev iteration; *exchanged: u's exchange ran beside the update. */
static int cheby_iteration(tea_solve *v, cheby_state *ch, bool *exchanged) {
  tea_chunk *c = v->c;
  const tea_precon pc = v->s->preconditioner;
  const int64_t idx = ch->steps < ch->max_iters ? ch->steps : ch->max_iters - 1;
  PORTA_CHECK(tea_solve_ch_coefs(c, idx + 1, ch->max_iters, &ch->have_coef, &ch->theta));
  porta_exec side;
  if (pc != TEA_PRECON_JAC_BLOCK && tea_halo_beside(c, &side)) {
    /* the edge's update and the exchange of u beside the inside's update (the physical faces
       are reflected after it) */
    PORTA_CHECK(tea_k_cheby_iterate_split(c, pc, side, c->ch_alphas[idx], c->ch_betas[idx]));
    PORTA_CHECK(tea_halo_exchange_beside(c, &v->exch, 1, 1));
    *exchanged = true;
  } else {
    PORTA_CHECK(tea_k_cheby_iterate(c, pc, c->ch_alphas[idx], c->ch_betas[idx]));
  }
  if (v->n >= ch->est_itc && v->n % 10 == 0) {
    PORTA_CHECK(tea_k_norm2(c, TEA_FIELD_R, &v->error));
    PORTA_CHECK(tea_allreduce_sum(c, &v->error, 1));
  }
  return PORTA_SUCCESS;
}

int tea_solve_cheby(tea_solve *v) {
  cheby_state ch = {0, 0, 0, 0, 1.0};
  bool switched = false;
  for (v->n = 1; v->n <= v->last_iter; ++v->n) {
    bool exchanged = false, reflect = true;
    if (!switched) switched = tea_solve_switch_due(v, false);
    if (!switched) {
      PORTA_CHECK(tea_solve_cg_iteration(v, &exchanged, &reflect));
    } else {
      PORTA_CHECK(ch.steps == 0 ? cheby_first(v, &ch) : cheby_iteration(v, &ch, &exchanged));
      v->st->cheby_iterations++;
      ch.steps++;
    }
    PORTA_CHECK(tea_solve_iteration_end(v, exchanged, reflect));
    if (v->converged) break;
    if (ch.steps > 0 && v->n < v->last_iter) { /* the rest on the device? */
      ++v->n;
      if (tea_solve_cheby_on_device(v, ch.max_iters))
        return tea_solve_cheby_loop(v, ch.steps, ch.max_iters, ch.est_itc, &ch.theta,
                                    &ch.have_coef);
      --v->n;
    }
  }
  return PORTA_SUCCESS;
}
