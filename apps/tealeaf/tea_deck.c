/** @file tea_deck.c
 *  The reference tea.in format (TeaLeaf_ref read_input.f90), see tealeaf.md sect. 1.10. */
#include "tea_deck.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_mpi.h"
#include "tea_chunk.h"

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
  if (!isfinite(st->energy * st->density) || !isfinite(1.0 / st->density))
    return app_deck_error(d, L->line,
                          "state %d: density %g and energy %g are out of range (u = energy x "
                          "density = %g and 1/density = %g must be finite)",
                          n, st->density, st->energy, st->energy * st->density, 1.0 / st->density);
  if (n > 1 && !have_geometry)
    return app_deck_error(d, L->line, "state %d needs a geometry= (rectangle, circle, point)", n);
  if (n > 1 && st->geometry == TEA_GEOM_RECTANGLE && (st->xmax < st->xmin || st->ymax < st->ymin))
    return app_deck_error(d, L->line, "state %d: rectangle has xmax < xmin or ymax < ymin", n);
  if (n > 1 && st->geometry == TEA_GEOM_CIRCLE && st->radius <= 0.0)
    return app_deck_error(d, L->line, "state %d: circle needs radius > 0", n);
  if (n > s->num_states) s->num_states = n;
  return 0;
}

/* Limits beyond which a deck is refused (the code itself would overflow or never finish). */
#define TEA_MAX_STEPS 10000000      /* time steps a run may aim at */
#define TEA_MAX_INNER_STEPS 1000000 /* tl_ppcg_inner_steps */
/* a row or column with its halos, its vertex and its alignment padding must fit in an int */
#define TEA_MAX_EXTENT (INT_MAX - 1024)

/* Where each key was given: 0 when it was not (the checks then name the *endtea line). */
typedef struct tea_deck_lines {
  const int *int_line, *dbl_line;
  int last, precon;
} tea_deck_lines;

/* The line `key` was given on, or 0. */
static int given_line(const tea_deck_lines *ln, const char *key) {
  for (size_t j = 0; j < sizeof int_keys / sizeof int_keys[0]; ++j)
    if (!strcmp(key, int_keys[j].key)) return ln->int_line[j];
  for (size_t j = 0; j < sizeof dbl_keys / sizeof dbl_keys[0]; ++j)
    if (!strcmp(key, dbl_keys[j].key)) return ln->dbl_line[j];
  return 0;
}

/* The line to name for `key`: where it was given, else the *endtea line. */
static int key_line(const tea_deck_lines *ln, const char *key) {
  int line = given_line(ln, key);
  return line ? line : ln->last;
}

/* The later of two keys' lines (the one that completes a combination); the *endtea line when
 * neither was given. */
static int later_line(const tea_deck_lines *ln, const char *k1, const char *k2) {
  int a = given_line(ln, k1), b = given_line(ln, k2);
  return a || b ? (a > b ? a : b) : ln->last;
}

/* Physical memory of this node in bytes (0 when unknown). */
static double tea_physical_memory(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return (double)pages * (double)page;
#endif
  return 0.0;
}

