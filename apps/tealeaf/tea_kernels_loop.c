/** @file tea_kernels_loop.c
 *  The kernels of the solvers' device loops (tea_loop.h): a solve's start, and the bodies of
 *  CG, Jacobi and Chebyshev and PPCG's own parts. CG's p update reads alpha and beta from device
 * memory; w = A p, the r update (with a preconditioner, the u, r and z update), Jacobi's copy,
 * update and reflection and the norm Chebyshev's test reads are the host loop's own kernels
 * (Chebyshev's update, in tea_kernels_cheby.c, reads its coefficients from device memory: not a
 * reduction, so its bits are the host's); kernels compute alpha = rro / pw, and beta = rrn / rro
 * with the test (tea_loop_test), which decides whether another iteration runs. The divisions are
 * the host loop's, so the bits are its bits (fused, every thread of CG's p update computes beta,
 * the same division, and one cell's thread runs the test: tea_loop.h). Kernel file (C++17
 * compatible). */
#include <string.h>

#include "tea_loop.h"

typedef struct {
  porta_view_f64 u, p, r;
  tea_loop_state st;
  porta_loop_handle loop; /**< the deciding loop's */
  int64_t k0, j0;         /**< the cell whose thread runs the test */
} tea_cg_up_loop_args;

/* u += alpha p; p = r + beta p (beta from the test kernel) */
PORTA_MDFOR2(tea_k_cg_calc_up_loop, tea_cg_up_loop_args, a, k, j) {
  const double alpha = PORTA_AT1(a->st.scal, TEA_LOOP_ALPHA);
  const double beta = PORTA_AT1(a->st.scal, TEA_LOOP_BETA);
  const double p = PORTA_AT2(a->p, k, j);
  PORTA_AT2(a->u, k, j) += alpha * p;
  PORTA_AT2(a->p, k, j) = PORTA_AT2(a->r, k, j) + beta * p;
}

/* beta = rrn / rro; u += alpha p; p = r + beta p; one thread: the test on r.r (rro becomes rrn
   in the next iteration's alpha kernel, after every thread here has read it) */
PORTA_MDFOR2(tea_k_cg_calc_up_test_loop, tea_cg_up_loop_args, a, k, j) {
  const double alpha = PORTA_LDG(PORTA_AT1(a->st.scal, TEA_LOOP_ALPHA));
  const double rrn = PORTA_LDG(PORTA_AT1(a->st.scal, TEA_LOOP_RRN));
  const double beta = rrn / PORTA_LDG(PORTA_AT1(a->st.scal, TEA_LOOP_RRO));
  const double p = PORTA_AT2(a->p, k, j);
  PORTA_AT2(a->u, k, j) += alpha * p;
  PORTA_AT2(a->p, k, j) = PORTA_AT2(a->r, k, j) + beta * p;
  if (k == a->k0 && j == a->j0) porta_loop_decide(&a->loop, tea_loop_test(&a->st, rrn));
}

typedef struct {
  tea_loop_state st;
  tea_loop_start start;   /**< tea_k_loop_start's */
  porta_loop_handle loop; /**< the deciding loop's (the test kernels) */
} tea_loop_ctl_args;

PORTA_FOR(tea_k_loop_start_f, tea_loop_ctl_args, a, i) {
  PORTA_AT1(a->st.scal, TEA_LOOP_RRO) = a->start.rro;
  PORTA_AT1(a->st.scal, TEA_LOOP_RRN) = a->start.rro; /* CG's alpha kernel: rro = rrn */
  PORTA_AT1(a->st.scal, TEA_LOOP_EPS) = a->start.eps_init;
  PORTA_AT1(a->st.scal, TEA_LOOP_ERROR) = a->start.error;
  PORTA_AT1(a->st.ints, TEA_LOOP_N) = 0;
  PORTA_AT1(a->st.ints, TEA_LOOP_STATUS) = TEA_LOOP_RUNNING;
  PORTA_AT1(a->st.ints, TEA_LOOP_N0) = a->start.n0;
  PORTA_AT1(a->st.ints, TEA_LOOP_LAST) = a->start.last;
  PORTA_AT1(a->st.ints, TEA_LOOP_EST) = a->start.est;
  PORTA_AT1(a->st.ints, TEA_LOOP_STEPS0) = a->start.steps - (a->start.n0 + 1);
  PORTA_AT1(a->st.ints, TEA_LOOP_NCOEF) = a->start.ncoef;
  PORTA_AT1(a->st.ints, TEA_LOOP_BASE) = a->start.n0;
  PORTA_AT1(a->st.ints, TEA_LOOP_STOP) = tea_cheby_stop(&a->st);
}

