/** @file minife_structure.c
 *  The structure of the owned rows: every existing neighbour in the 3 x 3 x 3 node stencil,
 *  in global node order (z, then y, then x). A row's length and each neighbour's position in
 *  it follow from the node's place in the mesh, so rows are built independently on the
 *  execution space: lengths and a scan give the row pointers, the slices' widths and a scan
 *  the slice pointers (minife_matrix's sliced storage), then each row writes its columns
 *  through the map from the extended node box to local columns.
 *  Kernel file (C11 and C++17). */
#include <string.h>

#include "minife_kernels.h"

typedef struct {
  minife_grid g;
  minife_entries at;
  porta_view_i32 cols, column_map;
} structure_args;

/** Row r's length: its node's stencil, one neighbour less at each mesh face. */
PORTA_INLINE_FUNCTION int64_t minife_stencil_len(const minife_grid *g, int64_t r) {
  const minife_node nd = minife_row_node(g, r);
  return (int64_t)nd.c[0] * nd.c[1] * nd.c[2];
}

PORTA_SCAN(minife_k_row_ptr, structure_args, a, r, porta_sum_i64, upd, final) {
  if (final) PORTA_AT1(a->at.row_ptr, r) = (int32_t)*upd;
  *upd += minife_stencil_len(&a->g, r);
  if (final && r == a->g.nrows - 1) PORTA_AT1(a->at.row_ptr, r + 1) = (int32_t)*upd;
}

/* a slice's entries: its rows' most, once per row it holds room for */
PORTA_SCAN(minife_k_slice_ptr, structure_args, a, s, porta_sum_i64, upd, final) {
  const int64_t rows = (int64_t)1 << a->at.shift, r0 = s * rows;
  const int64_t r1 = r0 + rows < a->g.nrows ? r0 + rows : a->g.nrows;
  int64_t most = 0;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t len = minife_stencil_len(&a->g, r);
    most = len > most ? len : most;
  }
  if (final) PORTA_AT1(a->at.slice_ptr, s) = (int32_t)*upd;
  *upd += most * rows;
  if (final && r1 == a->g.nrows) PORTA_AT1(a->at.slice_ptr, s + 1) = (int32_t)*upd;
}

PORTA_FOR(minife_k_columns, structure_args, a, r) {
  minife_node nd = minife_row_node(&a->g, r);
  const minife_span sp = minife_row_span(&a->at, a->at.shift, r);
  int64_t pos = sp.k0;
  const int64_t ex = a->g.n[0] + 2, ey = a->g.n[1] + 2;
  for (int dz = nd.lo[2]; dz <= nd.hi[2]; ++dz)
    for (int dy = nd.lo[1]; dy <= nd.hi[1]; ++dy)
      for (int dx = nd.lo[0]; dx <= nd.hi[0]; ++dx, pos += sp.step) {
        /* place in the extended box (one node layer around the owned ones) */
        const int64_t e = ((nd.l[2] + 1 + dz) * ey + (nd.l[1] + 1 + dy)) * ex + nd.l[0] + 1 + dx;
        PORTA_AT1(a->cols, pos) = PORTA_AT1(a->column_map, e);
      }
}

int minife_structure(minife *m, porta_view_i32 column_map) {
  minife_matrix *A = &m->A;
  /* uninitialised: the kernels write every entry (vals is zeroed by the assembly's own kernel,
     in parallel, so the pages are first touched by the threads that use them) */
  porta_view_options opt = {porta_exec_memory_space(m->exec), PORTA_LAYOUT_DEFAULT,
                            PORTA_VIEW_UNINITIALIZED, NULL};
  const int64_t nr = A->nrows + 1;
  PORTA_CHECK(porta_view_i32_create(&A->row_ptr, "row_ptr", 1, &nr, &opt));
  structure_args a;
  memset(&a, 0, sizeof a);
  a.g = minife_grid_make(&m->mesh);
  a.at.row_ptr = A->row_ptr;
  a.at.shift = A->slice_shift;
  int64_t total = 0;
  PORTA_CHECK(PORTA_PARALLEL_SCAN_LABELED("minife_row_ptr", minife_k_row_ptr, m->exec,
                                          porta_range(0, A->nrows), &a, &total));
  if (total != A->nnz)
    return porta_error(PORTA_ERROR_BACKEND, "minife_structure", "row_ptr",
                       "row lengths sum to %lld, expected %lld", (long long)total,
                       (long long)A->nnz);
  if (A->slice_shift == 0) { /* CSR */
    porta_view_i32_retain(&A->row_ptr);
    A->slice_ptr = A->row_ptr;
    A->stored = A->nnz;
  } else {
    const int64_t nslices = (A->nrows + ((int64_t)1 << A->slice_shift) - 1) >> A->slice_shift;
    const int64_t ns = nslices + 1;
    PORTA_CHECK(porta_view_i32_create(&A->slice_ptr, "slice_ptr", 1, &ns, &opt));
    a.at.slice_ptr = A->slice_ptr;
    /* below 2^31: minife_check_sizes counted the padding a slice can hold */
    PORTA_CHECK(PORTA_PARALLEL_SCAN_LABELED("minife_slice_ptr", minife_k_slice_ptr, m->exec,
                                            porta_range(0, nslices), &a, &A->stored));
  }
  const int64_t nz = A->stored > 0 ? A->stored : 1;
  PORTA_CHECK(porta_view_f64_create(&A->vals, "vals", 1, &nz, &opt));
  /* a slice's padding is never read (a row stops at its length): column 0, zeroed here */
  if (A->stored != A->nnz) opt.flags &= ~(uint32_t)PORTA_VIEW_UNINITIALIZED;
  PORTA_CHECK(porta_view_i32_create(&A->cols, "cols", 1, &nz, &opt));
  a.at = minife_entries_of(A);
  a.cols = A->cols;
  a.column_map = column_map;
  return PORTA_PARALLEL_FOR_LABELED("minife_columns", minife_k_columns, m->exec,
                                    porta_range(0, A->nrows), &a);
}
