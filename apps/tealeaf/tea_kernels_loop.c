/** @file tea_kernels_loop.c
 *  The kernels of the solvers' device loops (tea_loop.h): a solve's start, and the bodies of
 *  CG and Jacobi. CG's p update reads alpha and beta from device memory; w = A p, the r update
 *  and Jacobi's copy, update and reflection are the host loop's own kernels; one-thread kernels
 *  compute alpha = rro / pw, and beta = rrn / rro with the test (tea_loop_test), which decides
 *  whether another iteration runs. The divisions are the host loop's, once each, so the bits
 *  are its bits. Kernel file (C++17 compatible). */
#include <string.h>

#include "tea_loop.h"

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
  tea_loop_state st;
  double rro, eps_init;
  porta_loop_handle loop; /**< the deciding loop's (the test kernels) */
} tea_loop_ctl_args;

PORTA_FOR(tea_k_loop_start_f, tea_loop_ctl_args, a, i) {
  PORTA_AT1(a->st.scal, TEA_LOOP_RRO) = a->rro;
  PORTA_AT1(a->st.scal, TEA_LOOP_EPS) = a->eps_init;
  PORTA_AT1(a->st.ints, TEA_LOOP_N) = 0;
  PORTA_AT1(a->st.ints, TEA_LOOP_STATUS) = TEA_LOOP_RUNNING;
}

/* alpha = rro / pw */
PORTA_FOR(tea_k_cg_loop_alpha_f, tea_loop_ctl_args, a, i) {
  PORTA_AT1(a->st.scal, TEA_LOOP_ALPHA) =
      PORTA_AT1(a->st.scal, TEA_LOOP_RRO) / PORTA_AT1(a->st.scal, TEA_LOOP_PW);
}

/* beta = rrn / rro; rro = rrn; the test on r.r: whether another iteration runs after this
   one's p update */
PORTA_FOR(tea_k_cg_loop_test_f, tea_loop_ctl_args, a, i) {
  const double rrn = PORTA_AT1(a->st.scal, TEA_LOOP_RRN);
  PORTA_AT1(a->st.scal, TEA_LOOP_BETA) = rrn / PORTA_AT1(a->st.scal, TEA_LOOP_RRO);
  PORTA_AT1(a->st.scal, TEA_LOOP_RRO) = rrn;
  porta_loop_decide(&a->loop, tea_loop_test(&a->st, rrn));
}

/* the test on the Jacobi update's L1 norm */
PORTA_FOR(tea_k_jacobi_loop_test_f, tea_loop_ctl_args, a, i) {
  porta_loop_decide(&a->loop, tea_loop_test(&a->st, PORTA_AT1(a->st.scal, TEA_LOOP_L1)));
}

/** The arguments of a body's one-thread kernels (the decider taken while recorded). */
static tea_loop_ctl_args tea_loop_ctl(const tea_loop_state *st) {
  tea_loop_ctl_args a;
  a.st = *st;
  a.rro = a.eps_init = 0.0;
  a.loop = porta_loop_decider();
  return a;
}

int tea_k_loop_start(tea_chunk *c, const tea_loop_state *st, double rro, double eps_init) {
  tea_loop_ctl_args a;
  a.st = *st;
  a.rro = rro;
  a.eps_init = eps_init;
  memset(&a.loop, 0, sizeof a.loop);
  return PORTA_PARALLEL_FOR_LABELED("tea_loop_start", tea_k_loop_start_f, c->exec,
                                    porta_range(0, 1), &a);
}

int tea_k_cg_loop_iteration(tea_chunk *c, porta_exec exec, const tea_loop_state *st) {
  const porta_range_policy one = porta_range(0, 1);
  double *scal = st->scal.data;
  tea_loop_ctl_args ctl = tea_loop_ctl(st);
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
  return PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up", tea_k_cg_calc_up_loop, exec,
                                    tea_policy(tea_box_interior(c, 0)), &up);
}

int tea_k_jacobi_loop_iteration(tea_chunk *c, porta_exec exec, const tea_loop_state *st) {
  tea_loop_ctl_args ctl = tea_loop_ctl(st);
  const int u = TEA_FIELD_U;
  PORTA_CHECK(tea_k_jacobi_copy_on(c, exec, TEA_JACOBI_COPY_ALL));
  PORTA_CHECK(tea_k_jacobi_update_into(c, exec, &st->scal.data[TEA_LOOP_L1]));
  PORTA_CHECK(tea_reflect_boundaries_on(c, exec, &u, 1, 1)); /* one rank: u's exchange */
  return PORTA_PARALLEL_FOR_LABELED("tea_jacobi_loop_test", tea_k_jacobi_loop_test_f, exec,
                                    porta_range(0, 1), &ctl);
}