/* rro = rrn (the last iteration's r.r; the start's rro first); alpha = rro / pw */
PORTA_FOR(tea_k_cg_loop_alpha_f, tea_loop_ctl_args, a, i) {
  const double rro = PORTA_AT1(a->st.scal, TEA_LOOP_RRN);
  PORTA_AT1(a->st.scal, TEA_LOOP_RRO) = rro;
  PORTA_AT1(a->st.scal, TEA_LOOP_ALPHA) = rro / PORTA_AT1(a->st.scal, TEA_LOOP_PW);
}

/* beta = rrn / rro; rro = rrn; the test on rrn (r.r for CG): whether another iteration runs
   after this one's p update */
PORTA_FOR(tea_k_cg_loop_test_f, tea_loop_ctl_args, a, i) {
  const double rrn = PORTA_AT1(a->st.scal, TEA_LOOP_RRN);
  PORTA_AT1(a->st.scal, TEA_LOOP_BETA) = rrn / PORTA_AT1(a->st.scal, TEA_LOOP_RRO);
  PORTA_AT1(a->st.scal, TEA_LOOP_RRO) = rrn;
  porta_loop_decide(&a->loop, tea_loop_test(&a->st, rrn));
}

/* PPCG: rro = utemp.r; alpha = rro / pw */
PORTA_FOR(tea_k_ppcg_loop_alpha_f, tea_loop_ctl_args, a, i) {
  const double rro = PORTA_AT1(a->st.scal, TEA_LOOP_RZ);
  PORTA_AT1(a->st.scal, TEA_LOOP_RRO) = rro;
  PORTA_AT1(a->st.scal, TEA_LOOP_ALPHA) = rro / PORTA_AT1(a->st.scal, TEA_LOOP_PW);
}

/* the test on the Jacobi update's L1 norm */
PORTA_FOR(tea_k_jacobi_loop_test_f, tea_loop_ctl_args, a, i) {
  porta_loop_decide(&a->loop, tea_loop_test(&a->st, PORTA_AT1(a->st.scal, TEA_LOOP_L1)));
}

/* Chebyshev's tests of a pass's iterations that ran: r.r where the host loop recomputes its
   error (n >= est, the pass's last, n mod 10 = 0), else the old error square-rooted again;
   then the next pass and its stop */
PORTA_FOR(tea_k_cheby_loop_test_f, tea_loop_ctl_args, a, i) {
  const int64_t base = PORTA_AT1(a->st.ints, TEA_LOOP_BASE);
  const int64_t stop = PORTA_AT1(a->st.ints, TEA_LOOP_STOP);
  int again = 0;
  for (int64_t n = base + 1; n <= stop; ++n) {
    const bool fresh = n == base + TEA_CHEBY_PASS && n >= PORTA_AT1(a->st.ints, TEA_LOOP_EST);
    again = tea_loop_test(&a->st, fresh ? PORTA_AT1(a->st.scal, TEA_LOOP_NORM)
                                        : PORTA_AT1(a->st.scal, TEA_LOOP_ERROR));
    if (!again) break;
  }
  if (again) {
    PORTA_AT1(a->st.ints, TEA_LOOP_BASE) = base + TEA_CHEBY_PASS;
    PORTA_AT1(a->st.ints, TEA_LOOP_STOP) = tea_cheby_stop(&a->st);
  }
  porta_loop_decide(&a->loop, again);
}

