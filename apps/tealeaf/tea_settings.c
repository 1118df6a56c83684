/** @file tea_settings.c
 *  Defaults of the TeaLeaf deck: the values the reference *code* (TeaLeaf_ref v1.403) uses
 *  when a keyword is absent (reference/tealeaf.md sect. 1.10; the README differs). */
#include "tea_settings.h"

#include <limits.h>
#include <math.h>
#include <string.h>

void tea_settings_defaults(tea_settings *s) {
  memset(s, 0, sizeof *s);
  s->num_states = 0;
  for (int i = 0; i < TEA_MAX_STATES; ++i) {
    s->states[i].defined = false;
    s->states[i].geometry = TEA_GEOM_RECTANGLE;
  }
  s->x_cells = 10;
  s->y_cells = 10;
  s->xmin = 0.0;
  s->ymin = 0.0;
  s->xmax = 100.0;
  s->ymax = 100.0;
  s->initial_timestep = 0.1;
  s->end_time = 10.0;
  s->end_step = INT_MAX;
  s->summary_frequency = 10;
  s->visit_frequency = 0;
  s->solver = TEA_SOLVER_JACOBI;
  s->max_iters = 1000;
  s->eps = 1.0e-10;
  s->preconditioner = TEA_PRECON_NONE;
  s->ch_cg_presteps = 25;
  s->ch_cg_epslim = 1.0;
  s->ch_cg_errswitch = 0.0;
  s->ppcg_inner_steps = -1;
  s->check_result = false;
  s->coefficient = TEA_COEF_CONDUCTIVITY;
  s->halo_depth = 1;
  s->reflective_boundary = false;
  s->test_problem = 0;
  s->profiler_on = false;
  s->verbose_on = false;
  s->tiles_per_task = 0;
  s->tiles_per_problem = 0;
  s->sub_tiles_per_tile = 1;
  s->use_fortran_kernels = true;
  s->reproducible = false;
}

int tea_ppcg_inner_steps(const tea_settings *s) {
  if (s->ppcg_inner_steps > 0) return s->ppcg_inner_steps;
  /* reference: 4*INT(SQRT(SQRT(REAL(x_cells*y_cells)))) */
  double cells = (double)s->x_cells * (double)s->y_cells;
  return 4 * (int)sqrt(sqrt(cells));
}

const char *tea_solver_name(tea_solver s) {
  switch (s) {
  case TEA_SOLVER_JACOBI: return "jacobi";
  case TEA_SOLVER_CG: return "cg";
  case TEA_SOLVER_CHEBY: return "chebyshev";
  case TEA_SOLVER_PPCG: return "ppcg";
  }
  return "unknown";
}

const char *tea_precon_name(tea_precon p) {
  switch (p) {
  case TEA_PRECON_NONE: return "none";
  case TEA_PRECON_JAC_DIAG: return "jac_diag";
  case TEA_PRECON_JAC_BLOCK: return "jac_block";
  }
  return "unknown";
}
