/** @file tea_deck.c
 *  The reference tea.in format (TeaLeaf_ref read_input.f90), see tealeaf.md sect. 1.10. */
#include "tea_deck.h"

#include <stdio.h>
#include <string.h>

const char *const tea_default_deck =
    "*tea\n"
    "state 1 density=100.0 energy=0.0001\n"
    "state 2 density=0.1 energy=25.0 geometry=rectangle xmin=0.0 xmax=1.0 ymin=1.0 ymax=2.0\n"
    "state 3 density=0.1 energy=0.1 geometry=rectangle xmin=1.0 xmax=6.0 ymin=1.0 ymax=2.0\n"
    "state 4 density=0.1 energy=0.1 geometry=rectangle xmin=5.0 xmax=6.0 ymin=1.0 ymax=8.0\n"
    "state 5 density=0.1 energy=0.1 geometry=rectangle xmin=5.0 xmax=10.0 ymin=7.0 ymax=8.0\n"
    "x_cells=10\n"
    "y_cells=10\n"
    "xmin=0.0\n"
    "ymin=0.0\n"
    "xmax=10.0\n"
    "ymax=10.0\n"
    "initial_timestep=0.004\n"
    "end_step=10\n"
    "tl_max_iters=1000\n"
    "tl_use_jacobi\n"
    "tl_eps=1.0e-15\n"
    "test_problem 1\n"
    "*endtea\n";

typedef struct kw_int {
  const char *key;
  size_t off;
} kw_int;

#define S_OFF(field) offsetof(tea_settings, field)
static const kw_int int_keys[] = {
    {"x_cells", S_OFF(x_cells)},
    {"y_cells", S_OFF(y_cells)},
    {"end_step", S_OFF(end_step)},
    {"summary_frequency", S_OFF(summary_frequency)},
    {"visit_frequency", S_OFF(visit_frequency)},
    {"tl_max_iters", S_OFF(max_iters)},
    {"tl_ch_cg_presteps", S_OFF(ch_cg_presteps)},
    {"tl_ppcg_inner_steps", S_OFF(ppcg_inner_steps)},
    {"halo_depth", S_OFF(halo_depth)},
    {"test_problem", S_OFF(test_problem)},
    {"tiles_per_task", S_OFF(tiles_per_task)},
    {"tiles_per_problem", S_OFF(tiles_per_problem)},
    {"sub_tiles_per_tile", S_OFF(sub_tiles_per_tile)},
};
static const kw_int dbl_keys[] = {
    {"xmin", S_OFF(xmin)},
    {"ymin", S_OFF(ymin)},
    {"xmax", S_OFF(xmax)},
    {"ymax", S_OFF(ymax)},
    {"initial_timestep", S_OFF(initial_timestep)},
    {"end_time", S_OFF(end_time)},
    {"tl_eps", S_OFF(eps)},
    {"tl_ch_cg_epslim", S_OFF(ch_cg_epslim)},
};

static int parse_state(app_deck *d, const app_deck_line *L, tea_settings *s) {
  int n = 0;
  if (L->ntok < 2) return app_deck_error(d, L->line, "'state' needs a state number");
  if (app_deck_int(d, L->line, "state", L->tok[1], &n)) return 1;
  if (n < 1 || n > TEA_MAX_STATES)
    return app_deck_error(d, L->line, "state number %d outside 1..%d", n, TEA_MAX_STATES);
  tea_state *st = &s->states[n - 1];
  if (st->defined) return app_deck_error(d, L->line, "state %d is defined twice", n);
  memset(st, 0, sizeof *st);
  st->defined = true;
  st->geometry = TEA_GEOM_RECTANGLE;
  int have_density = 0, have_energy = 0, have_geometry = 0;
  for (int t = 2; t < L->ntok; t += 2) {
    const char *k = L->tok[t], *v = t + 1 < L->ntok ? L->tok[t + 1] : NULL;
    if (!v) return app_deck_error(d, L->line, "state %d: '%s' has no value", n, k);
    double *dst = NULL;
    if (!strcmp(k, "density")) {
      dst = &st->density;
      have_density = 1;
    } else if (!strcmp(k, "energy")) {
      dst = &st->energy;
      have_energy = 1;
    } else if (!strcmp(k, "xmin")) {
      dst = &st->xmin;
    } else if (!strcmp(k, "ymin")) {
      dst = &st->ymin;
    } else if (!strcmp(k, "xmax")) {
      dst = &st->xmax;
    } else if (!strcmp(k, "ymax")) {
      dst = &st->ymax;
    } else if (!strcmp(k, "radius")) {
      dst = &st->radius;
    } else if (!strcmp(k, "geometry")) {
      have_geometry = 1;
      if (!strcmp(v, "rectangle"))
        st->geometry = TEA_GEOM_RECTANGLE;
      else if (!strcmp(v, "circle") || !strcmp(v, "circular"))
        st->geometry = TEA_GEOM_CIRCLE;
      else if (!strcmp(v, "point"))
        st->geometry = TEA_GEOM_POINT;
      else
        return app_deck_error(d, L->line,
                              "state %d: unknown geometry '%s' (rectangle, circle or point)", n, v);
      continue;
    } else {
      return app_deck_error(d, L->line, "state %d: unknown state keyword '%s'", n, k);
    }
    char key[64];
    snprintf(key, sizeof key, "state %d %s", n, k);
    if (app_deck_double(d, L->line, key, v, dst)) return 1;
  }
  if (!have_density || !have_energy)
    return app_deck_error(d, L->line, "state %d needs density= and energy=", n);
  if (st->density <= 0.0)
    return app_deck_error(d, L->line, "state %d: density must be positive (got %g)", n,
                          st->density);
  if (n > 1 && !have_geometry)
    return app_deck_error(d, L->line, "state %d needs a geometry= (rectangle, circle, point)", n);
  if (n > 1 && st->geometry == TEA_GEOM_RECTANGLE && (st->xmax < st->xmin || st->ymax < st->ymin))
    return app_deck_error(d, L->line, "state %d: rectangle has xmax < xmin or ymax < ymin", n);
  if (n > 1 && st->geometry == TEA_GEOM_CIRCLE && st->radius <= 0.0)
    return app_deck_error(d, L->line, "state %d: circle needs radius > 0", n);
  if (n > s->num_states) s->num_states = n;
  return 0;
}

