/** @file tea_kernels_jacobi.c
 *  Jacobi iteration (reference tea_leaf_jacobi_solve_kernel): un = u, then
 *  u = (u0 + rx(Kx(j+1) un(j+1) + Kx(j) un(j-1)) + ry(Ky(k+1) un(k+1) + Ky(k) un(k-1)))
 *      / (1 + rx(Kx(j) + Kx(j+1)) + ry(Ky(k) + Ky(k+1)))
 *  and error = sum |u - un| (an L1 norm, as the reference). Kernel file (C++17 compatible). */
#include "tea_pass.h"

typedef struct {
  porta_view_f64 u, un, u0, kx, ky;
  double rx, ry;
  tea_split frame; /**< the halo's first layer (the ring of the interior grown by 1) */
} tea_jac_args;

PORTA_FORCEINLINE_FUNCTION void tea_jac_copy_cell(const tea_jac_args *a, int64_t k, int64_t j) {
  PORTA_AT2(a->un, k, j) = PORTA_AT2(a->u, k, j);
}

PORTA_MDFOR2(tea_k_jac_copy, tea_jac_args, a, k, j) { tea_jac_copy_cell(a, k, j); }

PORTA_FOR(tea_k_jac_copy_frame, tea_jac_args, a, i) {
  int64_t k, j;
  tea_split_ring_cell(&a->frame, i, &k, &j);
  tea_jac_copy_cell(a, k, j);
}

/* u = Jacobi update; err += |u - un| */
APP_SUM_KERNEL_MD2(tea_k_jac_update, tea_jac_args, a, k, j) {
  double num = PORTA_AT2(a->u0, k, j) +
               a->rx * (PORTA_AT2(a->kx, k, j + 1) * PORTA_AT2(a->un, k, j + 1) +
                        PORTA_AT2(a->kx, k, j) * PORTA_AT2(a->un, k, j - 1)) +
               a->ry * (PORTA_AT2(a->ky, k + 1, j) * PORTA_AT2(a->un, k + 1, j) +
                        PORTA_AT2(a->ky, k, j) * PORTA_AT2(a->un, k - 1, j));
  double den = 1.0 + a->rx * (PORTA_AT2(a->kx, k, j) + PORTA_AT2(a->kx, k, j + 1)) +
               a->ry * (PORTA_AT2(a->ky, k, j) + PORTA_AT2(a->ky, k + 1, j));
  double u = num / den;
  PORTA_AT2(a->u, k, j) = u;
  return fabs(u - PORTA_AT2(a->un, k, j));
}

static tea_jac_args tea_jac_make(tea_chunk *c) {
  tea_jac_args a;
  a.u = TEA_F(c, TEA_FIELD_U);
  a.un = TEA_F(c, TEA_FIELD_UN);
  a.u0 = TEA_F(c, TEA_FIELD_U0);
  a.kx = TEA_F(c, TEA_FIELD_KX);
  a.ky = TEA_F(c, TEA_FIELD_KY);
  a.rx = c->rx;
  a.ry = c->ry;
  memset(&a.frame, 0, sizeof a.frame);
  return a;
}

int tea_k_jacobi_copy(tea_chunk *c, tea_jacobi_copy part) {
  const porta_exec exec = c->exec;
  tea_jac_args a = tea_jac_make(c);
  const int64_t h = c->halo; /* un is read one cell into the halo on every side */
  if (part == TEA_JACOBI_COPY_ALL)
    return PORTA_PARALLEL_FOR_LABELED("tea_jacobi_copy", tea_k_jac_copy, exec,
                                      porta_mdrange2(h - 1, h + c->ny + 1, h - 1, h + c->nx + 1),
                                      &a);
  if (part == TEA_JACOBI_COPY_INTERIOR)
    return PORTA_PARALLEL_FOR_LABELED("tea_jacobi_copy_interior", tea_k_jac_copy, exec,
                                      tea_policy(tea_box_interior(c, 0)), &a);
  const tea_box grown = {h - 1, h + c->ny + 1, h - 1, h + c->nx + 1};
  tea_split_box(&a.frame, grown, 1);
  return PORTA_PARALLEL_FOR_LABELED("tea_jacobi_copy_frame", tea_k_jac_copy_frame, exec,
                                    porta_range(0, a.frame.ring), &a);
}

int tea_k_jacobi_update(tea_chunk *c, app_sum_to err) {
  const porta_exec exec = c->exec;
  tea_jac_args a = tea_jac_make(c);
  return APP_SUM_REDUCE_INTO(tea_k_jac_update, "tea_jacobi", exec,
                             tea_policy(tea_box_interior(c, 0)), &a, err);
}

/* the test on one scalar (Jacobi: the update's L1 norm) */
PORTA_FOR(tea_k_loop_test_f, tea_loop_ctl_args, a, i) {
  porta_loop_decide(&a->loop, tea_loop_test(&a->st, a->st.scal[a->slot]));
}

int tea_k_loop_test(porta_exec exec, const tea_loop_state *st, const porta_loop_handle *decider,
                    int slot) {
  tea_loop_ctl_args a = tea_loop_ctl_of(st, decider);
  a.slot = slot;
  return PORTA_PARALLEL_FOR_LABELED("tea_jacobi_loop_test", tea_k_loop_test_f, exec,
                                    porta_range(0, 1), &a);
}
