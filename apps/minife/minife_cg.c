/** @file minife_cg.c
 *  Unpreconditioned CG as the reference's cg_solve: x0 = 0, at most max_iter iterations, an
 *  absolute tolerance on the norm of the recursively updated residual, "Final Resid Norm" the
 *  norm computed at the top of the last iteration, residual lines every max_iter/10 iterations
 *  (clamped to 1..50), the same numerical-breakdown test.
 *
 *  The work per iteration is the reference's, in three passes over the vectors instead of six:
 *  the matvec also sums p.Ap, and the update x += alpha p, r -= alpha Ap also sums r.r (the
 *  reference computes that dot at the top of the next iteration; the value is the same). The
 *  halo exchange of p comes before every matvec; with mv_overlap_comm_comp the interior rows
 *  are computed while the messages travel, and p.Ap is then a pass of its own. Every global
 *  sum goes through app_sum, so --reproducible makes them exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange.h"
#include "minife.h"

typedef struct cg_state {
  minife *m;
  double t_matvec, t_dot, t_waxpby;
  double t_loop; /**< iterations on the device: their kernels are not timed one by one */
} cg_state;

static int global_sum(cg_state *s, double *v) {
  double t0 = porta_wtime();
  int rc = app_sum_allreduce(s->m->sum, v, 1);
  s->t_dot += porta_wtime() - t0;
  return rc;
}

static int dot(cg_state *s, porta_view_f64 x, porta_view_f64 y, double *out) {
  double t0 = porta_wtime();
  PORTA_CHECK(minife_op_dot(s->m, x, y, out));
  s->t_dot += porta_wtime() - t0;
  return global_sum(s, out);
}

static int waxpby(cg_state *s, double alpha, porta_view_f64 x, double beta, porta_view_f64 y,
                  porta_view_f64 w) {
  double t0 = porta_wtime();
  int rc = minife_op_waxpby(s->m, alpha, x, beta, y, w);
  s->t_waxpby += porta_wtime() - t0;
  return rc;
}

/** Ap = A p (halo exchange first); *pAp = global p.Ap. */
static int matvec_dot(cg_state *s, double *pAp) {
  minife *m = s->m;
  porta_view pv = PORTA_VIEW_ERASE(m->p);
  double t0 = porta_wtime();
  if (!m->prm.mv_overlap || !m->halo) {
    if (m->halo) PORTA_CHECK(porta_exchange_run(m->halo, &pv, 1));
    PORTA_CHECK(minife_op_matvec_dot(m, m->p, m->Ap, pAp));
    s->t_matvec += porta_wtime() - t0;
    return global_sum(s, pAp);
  }
  PORTA_CHECK(porta_exchange_start(m->halo, &pv, 1));
  PORTA_CHECK(minife_op_matvec_rows(m, m->A.interior_rows, m->A.ninterior, m->p, m->Ap));
  PORTA_CHECK(porta_exchange_finish(m->halo));
  PORTA_CHECK(minife_op_matvec_rows(m, m->A.boundary_rows, m->A.nboundary, m->p, m->Ap));
  s->t_matvec += porta_wtime() - t0;
  return dot(s, m->Ap, m->p, pAp);
}

/* Every kernel of the solve once, on zero vectors (x += 0 p, r -= 0 Ap change nothing), so that
   first-launch costs (module loading, reduction buffers: 150 ms on an H100) stay out of the
   solve's time, as they are out of the reference's. The timers start again at zero. */
static int warm_up(cg_state *s, minife_cg_result *res) {
  minife *m = s->m;
  double t0 = porta_wtime(), v = 0.0;
  PORTA_CHECK(porta_view_f64_fill(m->x, 0.0));
  PORTA_CHECK(porta_view_f64_fill(m->p, 0.0));
  PORTA_CHECK(matvec_dot(s, &v));
  PORTA_CHECK(waxpby(s, 1.0, m->b, -1.0, m->Ap, m->r));
  PORTA_CHECK(dot(s, m->r, m->r, &v));
  PORTA_CHECK(minife_op_update(m, 0.0, &v));
  PORTA_CHECK(global_sum(s, &v));
  PORTA_CHECK(porta_fence("minife_cg_warmup"));
  memset(s, 0, sizeof *s);
  s->m = m;
  res->t_warmup = porta_wtime() - t0;
  return PORTA_SUCCESS;
}

/* The reference's breakdown test for a p.Ap below *tol: *broke when p.Ap is negative or within
   rounding of zero (100 |Ap| |p| eps); else the tolerance becomes p.Ap / 10. */
static int check_breakdown(cg_state *s, double pAp, double *tol, int *broke) {
  const double eps = 2.220446049250313e-16; /* DBL_EPSILON */
  minife *m = s->m;
  double nap = 0.0, np = 0.0;
  *broke = 0;
  if (pAp >= *tol) return PORTA_SUCCESS;
  if (pAp >= 0) {
    PORTA_CHECK(dot(s, m->Ap, m->Ap, &nap));
    PORTA_CHECK(dot(s, m->p, m->p, &np));
  }
  if (pAp < 0 || fabs(pAp) <= 100.0 * sqrt(nap) * sqrt(np) * eps)
    *broke = 1;
  else
    *tol = 0.1 * pAp;
  return PORTA_SUCCESS;
}

/* Rank 0's residual line every print_freq iterations and at the last one. */
static void print_residual(int print, int k, int max_iter, double normr) {
  int print_freq = max_iter / 10;
  if (print_freq > 50) print_freq = 50;
  if (print_freq < 1) print_freq = 1;
  if (print && (k % print_freq == 0 || k == max_iter)) {
    printf("Iteration = %d   Residual = %g\n", k, normr);
    fflush(stdout);
  }
}