int tea_deck_parse(app_deck *d, tea_settings *s) {
  tea_settings_defaults(s);
  if (d->nlines == 0) return app_deck_error(d, 0, "the input deck is empty (no *tea block)");
  int begin = -1, end = -1;
  for (int i = 0; i < d->nlines; ++i) {
    if (begin < 0 && !strcmp(d->lines[i].tok[0], "*tea"))
      begin = i;
    else if (begin >= 0 && !strcmp(d->lines[i].tok[0], "*endtea")) {
      end = i;
      break;
    }
  }
  if (begin < 0) return app_deck_error(d, d->lines[0].line, "no '*tea' line starts the deck");
  if (end < 0)
    return app_deck_error(d, d->lines[d->nlines - 1].line,
                          "'*endtea' missing: the *tea block opened on line %d is not closed",
                          d->lines[begin].line);
  int line_precon = 0, line_halo = 0, line_x = 0, line_y = 0, line_visit = 0;
  for (int i = begin + 1; i < end; ++i) {
    const app_deck_line *L = &d->lines[i];
    const char *k = L->tok[0];
    const char *v = L->ntok > 1 ? L->tok[1] : NULL;
    int done = 0;
    if (!strcmp(k, "state")) {
      if (parse_state(d, L, s)) return 1;
      continue;
    }
    if (!strcmp(k, "*tea")) return app_deck_error(d, L->line, "'*tea' inside the *tea block");
    for (size_t j = 0; j < sizeof int_keys / sizeof int_keys[0] && !done; ++j)
      if (!strcmp(k, int_keys[j].key)) {
        if (!v) return app_deck_error(d, L->line, "'%s' needs an integer value", k);
        if (app_deck_int(d, L->line, k, v, (int *)((char *)s + int_keys[j].off))) return 1;
        done = 1;
      }
    for (size_t j = 0; j < sizeof dbl_keys / sizeof dbl_keys[0] && !done; ++j)
      if (!strcmp(k, dbl_keys[j].key)) {
        if (!v) return app_deck_error(d, L->line, "'%s' needs a number", k);
        if (app_deck_double(d, L->line, k, v, (double *)((char *)s + dbl_keys[j].off))) return 1;
        done = 1;
      }
    if (done) {
      if (L->ntok > 2)
        return app_deck_error(d, L->line, "'%s' takes one value, found extra '%s'", k, L->tok[2]);
      if (!strcmp(k, "halo_depth")) line_halo = L->line;
      if (!strcmp(k, "x_cells")) line_x = L->line;
      if (!strcmp(k, "y_cells")) line_y = L->line;
      if (!strcmp(k, "visit_frequency")) line_visit = L->line;
      continue;
    }
    int flag = 1;
    if (!strcmp(k, "tl_use_jacobi"))
      s->solver = TEA_SOLVER_JACOBI;
    else if (!strcmp(k, "tl_use_cg"))
      s->solver = TEA_SOLVER_CG;
    else if (!strcmp(k, "tl_use_chebyshev"))
      s->solver = TEA_SOLVER_CHEBY;
    else if (!strcmp(k, "tl_use_ppcg"))
      s->solver = TEA_SOLVER_PPCG;
    else if (!strcmp(k, "tl_check_result"))
      s->check_result = true;
    else if (!strcmp(k, "tl_coefficient_density"))
      s->coefficient = TEA_COEF_CONDUCTIVITY;
    else if (!strcmp(k, "tl_coefficient_inverse_density"))
      s->coefficient = TEA_COEF_RECIP_CONDUCTIVITY;
    else if (!strcmp(k, "reflective_boundary"))
      s->reflective_boundary = true;
    else if (!strcmp(k, "profiler_on"))
      s->profiler_on = true;
    else if (!strcmp(k, "verbose_on"))
      s->verbose_on = true;
    else if (!strcmp(k, "use_fortran_kernels"))
      s->use_fortran_kernels = true;
    else if (!strcmp(k, "use_c_kernels") || !strcmp(k, "use_cuda_kernels") ||
             !strcmp(k, "use_opencl_kernels")) { /* accepted, no effect */
    } else
      flag = 0;
    if (flag) {
      if (L->ntok > 1)
        return app_deck_error(d, L->line, "'%s' takes no value, found '%s'", k, L->tok[1]);
      continue;
    }
    if (!strcmp(k, "tl_preconditioner_type")) {
      if (!v) return app_deck_error(d, L->line, "'%s' needs none, jac_diag or jac_block", k);
      if (!strcmp(v, "none"))
        s->preconditioner = TEA_PRECON_NONE;
      else if (!strcmp(v, "jac_diag"))
        s->preconditioner = TEA_PRECON_JAC_DIAG;
      else if (!strcmp(v, "jac_block"))
        s->preconditioner = TEA_PRECON_JAC_BLOCK;
      else
        return app_deck_error(d, L->line,
                              "unknown preconditioner '%s' (none, jac_diag or jac_block)", v);
      line_precon = L->line;
      continue;
    }
    if (!strcmp(k, "tl_ch_cg_errswitch")) { /* documented, not parsed by the reference */
      if (v && app_deck_double(d, L->line, k, v, &s->ch_cg_errswitch)) return 1;
      continue;
    }
    if (!strcmp(k, "cuda_device")) { /* TeaLeaf_CUDA; use --porta-device */
      int dev = 0;
      if (!v || app_deck_int(d, L->line, k, v, &dev))
        return v ? 1 : app_deck_error(d, L->line, "'cuda_device' needs a value");
      continue;
    }
    return app_deck_error(d, L->line, "unknown keyword '%s'", k);
  }
  /* checks (the reference's, plus what would otherwise crash) */
  int last = d->lines[end].line;
  if (s->x_cells <= 0)
    return app_deck_error(d, line_x ? line_x : last, "x_cells must be positive (got %d)",
                          s->x_cells);
  if (s->y_cells <= 0)
    return app_deck_error(d, line_y ? line_y : last, "y_cells must be positive (got %d)",
                          s->y_cells);
  if (s->halo_depth < 1)
    return app_deck_error(d, line_halo ? line_halo : last, "halo_depth must be >= 1 (got %d)",
                          s->halo_depth);
  if (s->preconditioner == TEA_PRECON_JAC_BLOCK && s->halo_depth > 1)
    return app_deck_error(d, line_precon > line_halo ? line_precon : line_halo,
                          "the jac_block preconditioner cannot be used with halo_depth > 1 "
                          "(halo_depth %d)",
                          s->halo_depth);
  if (!(s->xmax > s->xmin) || !(s->ymax > s->ymin))
    return app_deck_error(d, last, "the domain needs xmax > xmin and ymax > ymin");
  if (!(s->initial_timestep > 0.0))
    return app_deck_error(d, last, "initial_timestep must be positive");
  if (s->max_iters < 1) return app_deck_error(d, last, "tl_max_iters must be >= 1");
  if (!(s->eps > 0.0)) return app_deck_error(d, last, "tl_eps must be positive");
  if (s->summary_frequency < 0) return app_deck_error(d, last, "summary_frequency must be >= 0");
  if (s->visit_frequency < 0)
    return app_deck_error(d, line_visit ? line_visit : last,
                          "visit_frequency must be >= 0 (0: no snapshots; got %d)",
                          s->visit_frequency);
  if (s->test_problem < 0 || s->test_problem > 6)
    return app_deck_error(d, last, "test_problem must be 0..6 (got %d)", s->test_problem);
  if (!s->states[0].defined)
    return app_deck_error(d, last, "state 1 (the background) is not defined");
  for (int i = 0; i < s->num_states; ++i)
    if (!s->states[i].defined)
      return app_deck_error(d, last, "state %d is missing (states must be numbered 1..%d)", i + 1,
                            s->num_states);
  return 0;
}