/** The arguments of a body's one-thread kernels (the decider taken while recorded). */
static tea_loop_ctl_args tea_loop_ctl(const tea_loop_state *st) {
  tea_loop_ctl_args a;
  memset(&a, 0, sizeof a);
  a.st = *st;
  a.loop = porta_loop_decider();
  return a;
}

int tea_k_loop_start(tea_chunk *c, const tea_loop_state *st, const tea_loop_start *start) {
  tea_loop_ctl_args a;
  memset(&a, 0, sizeof a);
  a.st = *st;
  a.start = *start;
  return PORTA_PARALLEL_FOR_LABELED("tea_loop_start", tea_k_loop_start_f, c->exec,
                                    porta_range(0, 1), &a);
}

int tea_k_cg_loop_iteration(tea_chunk *c, porta_exec exec, const tea_loop_state *st, bool fused) {
  double *scal = st->scal.data;
  tea_loop_ctl_args ctl = tea_loop_ctl(st);
  PORTA_CHECK(tea_k_cg_calc_w_lean_into(c, exec, &scal[TEA_LOOP_PW]));
  PORTA_CHECK(tea_allreduce_sum_on(c, exec, &scal[TEA_LOOP_PW], 1));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_alpha", tea_k_cg_loop_alpha_f, exec,
                                         porta_range(0, 1), &ctl));
  PORTA_CHECK(tea_k_cg_calc_r_into(c, exec, &scal[TEA_LOOP_ALPHA], &scal[TEA_LOOP_RRN]));
  PORTA_CHECK(tea_allreduce_sum_on(c, exec, &scal[TEA_LOOP_RRN], 1));
  const tea_box in = tea_box_interior(c, 0);
  if (!fused)
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_test", tea_k_cg_loop_test_f, exec,
                                           porta_range(0, 1), &ctl));
  tea_cg_up_loop_args up;
  up.u = TEA_F(c, TEA_FIELD_U);
  up.p = TEA_F(c, TEA_FIELD_P);
  up.r = TEA_F(c, TEA_FIELD_R);
  up.st = *st;
  up.loop = ctl.loop;
  up.k0 = in.k0;
  up.j0 = in.j0;
  return fused ? PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up", tea_k_cg_calc_up_test_loop, exec,
                                            tea_policy(in), &up)
               : PORTA_PARALLEL_FOR_LABELED("tea_cg_calc_up", tea_k_cg_calc_up_loop, exec,
                                            tea_policy(in), &up);
}

int tea_k_cg_loop_iteration_pc(tea_chunk *c, porta_exec exec, const tea_loop_state *st,
                               tea_precon pc) {
  double *scal = st->scal.data;
  tea_loop_ctl_args ctl = tea_loop_ctl(st);
  const int p = TEA_FIELD_P;
  PORTA_CHECK(tea_k_cg_calc_w_into(c, exec, &scal[TEA_LOOP_PW]));
  PORTA_CHECK(tea_allreduce_sum_on(c, exec, &scal[TEA_LOOP_PW], 1));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_alpha", tea_k_cg_loop_alpha_f, exec,
                                         porta_range(0, 1), &ctl));
  PORTA_CHECK(tea_k_cg_calc_ur_into(c, exec, pc, &scal[TEA_LOOP_ALPHA], &scal[TEA_LOOP_RRN]));
  PORTA_CHECK(tea_allreduce_sum_on(c, exec, &scal[TEA_LOOP_RRN], 1));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_cg_loop_test", tea_k_cg_loop_test_f, exec,
                                         porta_range(0, 1), &ctl));
  PORTA_CHECK(tea_k_cg_calc_p_at(c, exec, TEA_FIELD_Z, &scal[TEA_LOOP_BETA]));
  return tea_halo_exchange_on(c, exec, &p, 1, 1, true);
}

