/** @file minife_structure.c
 *  The CSR structure of the owned rows: every existing neighbour in the 3 x 3 x 3 node stencil,
 *  in global node order (z, then y, then x). A row's length and each neighbour's position in
 *  it follow from the node's place in the mesh, so rows are built independently on the
 *  execution space: lengths and a scan give the row pointers, then each row writes its
 *  columns through the map from the extended node box to local columns.
 *  Kernel file (C11 and C++17). */
#include "minife_kernels.h"

typedef struct {
  minife_grid g;
  porta_view_i32 row_ptr, cols, column_map;
} structure_args;

PORTA_SCAN(minife_k_row_ptr, structure_args, a, r, porta_sum_i64, upd, final) {
  minife_node nd = minife_row_node(&a->g, r);
  const int64_t len = (int64_t)nd.c[0] * nd.c[1] * nd.c[2];
  if (final) PORTA_AT1(a->row_ptr, r) = (int32_t)*upd;
  *upd += len;
  if (final && r == a->g.nrows - 1) PORTA_AT1(a->row_ptr, r + 1) = (int32_t)*upd;
}

PORTA_FOR(minife_k_columns, structure_args, a, r) {
  minife_node nd = minife_row_node(&a->g, r);
  int64_t pos = PORTA_AT1(a->row_ptr, r);
  const int64_t ex = a->g.n[0] + 2, ey = a->g.n[1] + 2;
  for (int dz = nd.lo[2]; dz <= nd.hi[2]; ++dz)
    for (int dy = nd.lo[1]; dy <= nd.hi[1]; ++dy)
      for (int dx = nd.lo[0]; dx <= nd.hi[0]; ++dx) {
        /* place in the extended box (one node layer around the owned ones) */
        const int64_t e = ((nd.l[2] + 1 + dz) * ey + (nd.l[1] + 1 + dy)) * ex + nd.l[0] + 1 + dx;
        PORTA_AT1(a->cols, pos++) = PORTA_AT1(a->column_map, e);
      }
}

int minife_structure(minife *m, porta_view_i32 column_map) {
  structure_args a;
  a.g = minife_grid_make(&m->mesh);
  a.row_ptr = m->A.row_ptr;
  a.cols = m->A.cols;
  a.column_map = column_map;
  int64_t total = 0;
  PORTA_CHECK(PORTA_PARALLEL_SCAN_LABELED("minife_row_ptr", minife_k_row_ptr, m->exec,
                                          porta_range(0, m->A.nrows), &a, &total));
  if (total != m->A.nnz)
    return porta_error(PORTA_ERROR_BACKEND, "minife_structure", "row_ptr",
                       "row lengths sum to %lld, expected %lld", (long long)total,
                       (long long)m->A.nnz);
  return PORTA_PARALLEL_FOR_LABELED("minife_columns", minife_k_columns, m->exec,
                                    porta_range(0, m->A.nrows), &a);
}