/* The grid: sizes that fit 32-bit indices, fields that fit in memory, finite cell sizes. */
static int tea_check_grid(app_deck *d, const tea_settings *s, const tea_deck_lines *ln) {
  const int64_t h = s->halo_depth, cells[2] = {s->x_cells, s->y_cells};
  for (int a = 0; a < 2; ++a) {
    const char *key = a ? "y_cells" : "x_cells";
    const int64_t ext = cells[a] + 2 * h; /* 64-bit: no wrap */
    if (ext <= TEA_MAX_EXTENT) continue;
    if (2 * h > cells[a])
      return app_deck_error(d, key_line(ln, "halo_depth"),
                            "halo_depth %d is too large: %s %lld plus 2 x halo_depth halo cells is "
                            "%lld, more than %d",
                            s->halo_depth, key, (long long)cells[a], (long long)ext,
                            TEA_MAX_EXTENT);
    return app_deck_error(d, key_line(ln, key),
                          "%s %lld is too large: with 2 x halo_depth %d halo cells a %s has %lld "
                          "cells, more than %d",
                          key, (long long)cells[a], s->halo_depth, a ? "column" : "row",
                          (long long)ext, TEA_MAX_EXTENT);
  }
  /* every field with its halos and alignment padding (app_field2d_create), double precision */
  const double bytes = (double)TEA_NUM_FIELDS * (double)sizeof(double) *
                       (double)(cells[1] + 2 * h) * (double)(cells[0] + 2 * h + 64);
  int nranks = 1, mpi_up = 0;
  if (MPI_Initialized(&mpi_up) == MPI_SUCCESS && mpi_up) MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const double phys = tea_physical_memory(), avail = phys * (double)(nranks > 1 ? nranks : 1);
  if (phys > 0.0 && bytes > avail) {
    const int line = 2 * h > (cells[0] > cells[1] ? cells[0] : cells[1])
                         ? key_line(ln, "halo_depth")
                         : later_line(ln, "x_cells", "y_cells");
    char per[96] = "";
    if (nranks > 1) snprintf(per, sizeof per, " (%d ranks: %d times one node's)", nranks, nranks);
    return app_deck_error(d, line,
                          "x_cells %d x y_cells %d (halo_depth %d) needs %.3g GB for its %d "
                          "fields, more than the %.3g GB of physical memory%s",
                          s->x_cells, s->y_cells, s->halo_depth, bytes / 1e9, TEA_NUM_FIELDS,
                          avail / 1e9, per);
  }
  /* the domain: ordered, cell sizes finite and nonzero, dt/dx^2 finite */
  if (!(s->xmax > s->xmin))
    return app_deck_error(d, later_line(ln, "xmin", "xmax"),
                          "the domain needs xmax > xmin (xmin %g, xmax %g)", s->xmin, s->xmax);
  if (!(s->ymax > s->ymin))
    return app_deck_error(d, later_line(ln, "ymin", "ymax"),
                          "the domain needs ymax > ymin (ymin %g, ymax %g)", s->ymin, s->ymax);
  for (int a = 0; a < 2; ++a) {
    const double lo = a ? s->ymin : s->xmin, hi = a ? s->ymax : s->xmax;
    const double w = (hi - lo) / (double)cells[a];
    const char *kmin = a ? "ymin" : "xmin", *kmax = a ? "ymax" : "xmax";
    if (!isfinite(hi - lo) || !isfinite(w * w) || !(w * w > 0.0))
      return app_deck_error(d, later_line(ln, kmin, kmax),
                            "cell size (%s - %s)/%s = %g is out of range (its square must be "
                            "finite and nonzero)",
                            kmax, kmin, a ? "y_cells" : "x_cells", w);
    if (!isfinite(s->initial_timestep / (w * w)))
      return app_deck_error(d, key_line(ln, "initial_timestep"),
                            "initial_timestep %g is out of range: initial_timestep / d%c^2 = %g "
                            "is not finite",
                            s->initial_timestep, a ? 'y' : 'x', s->initial_timestep / (w * w));
  }
  return 0;
}

/* Checks after parsing (the reference's, plus what would otherwise overflow, crash, give
 * non-finite results or never end), each returning app_deck_error's code or 0; the first
 * failing check is reported. */

/* The grid's cells and the halo (and the preconditioner it allows). */
static int check_cells(app_deck *d, const tea_settings *s, const tea_deck_lines *ln) {
  if (s->x_cells <= 0)
    return app_deck_error(d, key_line(ln, "x_cells"), "x_cells must be positive (got %d)",
                          s->x_cells);
  if (s->y_cells <= 0)
    return app_deck_error(d, key_line(ln, "y_cells"), "y_cells must be positive (got %d)",
                          s->y_cells);
  if (s->halo_depth < 1)
    return app_deck_error(d, key_line(ln, "halo_depth"), "halo_depth must be >= 1 (got %d)",
                          s->halo_depth);
  const int line_halo = given_line(ln, "halo_depth");
  if (s->preconditioner == TEA_PRECON_JAC_BLOCK && s->halo_depth > 1)
    return app_deck_error(d, ln->precon > line_halo ? ln->precon : line_halo,
                          "the jac_block preconditioner cannot be used with halo_depth > 1 "
                          "(halo_depth %d)",
                          s->halo_depth);
  return 0;
}