/** The solve's scalars between iterations. */
typedef struct cg_scalars {
  double rtrans, rr_next, normr, brkdown_tol;
} cg_scalars;

/* The rest of iteration k after p.Ap: the breakdown test, alpha, the update and its sum. */
static int finish_iteration(cg_state *s, int k, double pAp, cg_scalars *v, minife_cg_result *res,
                            int print) {
  PORTA_CHECK(check_breakdown(s, pAp, &v->brkdown_tol, &res->breakdown));
  if (res->breakdown) {
    if (print) {
      fprintf(stderr, "miniFE::cg_solve ERROR, numerical breakdown!\n");
      fflush(stderr);
    }
    return PORTA_SUCCESS;
  }
  const double alpha = v->rtrans / pAp;
  double t0 = porta_wtime();
  PORTA_CHECK(minife_op_update(s->m, alpha, &v->rr_next));
  s->t_waxpby += porta_wtime() - t0;
  PORTA_CHECK(global_sum(s, &v->rr_next));
  res->iterations = k;
  return PORTA_SUCCESS;
}

/* Iterations k0.. on the host, every global sum through it. */
static int host_iterations(cg_state *s, int k0, int max_iter, double tol, cg_scalars *v,
                           minife_cg_result *res, int print) {
  minife *m = s->m;
  for (int k = k0; k <= max_iter && v->normr > tol; ++k) {
    if (k == 1) {
      PORTA_CHECK(waxpby(s, 1.0, m->r, 0.0, m->r, m->p));
    } else {
      const double oldrtrans = v->rtrans;
      v->rtrans = v->rr_next; /* r.r, summed by the last update */
      const double beta = v->rtrans / oldrtrans;
      PORTA_CHECK(waxpby(s, 1.0, m->r, beta, m->p, m->p));
    }
    v->normr = sqrt(v->rtrans);
    res->history[k] = v->normr;
    res->nhistory = k + 1;
    print_residual(print, k, max_iter, v->normr);
    double pAp = 0.0;
    PORTA_CHECK(matvec_dot(s, &pAp));
    PORTA_CHECK(finish_iteration(s, k, pAp, v, res, print));
    if (res->breakdown) break;
  }
  return PORTA_SUCCESS;
}

/* Iterations on the device (minife_cg_loop.c) from the first, then, if the loop stopped on a
   suspected breakdown, the rest of that iteration and the following ones on the host. */
static int device_iterations(cg_state *s, int max_iter, double tol, cg_scalars *v,
                             minife_cg_result *res, int print) {
  minife_loop_result lr;
  const double t0 = porta_wtime();
  PORTA_CHECK(
      minife_cg_loop_run(s->m, max_iter, tol, v->rtrans, v->brkdown_tol, res->history, &lr));
  s->t_loop += porta_wtime() - t0;
  for (int k = 1; k <= lr.tops; ++k) print_residual(print, k, max_iter, res->history[k]);
  if (lr.tops > 0) {
    res->nhistory = lr.tops + 1;
    v->normr = res->history[lr.tops];
  }
  res->iterations = lr.iterations;
  v->rtrans = lr.rtrans;
  v->rr_next = lr.rr_next;
  if (!lr.suspect) return PORTA_SUCCESS;
  PORTA_CHECK(finish_iteration(s, lr.tops, lr.pAp, v, res, print));
  if (res->breakdown) return PORTA_SUCCESS;
  return host_iterations(s, lr.tops + 1, max_iter, tol, v, res, print);
}

int minife_cg(minife *m, int max_iter, double tol, minife_cg_result *res, int print) {
  memset(res, 0, sizeof *res);
  res->history = (double *)calloc((size_t)max_iter + 1, sizeof(double));
  if (!res->history)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minife_cg", "history", "calloc failed");
  cg_state s;
  memset(&s, 0, sizeof s);
  s.m = m;
  PORTA_CHECK(warm_up(&s, res));
  const double t_start = porta_wtime();

  /* x = 0 ; p = x ; Ap = A p ; r = b - Ap ; normr = |r| */
  PORTA_CHECK(porta_view_f64_fill(m->x, 0.0));
  PORTA_CHECK(porta_view_f64_fill(m->p, 0.0));
  cg_scalars v;
  double pAp = 0.0;
  memset(&v, 0, sizeof v);
  PORTA_CHECK(matvec_dot(&s, &pAp));
  PORTA_CHECK(waxpby(&s, 1.0, m->b, -1.0, m->Ap, m->r));
  PORTA_CHECK(dot(&s, m->r, m->r, &v.rtrans));
  v.normr = sqrt(v.rtrans);
  res->initial_residual = v.normr;
  res->history[0] = v.normr;
  res->nhistory = 1;
  if (print) {
    printf("Initial Residual = %g\n", v.normr);
    fflush(stdout);
  }

  v.brkdown_tol = 2.220446049250313e-16; /* DBL_EPSILON */
  if (max_iter >= 1 && v.normr > tol && minife_cg_loop_wanted(m))
    PORTA_CHECK(device_iterations(&s, max_iter, tol, &v, res, print));
  else
    PORTA_CHECK(host_iterations(&s, 1, max_iter, tol, &v, res, print));
  PORTA_CHECK(porta_fence("minife_cg"));
  res->final_residual = v.normr;
  res->t_total = porta_wtime() - t_start;
  res->t_matvec = s.t_matvec;
  res->t_dot = s.t_dot;
  res->t_waxpby = s.t_waxpby;
  res->t_loop = s.t_loop;
  return PORTA_SUCCESS;
}
