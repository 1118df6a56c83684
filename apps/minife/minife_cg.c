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
 *  sum goes through app_sum, so --sums exact (or --reproducible) makes them exact.
 *
 *  The iteration is written once (cg_pass, over the steps below: minife_pass in minife.h):
 *  run now, its scalars on the host, or recorded once into the device loop (minife_cg_loop.c),
 *  which runs a whole solve on a GPU; the top's scalar code is one inline function for both. */
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

/** What a pass run now reads and writes beside its scalars. */
typedef struct cg_now {
  cg_state *cs;
  minife_cg_result *res;
  int print, max_iter;
} cg_now;

/* The top of the iteration (beta, ||r||, its residual line run now) and p = r + beta p. */
static int step_top_p(minife_pass *p) {
  if (p->recorded) return minife_op_loop_top(p->m, p->exec, p->st);
  cg_now *h = (cg_now *)p->host;
  minife *m = p->m;
  const int k = (int)minife_loop_top(p->s, p->n, p->history);
  if (k == 1)
    PORTA_CHECK(waxpby(h->cs, 1.0, m->r, 0.0, m->r, m->p));
  else
    PORTA_CHECK(waxpby(h->cs, 1.0, m->r, p->s[MINIFE_LOOP_BETA], m->p, m->p));
  h->res->nhistory = k + 1;
  print_residual(h->print, k, h->max_iter, p->s[MINIFE_LOOP_NORMR]);
  return PORTA_SUCCESS;
}

/* p's exchange, Ap = A p and p.Ap, summed over the ranks. */
static int step_matvec_dot(minife_pass *p) {
  if (!p->recorded) return matvec_dot(((cg_now *)p->host)->cs, &p->s[MINIFE_LOOP_PAP]);
  PORTA_CHECK(minife_pass_exchange_queued(p)); /* p's external columns */
  PORTA_CHECK(minife_pass_end_sum(p, MINIFE_LOOP_PAP));
  PORTA_CHECK(minife_op_loop_matvec_dot(p->m, p->exec, p->st));
  return minife_pass_sum_queued(p, MINIFE_LOOP_PAP);
}

/* The breakdown test, alpha, x += alpha p and r -= alpha Ap with r.r summed. Recorded, a p.Ap
   below the tolerance stops the loop with x and r as they are (alpha 0): the host finishes
   that iteration (its test needs two more dots). */
static int step_update(minife_pass *p) {
  if (p->recorded) {
    PORTA_CHECK(minife_pass_end_sum(p, MINIFE_LOOP_RRN));
    PORTA_CHECK(minife_op_loop_update(p->m, p->exec, p->st));
    return minife_pass_sum_queued(p, MINIFE_LOOP_RRN);
  }
  cg_now *h = (cg_now *)p->host;
  double *v = p->s;
  const double pAp = v[MINIFE_LOOP_PAP];
  PORTA_CHECK(check_breakdown(h->cs, pAp, &v[MINIFE_LOOP_BRK], &h->res->breakdown));
  if (h->res->breakdown) {
    if (h->print) {
      fprintf(stderr, "miniFE::cg_solve ERROR, numerical breakdown!\n");
      fflush(stderr);
    }
    return PORTA_SUCCESS;
  }
  const double alpha = v[MINIFE_LOOP_RTRANS] / pAp;
  double t0 = porta_wtime();
  PORTA_CHECK(minife_op_update(p->m, alpha, &v[MINIFE_LOOP_RRN]));
  h->cs->t_waxpby += porta_wtime() - t0;
  PORTA_CHECK(global_sum(h->cs, &v[MINIFE_LOOP_RRN]));
  h->res->iterations = (int)p->n[0];
  return PORTA_SUCCESS;
}

/* One CG iteration: the body, written once, that runs from the host or is recorded. */
static int cg_pass(minife_pass *p) {
  PORTA_CHECK(step_top_p(p));      /* beta, ||r||; p = r + beta p */
  PORTA_CHECK(step_matvec_dot(p)); /* Ap = A p; p.Ap */
  PORTA_CHECK(step_update(p));     /* alpha; x, r; r.r */
  /* recorded, a kernel decides whether another iteration runs; run now, the host loop */
  return p->recorded ? minife_op_loop_end(p->m, p->exec, p->st) : PORTA_SUCCESS;
}