/* The time step and the number of steps the run would take. */
static int check_steps(app_deck *d, const tea_settings *s, const tea_deck_lines *ln) {
  if (!(s->initial_timestep > 0.0))
    return app_deck_error(d, key_line(ln, "initial_timestep"),
                          "initial_timestep must be positive (got %g)", s->initial_timestep);
  /* given, they must mean a run: the loop would still run one step */
  if (given_line(ln, "end_step") && s->end_step < 1)
    return app_deck_error(d, given_line(ln, "end_step"), "end_step must be >= 1 (got %d)",
                          s->end_step);
  if (given_line(ln, "end_time") && !(s->end_time > 0.0))
    return app_deck_error(d, given_line(ln, "end_time"), "end_time must be positive (got %g)",
                          s->end_time);
  /* the run stops at end_step or once time passes end_time, whichever comes first */
  const double by_time = s->end_time > 0.0 ? ceil(s->end_time / s->initial_timestep) : 1.0;
  const double steps = by_time < (double)s->end_step ? by_time : (double)s->end_step;
  if (steps > TEA_MAX_STEPS) {
    const int line = given_line(ln, "initial_timestep") ? given_line(ln, "initial_timestep")
                     : given_line(ln, "end_time")       ? given_line(ln, "end_time")
                                                        : key_line(ln, "end_step");
    return app_deck_error(d, line,
                          "initial_timestep %g with end_time %g and end_step %d means %.3g time "
                          "steps, more than the limit of %d (set end_step, or a larger "
                          "initial_timestep)",
                          s->initial_timestep, s->end_time, s->end_step, steps, TEA_MAX_STEPS);
  }
  return 0;
}

/* The solver's settings. */
static int check_solver(app_deck *d, const tea_settings *s, const tea_deck_lines *ln) {
  if (s->max_iters < 1)
    return app_deck_error(d, key_line(ln, "tl_max_iters"), "tl_max_iters must be >= 1 (got %d)",
                          s->max_iters);
  if (!(s->eps > 0.0))
    return app_deck_error(d, key_line(ln, "tl_eps"), "tl_eps must be positive (got %g)", s->eps);
  if ((s->solver == TEA_SOLVER_CHEBY || s->solver == TEA_SOLVER_PPCG) && s->ch_cg_presteps < 1)
    return app_deck_error(d, key_line(ln, "tl_ch_cg_presteps"),
                          "tl_ch_cg_presteps must be >= 1 with the %s solver (got %d)",
                          tea_solver_name(s->solver), s->ch_cg_presteps);
  if (s->ppcg_inner_steps < 1 && s->ppcg_inner_steps != -1) /* -1: the reference's default */
    return app_deck_error(d, key_line(ln, "tl_ppcg_inner_steps"),
                          "tl_ppcg_inner_steps must be >= 1, or -1 for 4 (cells)^(1/4) (got %d)",
                          s->ppcg_inner_steps);
  if ((s->solver == TEA_SOLVER_CHEBY || s->solver == TEA_SOLVER_PPCG) && s->ch_cg_epslim < 0.0)
    return app_deck_error(d, key_line(ln, "tl_ch_cg_epslim"),
                          "tl_ch_cg_epslim must be >= 0 with the %s solver (got %g: it would "
                          "never switch from CG)",
                          tea_solver_name(s->solver), s->ch_cg_epslim);
  if (s->ppcg_inner_steps > TEA_MAX_INNER_STEPS)
    return app_deck_error(d, key_line(ln, "tl_ppcg_inner_steps"),
                          "tl_ppcg_inner_steps must be at most %d (got %d)", TEA_MAX_INNER_STEPS,
                          s->ppcg_inner_steps);
  return 0;
}

/* The output frequencies and the test problem. */
static int check_output(app_deck *d, const tea_settings *s, const tea_deck_lines *ln) {
  if (s->summary_frequency < 0)
    return app_deck_error(d, key_line(ln, "summary_frequency"),
                          "summary_frequency must be >= 0 (got %d)", s->summary_frequency);
  if (s->visit_frequency < 0)
    return app_deck_error(d, key_line(ln, "visit_frequency"),
                          "visit_frequency must be >= 0 (0: no snapshots; got %d)",
                          s->visit_frequency);
  if (s->test_problem < 0 || s->test_problem > 6)
    return app_deck_error(d, key_line(ln, "test_problem"), "test_problem must be 0..6 (got %d)",
                          s->test_problem);
  return 0;
}

/* The states: the background and no gap in their numbers. */
static int check_states(app_deck *d, const tea_settings *s, const tea_deck_lines *ln) {
  if (!s->states[0].defined)
    return app_deck_error(d, ln->last, "state 1 (the background) is not defined");
  for (int i = 0; i < s->num_states; ++i)
    if (!s->states[i].defined)
      return app_deck_error(d, ln->last, "state %d is missing (states must be numbered 1..%d)",
                            i + 1, s->num_states);
  return 0;
}

/* The operator's diagonal 1 + 2 (rx + ry) K (K: the largest face coefficient, 1/density or
   density) times the largest u must be a double, or the first residual is not finite. */
