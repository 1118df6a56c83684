/** @file tea_generate.c
 *  Initial conditions from the deck's states (reference generate_chunk_kernel, tealeaf.md 1.3).
 *
 *  State 1 is the background: written everywhere, halos included. States 2..N overwrite it in
 *  order; each box is first shrunk by 1/100 of a cell (xmin += dx/100, ymin += dy/100,
 *  xmax -= dx/100, ymax -= dy/100) as the reference does, against round-off on cell faces.
 *  - rectangle: a cell is covered when it overlaps the shrunk box at all:
 *      vertexx(j+1) >= xmin_s && vertexx(j) < xmax_s && same in y.
 *  - circle: centre (xmin_s, ymin_s) (after the nudge, as the reference); covered when the
 *      cell centre is within `radius` (<=).
 *  - point: DECISION (differs from the reference, where a point state is a silent no-op
 *      because the nudged point never equals a vertex): the state covers the one cell that
 *      contains the nudged point (xmin+dx/100, ymin+dy/100), i.e. vertexx(j) <= x < vertexx(j+1)
 *      and likewise in y. For a point on a vertex this is the cell whose lower-left vertex is
 *      the point, which is what the reference's test (vertex == point) intended.
 *  Geometry tests run on the whole array, halos included (halos are re-filled by the
 *  exchange / reflection afterwards anyway). Kernel file (C++17 compatible). */
#include <math.h>

#include "tea_internal.h"

/** One state's density and energy written over the cells its shape covers. */
typedef struct {
  porta_view_f64 density, energy0, vx, vy, cx, cy; /* vx, vy: vertices; cx, cy: cell centres */
  double d, e;                                     /* the state's density and energy */
  double xmin, ymin, xmax, ymax, radius;           /* its shape (bounds nudged by dx/100) */
} tea_state_args;

/** The background's "shape": every cell (the shapes are tea_geometry's). */
enum { TEA_SHAPE_BACKGROUND = -1 };

/** Is cell (k, j) in the state's shape? One kernel per shape. */
PORTA_FORCEINLINE_FUNCTION int tea_state_covers(const tea_state_args *a, int64_t k, int64_t j,
                                                int shape) {
  if (shape == TEA_GEOM_RECTANGLE)
    return PORTA_AT1(a->vx, j + 1) >= a->xmin && PORTA_AT1(a->vx, j) < a->xmax &&
           PORTA_AT1(a->vy, k + 1) >= a->ymin && PORTA_AT1(a->vy, k) < a->ymax;
  if (shape == TEA_GEOM_CIRCLE) {
    double x = PORTA_AT1(a->cx, j) - a->xmin, y = PORTA_AT1(a->cy, k) - a->ymin;
    return sqrt(x * x + y * y) <= a->radius;
  }
  if (shape == TEA_GEOM_POINT)
    return PORTA_AT1(a->vx, j) <= a->xmin && a->xmin < PORTA_AT1(a->vx, j + 1) &&
           PORTA_AT1(a->vy, k) <= a->ymin && a->ymin < PORTA_AT1(a->vy, k + 1);
  return 1;
}

PORTA_FORCEINLINE_FUNCTION void tea_state_cell(const tea_state_args *a, int64_t k, int64_t j,
                                               int shape) {
  if (tea_state_covers(a, k, j, shape)) {
    PORTA_AT2(a->density, k, j) = a->d;
    PORTA_AT2(a->energy0, k, j) = a->e;
  }
}

PORTA_MDFOR2(tea_k_state_background, tea_state_args, a, k, j) {
  tea_state_cell(a, k, j, TEA_SHAPE_BACKGROUND);
}
PORTA_MDFOR2(tea_k_state_rectangle, tea_state_args, a, k, j) {
  tea_state_cell(a, k, j, TEA_GEOM_RECTANGLE);
}
PORTA_MDFOR2(tea_k_state_circle, tea_state_args, a, k, j) {
  tea_state_cell(a, k, j, TEA_GEOM_CIRCLE);
}
PORTA_MDFOR2(tea_k_state_point, tea_state_args, a, k, j) {
  tea_state_cell(a, k, j, TEA_GEOM_POINT);
}

/** State n's kernel over `all` (n = 0: the background; else by its geometry). */
static int state_launch(porta_exec exec, porta_mdrange_policy all, int n, tea_geometry g,
                        const tea_state_args *a) {
  const char *label = "tea_generate";
  if (n == 0) return PORTA_PARALLEL_FOR_LABELED(label, tea_k_state_background, exec, all, a);
  if (g == TEA_GEOM_RECTANGLE)
    return PORTA_PARALLEL_FOR_LABELED(label, tea_k_state_rectangle, exec, all, a);
  if (g == TEA_GEOM_CIRCLE)
    return PORTA_PARALLEL_FOR_LABELED(label, tea_k_state_circle, exec, all, a);
  return PORTA_PARALLEL_FOR_LABELED(label, tea_k_state_point, exec, all, a);
}

typedef struct {
  porta_view_f64 density, energy0, energy1, u;
} tea_setfield_args;

/* set_field (energy1 = energy0) and u = energy1 * density, over the whole array */
PORTA_MDFOR2(tea_k_set_field, tea_setfield_args, a, k, j) {
  double e = PORTA_AT2(a->energy0, k, j);
  PORTA_AT2(a->energy1, k, j) = e;
  PORTA_AT2(a->u, k, j) = e * PORTA_AT2(a->density, k, j);
}

int tea_generate(tea_chunk *c, const tea_settings *s) {
  if (s->num_states < 1 || !s->states[0].defined)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_generate", "states",
                       "state 1 (the background) is not defined");
  porta_mdrange_policy all = porta_mdrange2(0, c->ny + 2 * c->halo, 0, c->nx + 2 * c->halo);
  tea_state_args a;
  a.density = TEA_F(c, TEA_FIELD_DENSITY);
  a.energy0 = TEA_F(c, TEA_FIELD_ENERGY0);
  a.vx = c->vertexx;
  a.vy = c->vertexy;
  a.cx = c->cellx;
  a.cy = c->celly;
  for (int n = 0; n < s->num_states && n < TEA_MAX_STATES; ++n) {
    const tea_state *st = &s->states[n];
    if (!st->defined) continue;
    a.d = st->density;
    a.e = st->energy;
    a.xmin = st->xmin + c->dx / 100.0;
    a.ymin = st->ymin + c->dy / 100.0;
    a.xmax = st->xmax - c->dx / 100.0;
    a.ymax = st->ymax - c->dy / 100.0;
    a.radius = st->radius;
    PORTA_CHECK(state_launch(c->exec, all, n, st->geometry, &a));
  }
  tea_setfield_args b;
  b.density = TEA_F(c, TEA_FIELD_DENSITY);
  b.energy0 = TEA_F(c, TEA_FIELD_ENERGY0);
  b.energy1 = TEA_F(c, TEA_FIELD_ENERGY1);
  b.u = TEA_F(c, TEA_FIELD_U);
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_set_field", tea_k_set_field, c->exec, all, &b));
  int f[4];
  f[0] = TEA_FIELD_DENSITY;
  f[1] = TEA_FIELD_ENERGY0;
  f[2] = TEA_FIELD_ENERGY1;
  f[3] = TEA_FIELD_U;
  return tea_halo_exchange(c, f, 4, c->halo);
}