int tea_k_jacobi_loop_iteration(tea_chunk *c, porta_exec exec, const tea_loop_state *st) {
  tea_loop_ctl_args ctl = tea_loop_ctl(st);
  const int u = TEA_FIELD_U;
  PORTA_CHECK(tea_k_jacobi_copy_on(c, exec, TEA_JACOBI_COPY_ALL));
  PORTA_CHECK(tea_k_jacobi_update_into(c, exec, &st->scal.data[TEA_LOOP_L1]));
  PORTA_CHECK(tea_allreduce_sum_on(c, exec, &st->scal.data[TEA_LOOP_L1], 1));
  PORTA_CHECK(tea_halo_exchange_on(c, exec, &u, 1, 1, true));
  return PORTA_PARALLEL_FOR_LABELED("tea_jacobi_loop_test", tea_k_jacobi_loop_test_f, exec,
                                    porta_range(0, 1), &ctl);
}

int tea_k_cheby_loop_pass(tea_chunk *c, porta_exec exec, const tea_loop_state *st, tea_precon pc,
                          porta_view_f64 alphas, porta_view_f64 betas) {
  tea_loop_ctl_args ctl = tea_loop_ctl(st);
  const int u = TEA_FIELD_U;
  for (int64_t slot = 1; slot <= TEA_CHEBY_PASS; ++slot) {
    PORTA_CHECK(tea_k_cheby_loop_update(c, exec, pc, alphas, betas, st->ints, slot));
    /* u's exchange; after the stop it exchanges u as it is (the same values) */
    PORTA_CHECK(tea_halo_exchange_on(c, exec, &u, 1, 1, true));
  }
  PORTA_CHECK(tea_k_norm2_into(c, exec, TEA_FIELD_R, &st->scal.data[TEA_LOOP_NORM]));
  PORTA_CHECK(tea_allreduce_sum_on(c, exec, &st->scal.data[TEA_LOOP_NORM], 1));
  return PORTA_PARALLEL_FOR_LABELED("tea_cheby_loop_test", tea_k_cheby_loop_test_f, exec,
                                    porta_range(0, 1), &ctl);
}

int tea_k_ppcg_loop_first(tea_chunk *c, porta_exec exec, const tea_loop_state *st, tea_precon pc) {
  tea_loop_ctl_args ctl = tea_loop_ctl(st);
  double *scal = st->scal.data;
  PORTA_CHECK(tea_k_ppcg_calc_w_store_into(c, exec, &scal[TEA_LOOP_PW]));
  PORTA_CHECK(tea_allreduce_sum_on(c, exec, &scal[TEA_LOOP_PW], 2)); /* p.w and utemp.r */
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_ppcg_loop_alpha", tea_k_ppcg_loop_alpha_f, exec,
                                         porta_range(0, 1), &ctl));
  return tea_k_cg_calc_ur_at(c, exec, pc, &scal[TEA_LOOP_ALPHA]);
}

int tea_k_ppcg_loop_last(tea_chunk *c, porta_exec exec, const tea_loop_state *st) {
  tea_loop_ctl_args ctl = tea_loop_ctl(st);
  double *scal = st->scal.data;
  const int p = TEA_FIELD_P;
  PORTA_CHECK(tea_k_ppcg_calc_rrn_into(c, exec, &scal[TEA_LOOP_RRN]));
  PORTA_CHECK(tea_allreduce_sum_on(c, exec, &scal[TEA_LOOP_RRN], 1));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_ppcg_loop_test", tea_k_cg_loop_test_f, exec,
                                         porta_range(0, 1), &ctl));
  PORTA_CHECK(tea_k_cg_calc_p_at(c, exec, TEA_FIELD_UTEMP, &scal[TEA_LOOP_BETA]));
  return tea_halo_exchange_on(c, exec, &p, 1, 1, true);
}