static int check_operator(app_deck *d, const tea_settings *s, const tea_deck_lines *ln) {
  double kmax = 0.0, umax = 0.0;
  for (int i = 0; i < s->num_states; ++i) {
    const tea_state *st = &s->states[i];
    const double k =
        s->coefficient == TEA_COEF_RECIP_CONDUCTIVITY ? st->density : 1.0 / st->density;
    if (k > kmax) kmax = k;
    if (fabs(st->energy * st->density) > umax) umax = fabs(st->energy * st->density);
  }
  const double dx = (s->xmax - s->xmin) / s->x_cells, dy = (s->ymax - s->ymin) / s->y_cells;
  const double rxy = s->initial_timestep / (dx * dx) + s->initial_timestep / (dy * dy);
  const double diag = 1.0 + 2.0 * rxy * kmax;
  if (!isfinite(diag * (umax > 1.0 ? umax : 1.0)))
    return app_deck_error(d, key_line(ln, "initial_timestep"),
                          "initial_timestep %g is out of range for this grid and these states: "
                          "dt/dx^2 + dt/dy^2 = %g with face coefficients up to %g and u up to %g "
                          "overflows double precision",
                          s->initial_timestep, rxy, kmax, umax);
  return 0;
}

static int tea_deck_check(app_deck *d, const tea_settings *s, int last, const int *int_line,
                          const int *dbl_line, int line_precon) {
  const tea_deck_lines lnv = {int_line, dbl_line, last, line_precon}, *ln = &lnv;
  int rc = check_cells(d, s, ln);
  if (rc == 0 && tea_check_grid(d, s, ln)) rc = 1;
  if (rc == 0) rc = check_steps(d, s, ln);
  if (rc == 0) rc = check_solver(d, s, ln);
  if (rc == 0) rc = check_output(d, s, ln);
  if (rc == 0) rc = check_states(d, s, ln);
  if (rc == 0) rc = check_operator(d, s, ln);
  return rc;
}

/* The lines of the *tea block: *begin the '*tea' line's index, *end the '*endtea' line's. */
static int find_block(app_deck *d, int *begin, int *end) {
  if (d->nlines == 0) return app_deck_error(d, 0, "the input deck is empty (no *tea block)");
  *begin = *end = -1;
  for (int i = 0; i < d->nlines; ++i) {
    if (*begin < 0 && !strcmp(d->lines[i].tok[0], "*tea"))
      *begin = i;
    else if (*begin >= 0 && !strcmp(d->lines[i].tok[0], "*endtea")) {
      *end = i;
      break;
    }
  }
  if (*begin < 0) return app_deck_error(d, d->lines[0].line, "no '*tea' line starts the deck");
  if (*end < 0)
    return app_deck_error(d, d->lines[d->nlines - 1].line,
                          "'*endtea' missing: the *tea block opened on line %d is not closed",
                          d->lines[*begin].line);
  return 0;
}

/* A keyword of one integer or real value (int_keys, dbl_keys): *done when L is one; its line
   kept for the checks' messages. */
static int parse_number_key(app_deck *d, const app_deck_line *L, tea_settings *s, int *int_line,
                            int *dbl_line, int *done) {
  const char *k = L->tok[0];
  const char *v = L->ntok > 1 ? L->tok[1] : NULL;
  *done = 0;
  for (size_t j = 0; j < sizeof int_keys / sizeof int_keys[0] && !*done; ++j)
    if (!strcmp(k, int_keys[j].key)) {
      if (!v) return app_deck_error(d, L->line, "'%s' needs an integer value", k);
      if (app_deck_int(d, L->line, k, v, (int *)((char *)s + int_keys[j].off))) return 1;
      int_line[j] = L->line;
      *done = 1;
    }
  for (size_t j = 0; j < sizeof dbl_keys / sizeof dbl_keys[0] && !*done; ++j)
    if (!strcmp(k, dbl_keys[j].key)) {
      if (!v) return app_deck_error(d, L->line, "'%s' needs a number", k);
      if (app_deck_double(d, L->line, k, v, (double *)((char *)s + dbl_keys[j].off))) return 1;
      dbl_line[j] = L->line;
      *done = 1;
    }
  if (*done && L->ntok > 2)
    return app_deck_error(d, L->line, "'%s' takes one value, found extra '%s'", k, L->tok[2]);
  return 0;
}

