/** @file tea_kernels_cg_loop.c
 *  The kernels of CG on the device (tea_cg_loop.h): the p update of the lean iteration reading
 *  alpha and beta from device memory (w = A p and the r update are the host loop's own kernels,
 *  tea_kernels_cg.c: a reduction's grid follows its kernel's occupancy, so a kernel of its own
 *  could sum in another order), and the one-thread kernels around them: a solve's start,
 *  alpha = rro / pw, and beta = rrn / rro with the reference's convergence test
 *  (tea_solve_iteration_end's), which decides whether another iteration runs. The divisions are
 *  the host loop's, once each, so the bits are its bits.
 *  Kernel file (C++17 compatible). */
#include <math.h>
#include <string.h>

#include "tea_cg_loop.h"

typedef struct {
  porta_view_f64 u, p, r, s;
} tea_cg_up_loop_args;

/* u += alpha p; p = r + beta p */
PORTA_MDFOR2(tea_k_cg_calc_up_loop, tea_cg_up_loop_args, a, k, j) {
  const double alpha = PORTA_AT1(a->s, TEA_LOOP_ALPHA), beta = PORTA_AT1(a->s, TEA_LOOP_BETA);
  const double p = PORTA_AT2(a->p, k, j);
  PORTA_AT2(a->u, k, j) += alpha * p;
  PORTA_AT2(a->p, k, j) = PORTA_AT2(a->r, k, j) + beta * p;
}

typedef struct {
  tea_cg_loop_state st;
  double rro, eps_init;
  int64_t last_iter;
  porta_loop_handle loop; /**< the deciding loop's (tea_k_cg_loop_test_f) */
} tea_cg_ctl_args;

PORTA_FOR(tea_k_cg_loop_start_f, tea_cg_ctl_args, a, i) {
  PORTA_AT1(a->st.scal, TEA_LOOP_RRO) = a->rro;
  PORTA_AT1(a->st.scal, TEA_LOOP_EPS) = a->eps_init;
  PORTA_AT1(a->st.ints, TEA_LOOP_N) = 0;
  PORTA_AT1(a->st.ints, TEA_LOOP_STATUS) = TEA_LOOP_RUNNING;
  PORTA_AT1(a->st.ints, TEA_LOOP_LAST) = a->last_iter;
}

/* alpha = rro / pw */
PORTA_FOR(tea_k_cg_loop_alpha_f, tea_cg_ctl_args, a, i) {
  PORTA_AT1(a->st.scal, TEA_LOOP_ALPHA) =
      PORTA_AT1(a->st.scal, TEA_LOOP_RRO) / PORTA_AT1(a->st.scal, TEA_LOOP_PW);
}

/* beta = rrn / rro; rro = rrn; error = sqrt(|rrn|) and the test (not finite: stop); whether
   another iteration runs after this one's p update */
PORTA_FOR(tea_k_cg_loop_test_f, tea_cg_ctl_args, a, i) {
  const int64_t n = ++PORTA_AT1(a->st.ints, TEA_LOOP_N);
  const double rrn = PORTA_AT1(a->st.scal, TEA_LOOP_RRN);
  const double error = sqrt(fabs(rrn));
  PORTA_AT1(a->st.scal, TEA_LOOP_BETA) = rrn / PORTA_AT1(a->st.scal, TEA_LOOP_RRO);
  PORTA_AT1(a->st.scal, TEA_LOOP_RRO) = rrn;
  PORTA_AT1(a->st.scal, TEA_LOOP_ERROR) = error;
  int again = 0;
  if (!isfinite(error))
    PORTA_AT1(a->st.ints, TEA_LOOP_STATUS) = TEA_LOOP_NOT_FINITE;
  else if (fabs(error) < PORTA_AT1(a->st.scal, TEA_LOOP_EPS))
    PORTA_AT1(a->st.ints, TEA_LOOP_STATUS) = TEA_LOOP_CONVERGED;
  else {
    PORTA_AT1(a->st.scal, TEA_LOOP_OLD) = error;
    again = n < PORTA_AT1(a->st.ints, TEA_LOOP_LAST);
  }
  porta_loop_decide(&a->loop, again);
}

int tea_k_cg_loop_start(tea_chunk *c, const tea_cg_loop_state *st, double rro, double eps_init,
                        int64_t last_iter) {
  tea_cg_ctl_args a;
  a.st = *st;
  a.rro = rro;
  a.eps_init = eps_init;
  a.last_iter = last_iter;
  memset(&a.loop, 0, sizeof a.loop);
  return PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_start", tea_k_cg_loop_start_f, c->exec,
                                    porta_range(0, 1), &a);
}

int tea_k_cg_loop_iteration(tea_chunk *c, porta_exec exec, const tea_cg_loop_state *st) {
  const porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  const porta_range_policy one = porta_range(0, 1);
  double *scal = st->scal.data;
  tea_cg_ctl_args ctl;
  ctl.st = *st;
  ctl.rro = ctl.eps_init = 0.0;
  ctl.last_iter = 0;
  ctl.loop = porta_loop_decider();
  PORTA_CHECK(tea_k_cg_calc_w_lean_into(c, exec, &scal[TEA_LOOP_PW]));
  PORTA_CHECK(
      PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_alpha", tea_k_cg_loop_alpha_f, exec, one, &ctl));
  PORTA_CHECK(tea_k_cg_calc_r_into(c, exec, &scal[TEA_LOOP_ALPHA], &scal[TEA_LOOP_RRN]));
  PORTA_CHECK(
      PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_test", tea_k_cg_loop_test_f, exec, one, &ctl));
  tea_cg_up_loop_args up;
  up.u = TEA_F(c, TEA_FIELD_U);
  up.p = TEA_F(c, TEA_FIELD_P);
  up.r = TEA_F(c, TEA_FIELD_R);
  up.s = st->scal;
  return PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up", tea_k_cg_calc_up_loop, exec, in, &up);
}
