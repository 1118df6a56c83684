/** @file tea_solve_jacobi.c
 *  The Jacobi driver (reference tea_leaf_jacobi): its iteration, written once as a pass
 *  (tea_pass.h) that runs from the host or is recorded on the device; the convergence value is
 *  the L1 norm of each update (tea_solve.h). */
#include "tea_pass.h"

int tea_jacobi_pass(tea_pass *p) {
  PORTA_CHECK(tea_pass_jacobi_update(p)); /* un = u; the update and its L1 norm */
  PORTA_CHECK(tea_pass_sum(p, TEA_LOOP_L1, 1));
  PORTA_CHECK(tea_pass_jacobi_exchange(p));                             /* u's halo */
  return tea_k_loop_test(p->c->exec, &p->st, &p->decider, TEA_LOOP_L1); /* the test on L1 */
}

int tea_solve_jacobi(tea_solve *v) {
  v->n = 1;
  return tea_pass_run(v, tea_jacobi_pass, "tea_jacobi_loop", NULL, NULL);
}
