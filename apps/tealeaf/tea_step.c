/** @file tea_step.c
 *  One implicit time step: the reference's tea_leaf (tea_solve.f90), step by step.
 *
 *  Matches the reference on purpose, including its quirks (tealeaf.md 1.5-1.6):
 *  - convergence test every iteration: sqrt(|error|) < eps * initial_residual, where error is
 *    r.r (CG), r.z (preconditioned CG), the flexible-CG numerator (PPCG), the L1 norm of the
 *    update (Jacobi) or a possibly stale value (Chebyshev: recomputed only when n >= est_itc
 *    and n mod 10 == 0; in between the old value is square-rooted again each iteration, as in
 *    the reference);
 *  - the printed iteration count is n-1 at exit (one less than executed when converged,
 *    max_iters when not): stats->iterations; stats->true_iterations holds the executed count;
 *  - Chebyshev / PPCG switch after tl_ch_cg_presteps CG iterations once sqrt(rr) of the
 *    previous iteration is <= tl_ch_cg_epslim (absolute); the eigenvalue estimate of the first
 *    switch is kept for the whole run (c->have_eigs); later PPCG steps switch at n = 2.
 *  Host code: all field work is in the tea_kernels_*.c kernels. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tea_internal.h"

/* Make (*p, *q) hold at least `need` doubles each, growing geometrically (at most `most`), so
 * that storage follows the iterations actually run rather than tl_max_iters. */
static int tea_ensure(double **p, double **q, int *cap, int64_t need, int64_t most) {
  if (need <= *cap) return PORTA_SUCCESS;
  if (need > most || need > INT_MAX)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_step", "coefficients",
                       "%lld coefficients asked for, at most %lld", (long long)need,
                       (long long)(most < INT_MAX ? most : INT_MAX));
  int64_t n = 2 * (int64_t)*cap;
  if (n < 64) n = 64;
  if (n < need) n = need;
  if (n > most) n = most;
  if (n > INT_MAX) n = INT_MAX;
  double *a = (double *)realloc(*p, (size_t)n * sizeof(double));
  if (a) *p = a;
  double *b = (double *)realloc(*q, (size_t)n * sizeof(double));
  if (b) *q = b;
  if (!a || !b)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_step", "coefficients",
                       "cannot allocate %lld coefficients", (long long)n);
  memset(*p + *cap, 0, (size_t)(n - *cap) * sizeof(double));
  memset(*q + *cap, 0, (size_t)(n - *cap) * sizeof(double));
  *cap = (int)n;
  return PORTA_SUCCESS;
}

/* The Chebyshev coefficients 0..need-1 (of `total`) in c->ch_alphas / c->ch_betas; *have of them
 * are there. They are a recurrence from the first: a longer list is recomputed from the start,
 * so its values are those of one computation of `total` (bitwise). */
static int tea_ch_coefs(tea_chunk *c, int64_t need, int64_t total, int64_t *have, double *theta) {
  if (need <= *have) return PORTA_SUCCESS;
  int64_t n = 2 * *have;
  if (n < 1024) n = 1024;
  if (n < need) n = need;
  if (n > total) n = total;
  PORTA_CHECK(tea_ensure(&c->ch_alphas, &c->ch_betas, &c->ch_cap, n + 1, total + 1));
  tea_calc_ch_coefs(c->ch_alphas, c->ch_betas, c->eigmin, c->eigmax, theta, (int)n);
  *have = n;
  return PORTA_SUCCESS;
}

/* A global value the solve cannot go on with: stop with a message (NaN or infinity reached). */
static int tea_not_finite(const char *what, int64_t n, double v, double initial_residual) {
  char where[96] = "before the first solver iteration";
  if (n > 0)
    snprintf(where, sizeof where, "at solver iteration %lld (initial residual %g)", (long long)n,
             initial_residual);
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_step", "solve",
                     "the solution is not finite: %s is %g %s; the deck's values overflow double "
                     "precision",
                     what, v, where);
}

static int tea_exchange1(tea_chunk *c, int f, int depth) {
  return tea_halo_exchange(c, &f, 1, depth);
}

