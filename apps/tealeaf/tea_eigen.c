/** @file tea_eigen.c
 *  Eigenvalue estimate from the CG coefficients (Lanczos tridiagonal, implicit QL as the
 *  reference's tqli) and the Chebyshev coefficients (reference tea_calc_ch_coefs). Host code. */
#include <math.h>
#include <stdlib.h>

#include "tea_internal.h"

/* Implicit QL on the symmetric tridiagonal (d[0..n), e[0..n)); e[i] couples i-1 and i on entry
 * (the reference shifts it down first). Returns 0, or 1 after 30 sweeps without convergence. */
static int tea_tqli(double *d, double *e, int n) {
  for (int i = 0; i < n - 1; ++i) e[i] = e[i + 1]; /* eoshift(e, 1) */
  if (n > 0) e[n - 1] = 0.0;
  for (int l = 0; l < n; ++l) {
    int iter = 0;
    for (;;) {
      int m;
      for (m = l; m < n - 1; ++m) {
        double dd = fabs(d[m]) + fabs(d[m + 1]);
        if (fabs(e[m]) + dd == dd) break;
      }
      if (m == l) break;
      if (iter == 30) return 1;
      ++iter;
      double g = (d[l + 1] - d[l]) / (2.0 * e[l]);
      double r = sqrt(g * g + 1.0);
      g = d[m] - d[l] + e[l] / (g + (g >= 0.0 ? fabs(r) : -fabs(r)));
      double s = 1.0, c = 1.0, p = 0.0;
      int restart = 0;
      for (int i = m - 1; i >= l; --i) {
        double f = s * e[i], b = c * e[i];
        r = sqrt(f * f + g * g);
        e[i + 1] = r;
        if (r == 0.0) {
          d[i + 1] -= p;
          e[m] = 0.0;
          restart = 1;
          break;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + 2.0 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
      }
      if (restart) continue;
      d[l] -= p;
      e[l] = g;
      e[m] = 0.0;
    }
  }
  return 0;
}

int tea_calc_eigenvalues(const double *cg_alphas, const double *cg_betas, int n, double *eigmin,
                         double *eigmax) {
  if (n < 1)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_calc_eigenvalues", "cg",
                       "no CG iterations to estimate eigenvalues from");
  double *diag = (double *)calloc((size_t)n, sizeof(double));
  double *off = (double *)calloc((size_t)n + 1, sizeof(double));
  if (!diag || !off) {
    free(diag);
    free(off);
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_calc_eigenvalues", "cg", "calloc failed");
  }
  for (int i = 0; i < n; ++i) {
    diag[i] = 1.0 / cg_alphas[i];
    if (i > 0) diag[i] += cg_betas[i - 1] / cg_alphas[i - 1];
    if (i < n - 1) off[i + 1] = sqrt(cg_betas[i]) / cg_alphas[i];
  }
  int info = tea_tqli(diag, off, n);
  double mn = diag[0], mx = diag[0];
  for (int i = 1; i < n; ++i) {
    if (diag[i] < mn) mn = diag[i];
    if (diag[i] > mx) mx = diag[i];
  }
  free(diag);
  free(off);
  if (info != 0 || mn < 0.0 || mx < 0.0)
    return porta_error(PORTA_ERROR_BACKEND, "tea_calc_eigenvalues", "cg",
                       "eigenvalue estimate failed (info %d, min %g, max %g)", info, mn, mx);
  *eigmin = mn;
  *eigmax = mx;
  return PORTA_SUCCESS;
}

void tea_calc_ch_coefs(double *alphas, double *betas, double eigmin, double eigmax, double *theta,
                       int n) {
  double th = (eigmax + eigmin) / 2.0;
  double delta = (eigmax - eigmin) / 2.0;
  double sigma = th / delta;
  double rho_old = 1.0 / sigma;
  for (int i = 0; i < n; ++i) {
    double rho_new = 1.0 / (2.0 * sigma - rho_old);
    alphas[i] = rho_new * rho_old;
    betas[i] = 2.0 * rho_new / delta;
    rho_old = rho_new;
  }
  *theta = th;
}