/* A keyword without a value (a solver, a switch): *done when L is one. */
static int parse_flag_key(app_deck *d, const app_deck_line *L, tea_settings *s, int *done) {
  const char *k = L->tok[0];
  *done = 1;
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
    *done = 0;
  if (*done && L->ntok > 1)
    return app_deck_error(d, L->line, "'%s' takes no value, found '%s'", k, L->tok[1]);
  return 0;
}

/* The other keywords: the preconditioner, two accepted for other TeaLeafs; anything else is
   unknown. */
static int parse_other_key(app_deck *d, const app_deck_line *L, tea_settings *s, int *line_precon) {
  const char *k = L->tok[0];
  const char *v = L->ntok > 1 ? L->tok[1] : NULL;
  if (!strcmp(k, "tl_preconditioner_type")) {
    if (!v) return app_deck_error(d, L->line, "'%s' needs none, jac_diag or jac_block", k);
    if (!strcmp(v, "none"))
      s->preconditioner = TEA_PRECON_NONE;
    else if (!strcmp(v, "jac_diag"))
      s->preconditioner = TEA_PRECON_JAC_DIAG;
    else if (!strcmp(v, "jac_block"))
      s->preconditioner = TEA_PRECON_JAC_BLOCK;
    else
      return app_deck_error(d, L->line, "unknown preconditioner '%s' (none, jac_diag or jac_block)",
                            v);
    *line_precon = L->line;
    return 0;
  }
  if (!strcmp(k, "tl_ch_cg_errswitch")) /* documented, not parsed by the reference */
    return v && app_deck_double(d, L->line, k, v, &s->ch_cg_errswitch) ? 1 : 0;
  if (!strcmp(k, "cuda_device")) { /* TeaLeaf_CUDA; use --porta-device */
    int dev = 0;
    if (!v || app_deck_int(d, L->line, k, v, &dev))
      return v ? 1 : app_deck_error(d, L->line, "'cuda_device' needs a value");
    return 0;
  }
  return app_deck_error(d, L->line, "unknown keyword '%s'", k);
}

int tea_deck_parse(app_deck *d, tea_settings *s) {
  tea_settings_defaults(s);
  int begin = -1, end = -1, rc = find_block(d, &begin, &end);
  if (rc) return rc;
  int line_precon = 0;
  int int_line[sizeof int_keys / sizeof int_keys[0]] = {0};
  int dbl_line[sizeof dbl_keys / sizeof dbl_keys[0]] = {0};
  for (int i = begin + 1; i < end; ++i) {
    const app_deck_line *L = &d->lines[i];
    const char *k = L->tok[0];
    int done = 0;
    if (!strcmp(k, "state")) {
      if (parse_state(d, L, s)) return 1;
      continue;
    }
    if (!strcmp(k, "*tea")) return app_deck_error(d, L->line, "'*tea' inside the *tea block");
    if ((rc = parse_number_key(d, L, s, int_line, dbl_line, &done)) != 0 || done) {
      if (rc) return rc;
      continue;
    }
    if ((rc = parse_flag_key(d, L, s, &done)) != 0 || done) {
      if (rc) return rc;
      continue;
    }
    if ((rc = parse_other_key(d, L, s, &line_precon)) != 0) return rc;
  }
  return tea_deck_check(d, s, d->lines[end].line, int_line, dbl_line, line_precon);
}

/* Whether the deck file does not exist (rank 0's answer, on every rank). */
static int deck_missing(const char *path, int *missing) {
  *missing = 0;
  if (app_mpi_rank() == 0) {
    struct stat sb;
    *missing = lstat(path, &sb) != 0 && errno == ENOENT;
  }
  if (MPI_Bcast(missing, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "tea_deck_read", path, "MPI_Bcast failed");
  return PORTA_SUCCESS;
}

void tea_deck_read(app_deck *deck, const app_cli *cli, tea_settings *s) {
  if (app_deck_load(deck, cli->input, MPI_COMM_WORLD)) {
    int missing = 0;
    APP_CHECK(deck_missing(cli->input, &missing));
    if (cli->input_given || !missing)
      app_exit_all(APP_EXIT_BAD_INPUT, "%s", porta_last_error_message());
    if (app_mpi_rank() == 0) printf(" tea.in not found: running the built-in default deck\n");
    app_deck_load_text(deck, "(default deck)", tea_default_deck);
  }
  if (app_deck_tokenize(deck, "!;", "=,", 1) || tea_deck_parse(deck, s))
    app_exit_all(APP_EXIT_BAD_INPUT, "error in the input deck: %s", porta_last_error_message());
  s->reproducible = cli->exact_sums;
}
