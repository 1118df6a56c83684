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
 *  are computed while the messages travel, and p.Ap is then a pass of its own. Sums are exact
 *  with --sums exact (or --reproducible).
 *
 *  One body (cg_pass) is the iteration, whether the host drives it pass by pass or a device
 *  loop has recorded it (minife_cg_loop.c: a whole solve on a GPU without the host): its sums
 *  land in the solver's scalars in the space's memory (m->cg_scalars) and its kernels read
 *  alpha and beta from there. The exchange and the sums over the ranks are queued on the GPUs
 *  while the loop records, else driven from the host (cg_exchange, cg_sum). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange.h"
#include "porta/exchange_device.h"
#include "minife.h"

/** The timers a pass adds to (minife_pass.t). */
enum { T_MATVEC, T_DOT, T_WAXPBY, T_COUNT };

/** Time since t0 added to timer `which`. */
static void lap(minife_pass *p, int which, double t0) { p->t[which] += porta_wtime() - t0; }

/* ---- the communication of a pass: queued on the GPUs while the loop records, else from the
 * host ---- */

/** p's external columns from their owners. */
static int cg_exchange(minife_pass *p) {
  minife *m = p->m;
  if (!m->halo) return PORTA_SUCCESS;
  porta_view pv = PORTA_VIEW_ERASE(m->p);
  if (m->queueing) return porta_exchange_queue(m->halo, m->device, p->exec, &pv, 1);
  return porta_exchange_run(m->halo, &pv, 1);
}

/** Before the reduction into scalar `slot`, queued on a transport that can (the peer one):
 *  its sum over the ranks as the reduction's end (porta/reduce_end.h), so cg_sum has nothing
 *  left to do. */
static int cg_sum_begin(minife_pass *p, int slot) {
  minife *m = p->m;
  if (!m->queueing || m->mesh.nranks < 2 || m->cg_scalars.exact_v.data) return PORTA_SUCCESS;
  porta_reduce_end e;
  memset(&e, 0, sizeof e);
  int fused = 0;
  PORTA_CHECK(porta_device_comm_end_sum(m->device, &e, &fused));
  if (!fused) return PORTA_SUCCESS;
  m->ended |= 1u << slot;
  return porta_exec_end_next_reduction(p->exec, &e);
}

/** The reduction into scalar `slot` summed over the ranks (app_scalars_sum). */
static int cg_sum(minife_pass *p, int slot) {
  minife *m = p->m;
  const double t0 = porta_wtime();
  if (m->ended & 1u << slot) {
    m->ended &= ~(1u << slot);
    return PORTA_SUCCESS;
  }
  PORTA_CHECK(app_scalars_sum(&m->cg_scalars, p->exec, m->sum, m->queueing ? m->device : NULL,
                              m->mesh.nranks, slot, 1));
  lap(p, T_DOT, t0);
  return PORTA_SUCCESS;
}

/** The sum of x.y over the ranks into scalar `slot`. */
static int cg_dot(minife_pass *p, porta_view_f64 x, porta_view_f64 y, int slot) {
  const double t0 = porta_wtime();
  PORTA_CHECK(minife_op_dot(p->m, p->exec, x, y, app_scalars_to(&p->m->cg_scalars, slot)));
  lap(p, T_DOT, t0);
  return cg_sum(p, slot);
}

/* ---- the steps of an iteration ---- */

/** p's exchange, Ap = A p and p.Ap, summed over the ranks. With mv_overlap_comm_comp (driven
 *  from the host) the interior rows are computed while the messages travel. */
