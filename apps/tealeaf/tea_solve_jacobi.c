/** @file tea_solve_jacobi.c
 *  The Jacobi driver (reference tea_leaf_jacobi): the convergence value is the L1 norm of each
 *  update (tea_solve.h); on a GPU the same iterations without a return to the host
 *  (tea_loop.h). */
#include "tea_loop.h"

/* One iteration; *exchanged: u's exchange ran beside the next iteration's copy. */
static int jacobi_iteration(tea_solve *v, bool *exchanged) {
  tea_chunk *c = v->c;
  porta_exec side;
  *exchanged = false;
  if (!tea_halo_beside(c, &side)) {
    PORTA_CHECK(tea_k_jacobi(c, &v->error));
    return tea_allreduce_sum(c, &v->error, 1);
  }
  /* un = u: all of it at first; later the interior was copied beside the last exchange, and
     the halo's first layer now has its values (reflected too) */
  PORTA_CHECK(tea_k_jacobi_copy(c, v->n == 1 ? TEA_JACOBI_COPY_ALL : TEA_JACOBI_COPY_FRAME));
  PORTA_CHECK(tea_k_jacobi_update(c, &v->error));
  PORTA_CHECK(tea_allreduce_sum(c, &v->error, 1));
  /* the exchange of u beside the next iteration's copy of the interior (the copy reads the
     interior only, the exchange writes only the halo) */
  PORTA_CHECK(tea_k_jacobi_copy(c, TEA_JACOBI_COPY_INTERIOR));
  PORTA_CHECK(tea_halo_exchange_beside(c, &v->exch, 1, 1));
  *exchanged = true;
  return PORTA_SUCCESS;
}

int tea_solve_jacobi(tea_solve *v) {
  if (tea_solve_on_device(v)) return tea_solve_loop(v); /* the same loop, on the device */
  for (v->n = 1; v->n <= v->last_iter; ++v->n) {
    bool exchanged;
    PORTA_CHECK(jacobi_iteration(v, &exchanged));
    PORTA_CHECK(tea_solve_iteration_end(v, exchanged, true));
    if (v->converged) break;
  }
  return PORTA_SUCCESS;
}
