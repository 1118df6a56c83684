/** @file tea_solve_cg.c
 *  The CG driver (reference tea_leaf_cg): every iteration a CG iteration (tea_solve.h); on a
 *  GPU the same iterations without a return to the host (tea_loop.h). */
#include "tea_loop.h"

int tea_solve_cg(tea_solve *v) {
  if (tea_solve_on_device(v)) return tea_solve_loop(v); /* the same loop, on the device */
  for (v->n = 1; v->n <= v->last_iter; ++v->n) {
    bool exchanged, reflect;
    PORTA_CHECK(tea_solve_cg_iteration(v, &exchanged, &reflect));
    PORTA_CHECK(tea_solve_iteration_end(v, exchanged, reflect));
    if (v->converged) break;
  }
  return PORTA_SUCCESS;
}
