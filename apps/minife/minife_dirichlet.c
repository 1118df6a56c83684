/** @file minife_dirichlet.c
 *  Dirichlet conditions as the reference imposes them, one pass per prescribed value:
 *  a row on the pass's faces becomes the identity row (its zeros stay stored) with b = value;
 *  every other row moves its coefficients in those faces' columns to the right-hand side
 *  (b -= sum * value) and zeroes them. The passes run for 0 (faces x = 0, y = 0, y = 1, z = 0,
 *  z = 1) and then 1 (face x = 1), so the edges of the x = 1 face, in both sets, end as rows
 *  with u = 1 whose columns the first pass already removed: the reference's quirk, kept.
 *  Each row is independent, so a pass is one kernel over the rows.
 *  Kernel file (C11 and C++17). */
#include "minife_kernels.h"

typedef struct {
  minife_grid g;
  minife_entries at;
  porta_view_f64 vals, b;
  double value;
} dirichlet_args;

/** Whether global node (x, y, z) is in the set of pass `value`. */
PORTA_INLINE_FUNCTION int minife_on_faces(const minife_grid *g, double value, int64_t x, int64_t y,
                                          int64_t z) {
  if (value == 0.0)
    return x == 0 || y == 0 || y == g->nodes[1] - 1 || z == 0 || z == g->nodes[2] - 1;
  return x == g->nodes[0] - 1;
}

PORTA_FOR(minife_k_dirichlet, dirichlet_args, a, r) {
  const minife_node nd = minife_row_node(&a->g, r);
  const minife_span sp = minife_row_span(&a->at, a->at.shift, r);
  if (minife_on_faces(&a->g, a->value, nd.x[0], nd.x[1], nd.x[2])) {
    for (int64_t k = sp.k0; k < sp.k1; k += sp.step) PORTA_AT1(a->vals, k) = 0.0;
    PORTA_AT1(a->vals, sp.k0 + sp.step * minife_stencil_pos(&nd, 0, 0, 0)) = 1.0;
    PORTA_AT1(a->b, r) = a->value;
    return;
  }
  double sum = 0.0;
  int64_t k = sp.k0;
  for (int dz = nd.lo[2]; dz <= nd.hi[2]; ++dz)
    for (int dy = nd.lo[1]; dy <= nd.hi[1]; ++dy)
      for (int dx = nd.lo[0]; dx <= nd.hi[0]; ++dx, k += sp.step)
        if (minife_on_faces(&a->g, a->value, nd.x[0] + dx, nd.x[1] + dy, nd.x[2] + dz)) {
          sum += PORTA_AT1(a->vals, k);
          PORTA_AT1(a->vals, k) = 0.0;
        }
  PORTA_AT1(a->b, r) -= sum * a->value;
}

int minife_dirichlet(minife *m, double value) {
  dirichlet_args a;
  a.g = minife_grid_make(&m->mesh);
  a.at = minife_entries_of(&m->A);
  a.vals = m->A.vals;
  a.b = m->b;
  a.value = value;
  return PORTA_PARALLEL_FOR_LABELED("minife_dirichlet", minife_k_dirichlet, m->exec,
                                    porta_range(0, m->A.nrows), &a);
}

/* ---- interior and boundary rows (mv_overlap_comm_comp) ---- */

typedef struct {
  minife_entries at;
  porta_view_i32 cols, list;
  int64_t nrows;
} split_args;

/** Row r into the list if it has (boundary) or has no (interior) column of another rank. */
PORTA_FORCEINLINE_FUNCTION void minife_split_row(const split_args *a, int64_t r, int64_t *upd,
                                                 int final, int boundary) {
  int external = 0;
  const minife_span sp = minife_row_span(&a->at, a->at.shift, r);
  for (int64_t k = sp.k0; k < sp.k1; k += sp.step) external |= PORTA_AT1(a->cols, k) >= a->nrows;
  if (external == boundary) {
    if (final) PORTA_AT1(a->list, *upd) = (int32_t)r;
    *upd += 1;
  }
}

PORTA_SCAN(minife_k_split_interior, split_args, a, r, porta_sum_i64, upd, final) {
  minife_split_row(a, r, upd, final, 0);
}
PORTA_SCAN(minife_k_split_boundary, split_args, a, r, porta_sum_i64, upd, final) {
  minife_split_row(a, r, upd, final, 1);
}

int minife_split_rows(minife *m) {
  split_args a;
  a.at = minife_entries_of(&m->A);
  a.cols = m->A.cols;
  a.nrows = m->A.nrows;
  int64_t count[2] = {0, 0};
  porta_view_i32 *lists[2] = {&m->A.interior_rows, &m->A.boundary_rows};
  const char *names[2] = {"interior_rows", "boundary_rows"};
  for (int want = 0; want < 2; ++want) {
    /* sized for every row, then filled; the count comes from the scan */
    PORTA_CHECK(porta_view_i32_create1(lists[want], names[want], m->A.nrows > 0 ? m->A.nrows : 1));
    a.list = *lists[want];
    const porta_range_policy r = porta_range(0, m->A.nrows);
    if (want == 0)
      PORTA_CHECK(PORTA_PARALLEL_SCAN_LABELED("minife_split_rows", minife_k_split_interior, m->exec,
                                              r, &a, &count[0]));
    else
      PORTA_CHECK(PORTA_PARALLEL_SCAN_LABELED("minife_split_rows", minife_k_split_boundary, m->exec,
                                              r, &a, &count[1]));
  }
  m->A.ninterior = count[0];
  m->A.nboundary = count[1];
  return PORTA_SUCCESS;
}