static int step_matvec(minife_pass *p) {
  minife *m = p->m;
  double t0 = porta_wtime();
  if (m->prm.mv_overlap && m->halo) {
    porta_view pv = PORTA_VIEW_ERASE(m->p);
    PORTA_CHECK(porta_exchange_start(m->halo, &pv, 1));
    PORTA_CHECK(minife_op_matvec_rows(m, m->A.interior_rows, m->A.ninterior, m->p, m->Ap));
    PORTA_CHECK(porta_exchange_finish(m->halo));
    PORTA_CHECK(minife_op_matvec_rows(m, m->A.boundary_rows, m->A.nboundary, m->p, m->Ap));
    lap(p, T_MATVEC, t0);
    return cg_dot(p, m->Ap, m->p, MINIFE_LOOP_PAP);
  }
  PORTA_CHECK(cg_exchange(p));
  PORTA_CHECK(cg_sum_begin(p, MINIFE_LOOP_PAP));
  PORTA_CHECK(minife_op_matvec_dot(m, p->exec, app_scalars_to(&m->cg_scalars, MINIFE_LOOP_PAP)));
  lap(p, T_MATVEC, t0);
  return cg_sum(p, MINIFE_LOOP_PAP);
}

/** alpha, x += alpha p and r -= alpha Ap with r.r summed (alpha 0 on a suspected breakdown). */
static int step_update(minife_pass *p) {
  minife *m = p->m;
  const double t0 = porta_wtime();
  PORTA_CHECK(cg_sum_begin(p, MINIFE_LOOP_RRN));
  PORTA_CHECK(
      minife_op_update(m, p->exec, &p->ctl, app_scalars_to(&m->cg_scalars, MINIFE_LOOP_RRN)));
  lap(p, T_WAXPBY, t0);
  return cg_sum(p, MINIFE_LOOP_RRN);
}

/* One CG iteration, the same whether it runs from the host or recorded. */
static int cg_pass(minife_pass *p) {
  const double t0 = porta_wtime();
  PORTA_CHECK(minife_op_top(p->m, p->exec, &p->ctl)); /* beta, ||r||; p = r + beta p */
  lap(p, T_WAXPBY, t0);
  PORTA_CHECK(step_matvec(p));                  /* Ap = A p; p.Ap */
  PORTA_CHECK(step_update(p));                  /* alpha; x, r; r.r */
  return minife_op_end(p->m, p->exec, &p->ctl); /* another, done, or suspect */
}

/* ---- the solve ---- */

/** A solve: its pass driven from the host, what it prints, where it stands. */
typedef struct cg_solve {
  minife_pass pass;
  minife_cg_result *res;
  int print, printed; /**< rank 0 prints; the residual lines printed so far */
  double t[T_COUNT];
} cg_solve;

/* Rank 0's residual line every print_freq iterations and at the last one. */
static void print_residual(const cg_solve *v, int k, double normr) {
  const int max_iter = (int)v->pass.ctl.max_iter;
  int print_freq = max_iter / 10;
  if (print_freq > 50) print_freq = 50;
  if (print_freq < 1) print_freq = 1;
  if (v->print && (k % print_freq == 0 || k == max_iter)) {
    printf("Iteration = %d   Residual = %g\n", k, normr);
    fflush(stdout);
  }
}

/** The scalars read back after a pass or a loop's run: the residual lines of the iterations
 *  begun since the last read (from the history when there are several). */
static int settle(cg_solve *v) {
  minife *m = v->pass.m;
  PORTA_CHECK(app_scalars_read(&m->cg_scalars, m->exec));
  const double *s = m->cg_scalars.scal.data;
  const int tops = (int)m->cg_scalars.ints.data[MINIFE_LOOP_TOPS];
  if (tops > v->printed + 1) { /* a loop's run: its history */
    porta_mirror_f64 h;
    PORTA_CHECK(porta_view_f64_create_mirror_view(&h, &m->cg_history));
    int rc = porta_deep_copy(h, m->cg_history);
    if (rc == PORTA_SUCCESS)
      memcpy(v->res->history + v->printed + 1, h.data + v->printed + 1,
             (size_t)(tops - v->printed) * sizeof(double));
    porta_mirror_f64_release(&h);
    PORTA_CHECK(rc);
  }
  if (tops > v->printed) v->res->history[tops] = s[MINIFE_LOOP_NORMR];
  for (int k = v->printed + 1; k <= tops; ++k) print_residual(v, k, v->res->history[k]);
  v->printed = tops;
  v->res->nhistory = tops + 1;
  v->res->iterations = (int)m->cg_scalars.ints.data[MINIFE_LOOP_ITERATIONS];
  return PORTA_SUCCESS;
}

