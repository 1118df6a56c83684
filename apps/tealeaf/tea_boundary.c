/** @file tea_boundary.c
 *  Physical-boundary halos: mirror copy (reference update_halo_kernel), ghost(-1-i) =
 *  interior(i) on each physical face. x faces are done over the interior rows plus `depth`
 *  halo rows, then y faces over the interior columns plus `depth` halo columns, so corner
 *  halos get a consistent value. Kernel file (C++17 compatible). */
#include "tea_internal.h"

typedef struct {
  porta_view_f64 v;
  int64_t h, n; /* halo width, interior count along the mirrored axis */
  int lo, hi;   /* mirror the low / high face */
} tea_reflect_args;

/* x faces: I0 = row k, I1 = layer i (0-based) */
PORTA_MDFOR2(tea_k_reflect_x, tea_reflect_args, a, k, i) {
  if (a->lo) PORTA_AT2(a->v, k, a->h - 1 - i) = PORTA_AT2(a->v, k, a->h + i);
  if (a->hi) PORTA_AT2(a->v, k, a->h + a->n + i) = PORTA_AT2(a->v, k, a->h + a->n - 1 - i);
}

/* y faces: I0 = layer i, I1 = column j */
PORTA_MDFOR2(tea_k_reflect_y, tea_reflect_args, a, i, j) {
  if (a->lo) PORTA_AT2(a->v, a->h - 1 - i, j) = PORTA_AT2(a->v, a->h + i, j);
  if (a->hi) PORTA_AT2(a->v, a->h + a->n + i, j) = PORTA_AT2(a->v, a->h + a->n - 1 - i, j);
}

int tea_reflect_boundaries(tea_chunk *c, const int *fields, int nfields, int depth) {
  if (depth > c->halo) depth = c->halo;
  if (depth <= 0) return PORTA_SUCCESS;
  const int64_t h = c->halo;
  for (int f = 0; f < nfields; ++f) {
    porta_view_f64 *v = tea_field(c, fields[f]);
    if (!v)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_reflect_boundaries", "chunk",
                         "unknown field id %d", fields[f]);
    tea_reflect_args a;
    a.v = *v;
    a.h = h;
    if (c->phys_left || c->phys_right) {
      a.n = c->nx;
      a.lo = c->phys_left;
      a.hi = c->phys_right;
      PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_reflect_x", tea_k_reflect_x, c->exec,
                                             porta_mdrange2(h - depth, h + c->ny + depth, 0, depth),
                                             &a));
    }
    if (c->phys_bottom || c->phys_top) {
      a.n = c->ny;
      a.lo = c->phys_bottom;
      a.hi = c->phys_top;
      PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_reflect_y", tea_k_reflect_y, c->exec,
                                             porta_mdrange2(0, depth, h - depth, h + c->nx + depth),
                                             &a));
    }
  }
  return PORTA_SUCCESS;
}