int tea_step_ex(tea_chunk *c, const tea_settings *s, tea_step_stats *st) {
  memset(st, 0, sizeof *st);
  const tea_solver solver = s->solver;
  const tea_precon pc = s->preconditioner;
  const bool cheby = solver == TEA_SOLVER_CHEBY, ppcg = solver == TEA_SOLVER_PPCG;
  const bool cgish = solver != TEA_SOLVER_JACOBI;
  const int64_t max_iters = s->max_iters; /* 64-bit: max_iters + 2 must not wrap */
  const int inner = tea_ppcg_inner_steps(s);
  int f2[2];

  /* ---- init ---- */
  f2[0] = TEA_FIELD_ENERGY1;
  f2[1] = TEA_FIELD_DENSITY;
  PORTA_CHECK(tea_halo_exchange(c, f2, 2, c->halo));
  PORTA_CHECK(tea_k_init_common(c, s));
  PORTA_CHECK(tea_exchange1(c, TEA_FIELD_U, 1));
  double rr;
  PORTA_CHECK(tea_k_residual(c, &rr));
  PORTA_CHECK(tea_allreduce_sum(c, &rr, 1));
  double old_error = rr;
  const double initial_residual = sqrt(fabs(rr));
  st->initial_residual = initial_residual;
  if (!isfinite(rr)) return tea_not_finite("the initial residual", 0, rr, initial_residual);

  int exch = TEA_FIELD_U; /* field exchanged (depth 1) after every iteration */
  double rro = 0.0;
  if (cgish && rr != 0.0) {
    PORTA_CHECK(tea_k_cg_init(c, pc, &rro));
    PORTA_CHECK(tea_allreduce_sum(c, &rro, 1));
    f2[0] = TEA_FIELD_U;
    f2[1] = TEA_FIELD_P;
    PORTA_CHECK(tea_halo_exchange(c, f2, 2, 1));
    exch = TEA_FIELD_P;
  }

  /* ---- iterate ---- */
  bool ch_switch = false, converged = false;
  int64_t cheby_steps = 0, max_cheby_iters = 0, est_itc = 0, n, ncoef = 0, have_coef = 0;
  double error = 0.0, theta = 1.0;
  /* a zero initial residual: u already solves the system (a uniform field); iterating would
     divide 0 by 0 */
  const int64_t last_iter = rr != 0.0 ? max_iters : 0;
  for (n = 1; n <= last_iter; ++n) {
    bool reflect = true; /* the exchanged field's physical halo is reflected after the exchange */
    bool exchanged = false; /* the iteration exchanged already (beside its update) */
    if (!ch_switch) {
      if (cheby_steps > 0)
        ch_switch = true;
      else if (c->have_eigs && ppcg && n > 1)
        ch_switch = true;
      else if (fabs(old_error) <= s->ch_cg_epslim && n >= s->ch_cg_presteps &&
               (c->have_eigs || n > 1)) /* the first estimate needs a CG iteration */
        ch_switch = true;
    }

    if ((cheby || ppcg) && ch_switch) {
      if (cheby_steps == 0) {
        max_cheby_iters = max_iters - n + 2;
        if (!c->have_eigs) {
          PORTA_CHECK(tea_calc_eigenvalues(c->cg_alphas, c->cg_betas, (int)(n - 1), &c->eigmin,
                                           &c->eigmax));
          c->eigmin *= 0.95;
          c->eigmax *= 1.05;
          c->have_eigs = true;
        }
        ncoef = cheby ? max_cheby_iters : inner;
        /* PPCG: every inner step's; Chebyshev: as many as iterations run (they grow) */
        PORTA_CHECK(tea_ch_coefs(c, cheby ? 1 : ncoef, ncoef, &have_coef, &theta));
        if (cheby) {
          exch = TEA_FIELD_U;
        } else {
          /* reference tea_leaf_ppcg_init step 2, inner steps, step 3 */
          if (pc != TEA_PRECON_NONE) PORTA_CHECK(tea_k_precon(c, pc, TEA_FIELD_R, TEA_FIELD_Z));
          PORTA_CHECK(tea_ppcg_inner(c, s, c->ch_alphas, c->ch_betas, theta, inner));
          st->inner_iterations += inner;
          PORTA_CHECK(tea_k_ppcg_init_p(c, &rro));
          PORTA_CHECK(tea_allreduce_sum(c, &rro, 1));
          PORTA_CHECK(tea_exchange1(c, TEA_FIELD_P, 1));
        }
      }

      if (cheby) {
        if (cheby_steps == 0) {
          double bb;
          PORTA_CHECK(tea_k_norm2(c, TEA_FIELD_U0, &bb));
          PORTA_CHECK(tea_allreduce_sum(c, &bb, 1));
          PORTA_CHECK(tea_k_cheby_init(c, pc, theta));
          PORTA_CHECK(tea_exchange1(c, exch, 1));
          PORTA_CHECK(tea_k_cheby_iterate(c, pc, c->ch_alphas[0], c->ch_betas[0]));
          PORTA_CHECK(tea_k_norm2(c, TEA_FIELD_R, &old_error)); /* the reference writes old_error */
          PORTA_CHECK(tea_allreduce_sum(c, &old_error, 1));
          double cn = c->eigmax / c->eigmin;
          double it_alpha = s->eps / 2.0 * sqrt(bb / old_error);
          double gamm = (sqrt(cn) - 1.0) / (sqrt(cn) + 1.0);
          /* nint(); a non-finite estimate recomputes the residual from the start */
          double est = log(it_alpha) / log(gamm);
          est_itc = !isfinite(est) ? 0 : fabs(est) < 4e18 ? llround(est) : est > 0 ? INT64_MAX : 0;
          cheby_steps = 1;
          /* switched at n = 1 (tl_ch_cg_presteps 1, eigenvalues kept from an earlier step): no
             CG iteration set the error the convergence test reads (the reference reads an
             unset variable there), so it takes this first step's residual */
          if (n == 1) error = old_error;
        } else {
          int64_t idx = cheby_steps < max_cheby_iters ? cheby_steps : max_cheby_iters - 1;
          PORTA_CHECK(tea_ch_coefs(c, idx + 1, ncoef, &have_coef, &theta));
          porta_exec side;
          if (pc != TEA_PRECON_JAC_BLOCK && tea_halo_beside(c, &side)) {
            /* the edge's update and the exchange of u beside the inside's update (the
               physical faces are reflected after it, below) */
            PORTA_CHECK(
                tea_k_cheby_iterate_split(c, pc, side, c->ch_alphas[idx], c->ch_betas[idx]));
            PORTA_CHECK(tea_halo_exchange_beside(c, &exch, 1, 1));
            exchanged = true;
          } else {
            PORTA_CHECK(tea_k_cheby_iterate(c, pc, c->ch_alphas[idx], c->ch_betas[idx]));
          }
          if (n >= est_itc && n % 10 == 0) {
            PORTA_CHECK(tea_k_norm2(c, TEA_FIELD_R, &error));
            PORTA_CHECK(tea_allreduce_sum(c, &error, 1));
          }
        }
        st->cheby_iterations++;
      } else {
        double v[2];
        PORTA_CHECK(tea_k_ppcg_calc_w_store(c, &v[0], &v[1]));
        PORTA_CHECK(tea_allreduce_sum(c, v, 2));
        rro = v[1];
        double alpha = rro / v[0];
        PORTA_CHECK(tea_k_cg_calc_ur(c, pc, alpha, NULL));
        PORTA_CHECK(tea_ppcg_inner(c, s, c->ch_alphas, c->ch_betas, theta, inner));
        st->inner_iterations += inner;
        double rrn;
        PORTA_CHECK(tea_k_ppcg_calc_rrn(c, &rrn));
        PORTA_CHECK(tea_allreduce_sum(c, &rrn, 1));
        double beta = rrn / rro;
        PORTA_CHECK(tea_k_cg_calc_p(c, TEA_FIELD_UTEMP, beta));
        error = rrn;
        rro = rrn;
      }
      cheby_steps++;
    } else if (cgish) {
      st->cg_iterations++;
      /* the coefficients' history (for the eigenvalue estimate) grows with the iterations */
      PORTA_CHECK(tea_ensure(&c->cg_alphas, &c->cg_betas, &c->cg_hist_cap, n, max_iters));
      /* lean iteration (96 instead of 112 B/cell, tea_kernels_cg.c) unless the preconditioner
         needs z, or reproducible mode wants exact sums (the reference kernels have both) */
      const bool lean = pc == TEA_PRECON_NONE && !s->reproducible;
      /* the lean iteration exchanges only p, read only through A, which weighs a physical
         halo cell by exactly 0 when faces_zeroed: reflecting it would change no result */
      reflect = !(lean && c->faces_zeroed);
      double pw;
      PORTA_CHECK(lean ? tea_k_cg_calc_w_lean(c, &pw) : tea_k_cg_calc_w(c, &pw));
      PORTA_CHECK(tea_allreduce_sum(c, &pw, 1));
      double alpha = rro / pw;
      c->cg_alphas[n - 1] = alpha;
      double rrn;
      PORTA_CHECK(lean ? tea_k_cg_calc_r(c, alpha, &rrn) : tea_k_cg_calc_ur(c, pc, alpha, &rrn));
      PORTA_CHECK(tea_allreduce_sum(c, &rrn, 1));
      double beta = rrn / rro;
      c->cg_betas[n - 1] = beta;
      porta_exec side;
      if (lean && !reflect && tea_halo_beside(c, &side)) {
        /* u += alpha p; p = r + beta p on the edge beside, the inside on c->exec, and the
           exchange of p beside that (it reads and writes only the edge and the halo) */
        PORTA_CHECK(tea_k_cg_calc_up_split(c, side, alpha, beta));
        PORTA_CHECK(tea_halo_exchange_beside(c, &exch, 1, 1));
        exchanged = true;
      } else if (lean)
        PORTA_CHECK(tea_k_cg_calc_up(c, alpha, beta)); /* u += alpha p (old p); p = r + beta p */
      else
        PORTA_CHECK(tea_k_cg_calc_p(c, pc != TEA_PRECON_NONE ? TEA_FIELD_Z : TEA_FIELD_R, beta));
      error = rrn;
      rro = rrn;
    } else {
      porta_exec side;
      if (tea_halo_beside(c, &side)) {
        /* un = u: all of it at first; later the interior was copied beside the last exchange,
           and the halo's first layer now has its values (reflected too) */
        PORTA_CHECK(tea_k_jacobi_copy(c, n == 1 ? TEA_JACOBI_COPY_ALL : TEA_JACOBI_COPY_FRAME));
        PORTA_CHECK(tea_k_jacobi_update(c, &error));
        PORTA_CHECK(tea_allreduce_sum(c, &error, 1));
        /* the exchange of u beside the next iteration's copy of the interior (the copy reads
           the interior only, the exchange writes only the halo) */
        PORTA_CHECK(tea_k_jacobi_copy(c, TEA_JACOBI_COPY_INTERIOR));
        PORTA_CHECK(tea_halo_exchange_beside(c, &exch, 1, 1));
        exchanged = true;
      } else {
        PORTA_CHECK(tea_k_jacobi(c, &error));
        PORTA_CHECK(tea_allreduce_sum(c, &error, 1));
      }
    }

    if (!exchanged && reflect)
      PORTA_CHECK(tea_exchange1(c, exch, 1));
    else if (!exchanged)
      PORTA_CHECK(tea_halo_exchange_neighbours(c, &exch, 1, 1));
    else if (reflect)
      PORTA_CHECK(tea_reflect_boundaries(c, &exch, 1, 1));

    error = sqrt(fabs(error));
    if (!isfinite(error)) return tea_not_finite("the residual", n, error, initial_residual);
    if (s->verbose_on) st->last_residual = error;
    if (fabs(error) < s->eps * initial_residual) {
      converged = true;
      break;
    }
    old_error = error;
  }
  if (last_iter == 0) { /* nothing to solve: converged before the first iteration */
    st->iterations = 0;
    st->true_iterations = 0;
    st->converged = true;
    st->error = 0.0;
  } else {
    /* n is the Fortran loop index at exit: max_iters + 1 when the loop ran out */
    st->iterations = (int)(n - 1);
    st->true_iterations = (int)(converged ? n : max_iters);
    st->converged = converged;
    st->error = error / initial_residual;
  }

  if (s->check_result) {
    PORTA_CHECK(tea_exchange1(c, TEA_FIELD_U, 1));
    double ee;
    PORTA_CHECK(tea_k_residual(c, &ee));
    PORTA_CHECK(tea_allreduce_sum(c, &ee, 1));
    st->exact_error = initial_residual > 0.0 ? sqrt(ee) / initial_residual : sqrt(ee);
  }

  /* ---- finalise ---- */
  double nonfinite = 0.0;
  PORTA_CHECK(tea_k_finalise(c, &nonfinite));
  PORTA_CHECK(tea_allreduce_sum(c, &nonfinite, 1));
  if (nonfinite != 0.0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_step", "energy",
                       "the solution is not finite: %.0f cells have a NaN or infinite energy "
                       "after the solve; the deck's values overflow double precision",
                       nonfinite);
  return tea_exchange1(c, TEA_FIELD_ENERGY1, 1);
}

int tea_step(tea_chunk *c, const tea_settings *s, int *iterations, double *error) {
  tea_step_stats st;
  int rc = tea_step_ex(c, s, &st);
  if (iterations) *iterations = st.iterations;
  if (error) *error = st.error;
  return rc;
}