/* The reference's breakdown test after a pass stopped on p.Ap below the tolerance (alpha 0:
   x and r as they were): a breakdown when p.Ap is negative or within rounding of zero
   (100 |Ap| |p| eps); else the tolerance becomes p.Ap / 10 and the iteration ends as usual. */
static int breakdown_test(cg_solve *v) {
  const double eps = 2.220446049250313e-16; /* DBL_EPSILON */
  minife_pass *p = &v->pass;
  minife *m = p->m;
  double *s = m->cg_scalars.scal.data;
  int64_t *n = m->cg_scalars.ints.data;
  const double pAp = s[MINIFE_LOOP_PAP];
  double nap = 0.0, np = 0.0;
  if (pAp >= 0) {
    PORTA_CHECK(cg_dot(p, m->Ap, m->Ap, MINIFE_LOOP_APAP));
    PORTA_CHECK(cg_dot(p, m->p, m->p, MINIFE_LOOP_PP));
    PORTA_CHECK(app_scalars_read(&m->cg_scalars, m->exec));
    nap = s[MINIFE_LOOP_APAP];
    np = s[MINIFE_LOOP_PP];
  }
  if (pAp < 0 || fabs(pAp) <= 100.0 * sqrt(nap) * sqrt(np) * eps) {
    v->res->breakdown = 1;
    if (v->print) {
      fprintf(stderr, "miniFE::cg_solve ERROR, numerical breakdown!\n");
      fflush(stderr);
    }
    return PORTA_SUCCESS;
  }
  s[MINIFE_LOOP_BRK] = 0.1 * pAp;
  n[MINIFE_LOOP_STATUS] = MINIFE_LOOP_GOING;
  PORTA_CHECK(app_scalars_write(&m->cg_scalars, m->exec));
  PORTA_CHECK(step_update(p));
  PORTA_CHECK(minife_op_end(m, p->exec, &p->ctl));
  return settle(v);
}

/** Iterations from the host pass by pass, or as device loop runs, while k < max_iter and
 *  ||r|| > tol. */
static int iterate(cg_solve *v, int on_device) {
  minife *m = v->pass.m;
  const double *s = m->cg_scalars.scal.data;
  const int64_t *n = m->cg_scalars.ints.data;
  while (n[MINIFE_LOOP_TOPS] < v->pass.ctl.max_iter && s[MINIFE_LOOP_NORMR] > v->pass.ctl.tol &&
         !v->res->breakdown) {
    if (on_device) {
      const double t0 = porta_wtime();
      PORTA_CHECK(minife_cg_loop_run(m, cg_pass, &v->pass.ctl));
      PORTA_CHECK(settle(v));
      v->res->t_loop += porta_wtime() - t0;
    } else {
      PORTA_CHECK(cg_pass(&v->pass));
      PORTA_CHECK(settle(v));
    }
    if (n[MINIFE_LOOP_STATUS] == MINIFE_LOOP_SUSPECT) PORTA_CHECK(breakdown_test(v));
  }
  return PORTA_SUCCESS;
}

/** r = b - A x for x = 0 (p = x), r.r, the scalars' start: the reference's set-up. */
static int start(cg_solve *v) {
  minife *m = v->pass.m;
  PORTA_CHECK(porta_view_f64_fill(m->x, 0.0));
  PORTA_CHECK(porta_view_f64_fill(m->p, 0.0));
  PORTA_CHECK(step_matvec(&v->pass));
  double t0 = porta_wtime();
  PORTA_CHECK(minife_op_waxpby(m, 1.0, m->b, -1.0, m->Ap, m->r));
  lap(&v->pass, T_WAXPBY, t0);
  PORTA_CHECK(cg_dot(&v->pass, m->r, m->r, MINIFE_LOOP_RTRANS));
  PORTA_CHECK(app_scalars_read(&m->cg_scalars, m->exec));
  double *s = m->cg_scalars.scal.data;
  int64_t *n = m->cg_scalars.ints.data;
  s[MINIFE_LOOP_NORMR] = sqrt(s[MINIFE_LOOP_RTRANS]);
  s[MINIFE_LOOP_BRK] = 2.220446049250313e-16; /* DBL_EPSILON */
  n[MINIFE_LOOP_TOPS] = n[MINIFE_LOOP_ITERATIONS] = 0;
  n[MINIFE_LOOP_STATUS] = MINIFE_LOOP_GOING;
  v->printed = 0;
  return app_scalars_write(&m->cg_scalars, m->exec);
}

