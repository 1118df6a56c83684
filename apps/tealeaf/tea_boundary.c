/** @file tea_boundary.c
 *  Physical-boundary halos: mirror copy (reference update_halo_kernel), ghost(-1-i) =
 *  interior(i) on each physical face. x faces are done over the interior rows plus `depth`
 *  halo rows, then y faces over the interior columns plus `depth` halo columns, so corner
 *  halos get a consistent value. Kernel file (C++17 compatible). */
#include "tea_internal.h"

typedef struct {
  porta_view_f64 v;
  int64_t h, n; /* halo width, interior count along the mirrored axis */
} tea_reflect_args;

/** Mirror layer i of the low (lo) and of the high (hi) x face in row k. */
PORTA_FORCEINLINE_FUNCTION void tea_reflect_x_cell(const tea_reflect_args *a, int64_t k, int64_t i,
                                                   int lo, int hi) {
  if (lo) PORTA_AT2(a->v, k, a->h - 1 - i) = PORTA_AT2(a->v, k, a->h + i);
  if (hi) PORTA_AT2(a->v, k, a->h + a->n + i) = PORTA_AT2(a->v, k, a->h + a->n - 1 - i);
}

/** The same for y faces in column j. */
PORTA_FORCEINLINE_FUNCTION void tea_reflect_y_cell(const tea_reflect_args *a, int64_t i, int64_t j,
                                                   int lo, int hi) {
  if (lo) PORTA_AT2(a->v, a->h - 1 - i, j) = PORTA_AT2(a->v, a->h + i, j);
  if (hi) PORTA_AT2(a->v, a->h + a->n + i, j) = PORTA_AT2(a->v, a->h + a->n - 1 - i, j);
}

/* One kernel per axis and set of faces: x with I0 = row k, I1 = layer i (0-based); y with
 * I0 = layer i, I1 = column j. Tables [faces - 1], faces = lo + 2 hi. */
PORTA_MDFOR2(tea_k_reflect_x_lo, tea_reflect_args, a, k, i) { tea_reflect_x_cell(a, k, i, 1, 0); }
PORTA_MDFOR2(tea_k_reflect_x_hi, tea_reflect_args, a, k, i) { tea_reflect_x_cell(a, k, i, 0, 1); }
PORTA_MDFOR2(tea_k_reflect_x_both, tea_reflect_args, a, k, i) { tea_reflect_x_cell(a, k, i, 1, 1); }
PORTA_MDFOR2(tea_k_reflect_y_lo, tea_reflect_args, a, i, j) { tea_reflect_y_cell(a, i, j, 1, 0); }
PORTA_MDFOR2(tea_k_reflect_y_hi, tea_reflect_args, a, i, j) { tea_reflect_y_cell(a, i, j, 0, 1); }
PORTA_MDFOR2(tea_k_reflect_y_both, tea_reflect_args, a, i, j) { tea_reflect_y_cell(a, i, j, 1, 1); }
/** The reflection across the x faces `faces` names (1: left, 2: right, 3: both). */
static int reflect_x(porta_exec exec, porta_mdrange_policy p, int faces,
                     const tea_reflect_args *a) {
  const char *label = "tea_reflect_x";
  if (faces == 1) return PORTA_PARALLEL_FOR_LABELED(label, tea_k_reflect_x_lo, exec, p, a);
  if (faces == 2) return PORTA_PARALLEL_FOR_LABELED(label, tea_k_reflect_x_hi, exec, p, a);
  return PORTA_PARALLEL_FOR_LABELED(label, tea_k_reflect_x_both, exec, p, a);
}

/** The reflection across the y faces `faces` names (1: bottom, 2: top, 3: both). */
static int reflect_y(porta_exec exec, porta_mdrange_policy p, int faces,
                     const tea_reflect_args *a) {
  const char *label = "tea_reflect_y";
  if (faces == 1) return PORTA_PARALLEL_FOR_LABELED(label, tea_k_reflect_y_lo, exec, p, a);
  if (faces == 2) return PORTA_PARALLEL_FOR_LABELED(label, tea_k_reflect_y_hi, exec, p, a);
  return PORTA_PARALLEL_FOR_LABELED(label, tea_k_reflect_y_both, exec, p, a);
}

int tea_reflect_boundaries(tea_chunk *c, const int *fields, int nfields, int depth) {
  const porta_exec exec = c->exec;
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
    const int x_faces = (c->phys_left ? 1 : 0) + (c->phys_right ? 2 : 0);
    const int y_faces = (c->phys_bottom ? 1 : 0) + (c->phys_top ? 2 : 0);
    if (x_faces) {
      a.n = c->nx;
      PORTA_CHECK(
          reflect_x(exec, porta_mdrange2(h - depth, h + c->ny + depth, 0, depth), x_faces, &a));
    }
    if (y_faces) {
      a.n = c->ny;
      PORTA_CHECK(
          reflect_y(exec, porta_mdrange2(0, depth, h - depth, h + c->nx + depth), y_faces, &a));
    }
  }
  return PORTA_SUCCESS;
}