/* Iterations on the host from n[0] + 1 while k <= max_iter and ||r|| > tol. */
static int host_iterations(minife_pass *p, double tol) {
  cg_now *h = (cg_now *)p->host;
  while (p->n[0] + 1 <= h->max_iter && p->s[MINIFE_LOOP_NORMR] > tol) {
    PORTA_CHECK(cg_pass(p));
    if (h->res->breakdown) break;
  }
  return PORTA_SUCCESS;
}

/* Iterations on the device (minife_cg_loop.c) from the first, then, if the loop stopped on a
   suspected breakdown, the rest of that iteration and the following ones on the host. */
static int device_iterations(minife_pass *p, double tol) {
  cg_now *h = (cg_now *)p->host;
  minife_cg_result *res = h->res;
  minife_loop_result lr;
  const double t0 = porta_wtime();
  PORTA_CHECK(minife_cg_loop_run(p->m, cg_pass, h->max_iter, tol, p->s[MINIFE_LOOP_RTRANS],
                                 p->s[MINIFE_LOOP_BRK], res->history, &lr));
  h->cs->t_loop += porta_wtime() - t0;
  for (int k = 1; k <= lr.tops; ++k) print_residual(h->print, k, h->max_iter, res->history[k]);
  if (lr.tops > 0) {
    res->nhistory = lr.tops + 1;
    p->s[MINIFE_LOOP_NORMR] = res->history[lr.tops];
  }
  res->iterations = lr.iterations;
  p->s[MINIFE_LOOP_RTRANS] = lr.rtrans;
  p->s[MINIFE_LOOP_RRN] = lr.rr_next;
  p->n[0] = lr.tops;
  if (!lr.suspect) return PORTA_SUCCESS;
  p->s[MINIFE_LOOP_PAP] = lr.pAp;
  PORTA_CHECK(step_update(p));
  if (res->breakdown) return PORTA_SUCCESS;
  return host_iterations(p, tol);
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
  double v[MINIFE_LOOP_NSCAL], pAp = 0.0;
  int64_t counts[3] = {0, 0, 0};
  memset(v, 0, sizeof v);
  PORTA_CHECK(matvec_dot(&s, &pAp));
  PORTA_CHECK(waxpby(&s, 1.0, m->b, -1.0, m->Ap, m->r));
  PORTA_CHECK(dot(&s, m->r, m->r, &v[MINIFE_LOOP_RTRANS]));
  v[MINIFE_LOOP_NORMR] = sqrt(v[MINIFE_LOOP_RTRANS]);
  res->initial_residual = v[MINIFE_LOOP_NORMR];
  res->history[0] = v[MINIFE_LOOP_NORMR];
  res->nhistory = 1;
  if (print) {
    printf("Initial Residual = %g\n", v[MINIFE_LOOP_NORMR]);
    fflush(stdout);
  }

  v[MINIFE_LOOP_BRK] = 2.220446049250313e-16; /* DBL_EPSILON */
  cg_now h = {&s, res, print, max_iter};
  minife_pass p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.exec = m->exec;
  p.s = v;
  p.n = counts;
  p.history = res->history;
  p.host = &h;
  if (max_iter >= 1 && v[MINIFE_LOOP_NORMR] > tol && minife_cg_loop_wanted(m))
    PORTA_CHECK(device_iterations(&p, tol));
  else
    PORTA_CHECK(host_iterations(&p, tol));
  PORTA_CHECK(porta_fence("minife_cg"));
  res->final_residual = v[MINIFE_LOOP_NORMR];
  res->t_total = porta_wtime() - t_start;
  res->t_matvec = s.t_matvec;
  res->t_dot = s.t_dot;
  res->t_waxpby = s.t_waxpby;
  res->t_loop = s.t_loop;
  return PORTA_SUCCESS;
}