/** The scalars and the history (once, a longer history when max_iter grows; room for the
 *  warm-up's iteration). */
static int scalars(minife *m, int max_iter) {
  if (!m->cg_scalars.scal_v.data)
    PORTA_CHECK(app_scalars_create(&m->cg_scalars, "cg scalars", m->exec, MINIFE_LOOP_NSCAL,
                                   MINIFE_LOOP_NINTS, app_sum_is_exact(m->sum)));
  const int64_t size = (int64_t)max_iter + 2;
  if (m->cg_history.data && porta_extent(m->cg_history, 0) >= size) return PORTA_SUCCESS;
  if (m->cg_history.data) porta_view_f64_release(&m->cg_history);
  return porta_view_f64_create1(&m->cg_history, "cg history", size);
}

/* Every kernel of the solve once, on zero vectors and with alpha 0 (a breakdown tolerance no
   p.Ap reaches), so that first-launch costs (module loading, reduction buffers: 150 ms on an
   H100) stay out of the solve's time, as they are out of the reference's. */
static int warm_up(cg_solve *v) {
  const double t0 = porta_wtime();
  PORTA_CHECK(start(v));
  minife *m = v->pass.m;
  m->cg_scalars.scal.data[MINIFE_LOOP_BRK] = INFINITY;
  PORTA_CHECK(app_scalars_write(&m->cg_scalars, m->exec));
  PORTA_CHECK(cg_pass(&v->pass));
  PORTA_CHECK(porta_fence("minife_cg_warmup"));
  v->res->t_warmup = porta_wtime() - t0;
  memset(v->t, 0, sizeof v->t);
  return PORTA_SUCCESS;
}

int minife_cg(minife *m, int max_iter, double tol, minife_cg_result *res, int print) {
  memset(res, 0, sizeof *res);
  res->history = (double *)calloc((size_t)max_iter + 1, sizeof(double));
  if (!res->history)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minife_cg", "history", "calloc failed");
  PORTA_CHECK(scalars(m, max_iter));
  cg_solve v;
  memset(&v, 0, sizeof v);
  v.res = res;
  v.print = print;
  v.pass.m = m;
  v.pass.exec = m->exec;
  v.pass.t = v.t;
  v.pass.ctl.s = m->cg_scalars.scal_v;
  v.pass.ctl.n = m->cg_scalars.ints_v;
  v.pass.ctl.history = m->cg_history;
  v.pass.ctl.max_iter = max_iter;
  v.pass.ctl.tol = tol;
  PORTA_CHECK(warm_up(&v));
  const double t_start = porta_wtime();

  PORTA_CHECK(start(&v)); /* x = 0 ; p = x ; Ap = A p ; r = b - Ap ; normr = |r| */
  const double normr = m->cg_scalars.scal.data[MINIFE_LOOP_NORMR];
  res->initial_residual = res->history[0] = normr;
  res->nhistory = 1;
  if (print) {
    printf("Initial Residual = %g\n", normr);
    fflush(stdout);
  }
  PORTA_CHECK(iterate(&v, max_iter >= 1 && normr > tol && minife_cg_loop_wanted(m)));
  PORTA_CHECK(porta_fence("minife_cg"));
  res->final_residual = m->cg_scalars.scal.data[MINIFE_LOOP_NORMR];
  res->t_total = porta_wtime() - t_start;
  res->t_matvec = v.t[T_MATVEC];
  res->t_dot = v.t[T_DOT];
  res->t_waxpby = v.t[T_WAXPBY];
  return PORTA_SUCCESS;
}
