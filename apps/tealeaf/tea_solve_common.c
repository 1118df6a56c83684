/** @file tea_solve_common.c
 *  The pieces the solver drivers share (tea_solve.h). Host code. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tea_pass.h"
#include "tea_solve.h"

int tea_exchange1(tea_chunk *c, int field, int depth) {
  return tea_halo_exchange(c, &field, 1, depth);
}

int tea_solve_ensure(double **p, double **q, int *cap, int64_t need, int64_t most) {
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

int tea_solve_ch_coefs(tea_chunk *c, int64_t need, int64_t total, int64_t *have, double *theta) {
  if (need <= *have) return PORTA_SUCCESS;
  int64_t n = 2 * *have;
  if (n < 1024) n = 1024;
  if (n < need) n = need;
  if (n > total) n = total;
  PORTA_CHECK(tea_solve_ensure(&c->ch_alphas, &c->ch_betas, &c->ch_cap, n + 1, total + 1));
  tea_calc_ch_coefs(c->ch_alphas, c->ch_betas, c->eigmin, c->eigmax, theta, (int)n);
  *have = n;
  return PORTA_SUCCESS;
}

int tea_solve_not_finite(const char *what, int64_t n, double v, double initial_residual) {
  char where[96] = "before the first solver iteration";
  if (n > 0)
    snprintf(where, sizeof where, "at solver iteration %lld (initial residual %g)", (long long)n,
             initial_residual);
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_step", "solve",
                     "the solution is not finite: %s is %g %s; the deck's values overflow double "
                     "precision",
                     what, v, where);
}

int tea_solve_diverged(const tea_solve *v, int64_t n) {
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_step", "solve",
                     "the Chebyshev solve diverged: at solver iteration %lld its residual had "
                     "grown to more than %g times the initial one (%g), from a poor eigenvalue "
                     "estimate; more CG iterations before the switch give a better one "
                     "(tl_ch_cg_presteps %d, tl_ch_cg_epslim %g)",
                     (long long)n, TEA_DIVERGE_FACTOR, v->initial_residual, v->s->ch_cg_presteps,
                     v->s->ch_cg_epslim);
}

bool tea_solve_switch_due(const tea_solve *v, bool ppcg) {
  const tea_chunk *c = v->c;
  if (c->have_eigs && ppcg && v->n > 1) return true;
  /* the first estimate needs a CG iteration */
  return fabs(v->old_error) <= v->s->ch_cg_epslim && v->n >= v->s->ch_cg_presteps &&
         (c->have_eigs || v->n > 1);
}

int tea_solve_eigenvalues(tea_solve *v) {
  tea_chunk *c = v->c;
  if (c->have_eigs) return PORTA_SUCCESS;
  PORTA_CHECK(
      tea_calc_eigenvalues(c->cg_alphas, c->cg_betas, (int)(v->n - 1), &c->eigmin, &c->eigmax));
  c->eigmin *= 0.95;
  c->eigmax *= 1.05;
  c->have_eigs = true;
  return PORTA_SUCCESS;
}
