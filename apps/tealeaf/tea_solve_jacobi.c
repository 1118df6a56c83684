/** @file tea_solve_jacobi.c
 *  The Jacobi driver (reference tea_leaf_jacobi): its iteration, written once as a pass
 *  (tea_pass.h) that runs from the host or is recorded on the device; the convergence value is
 *  the L1 norm of each update (tea_solve.h). */
#include "tea_pass.h"

/** un = u and the update, L1 = its L1 norm. */
static int jacobi_update(tea_pass *p) {
  tea_chunk *c = p->c;
  porta_exec side;
  /* un = u: all of it, but beside the exchanges after the first iteration the interior was
     copied beside the last exchange and the halo's first layer now has its values (reflected
     too) */
  const bool frame = tea_halo_beside(c, &side) && p->v->n > 1;
  PORTA_CHECK(tea_k_jacobi_copy(c, frame ? TEA_JACOBI_COPY_FRAME : TEA_JACOBI_COPY_ALL));
  return tea_k_jacobi_update(c, tea_pass_to(p, TEA_LOOP_L1));
}

/** u's exchange, its faces reflected (from the host: beside the next iteration's copy of the
 *  interior where the chunk has an instance for it). */
static int jacobi_exchange(tea_pass *p) {
  tea_chunk *c = p->c;
  porta_exec side;
  if (!tea_halo_beside(c, &side)) return tea_pass_exchange(p, TEA_FIELD_U, true);
  /* the exchange of u beside the next iteration's copy of the interior (the copy reads the
     interior only, the exchange writes only the halo) */
  const int u = TEA_FIELD_U;
  PORTA_CHECK(tea_k_jacobi_copy(c, TEA_JACOBI_COPY_INTERIOR));
  PORTA_CHECK(tea_halo_exchange_beside(c, &u, 1, 1));
  return tea_reflect_boundaries(c, &u, 1, 1);
}

int tea_jacobi_pass(tea_pass *p) {
  PORTA_CHECK(jacobi_update(p)); /* un = u; the update and its L1 norm */
  PORTA_CHECK(tea_pass_sum(p, TEA_LOOP_L1, 1));
  PORTA_CHECK(jacobi_exchange(p));                                      /* u's halo */
  return tea_k_loop_test(p->c->exec, &p->st, &p->decider, TEA_LOOP_L1); /* the test on L1 */
}

int tea_solve_jacobi(tea_solve *v) {
  v->n = 1;
  return tea_pass_run(v, tea_jacobi_pass, "tea_jacobi_loop", NULL, NULL);
}
