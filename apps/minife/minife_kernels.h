/** @file minife_kernels.h
 *  What miniFE's kernels share: the rank's node grid as plain values (copied into kernel
 *  arguments) and a row's place in the global mesh. No MPI: kernel files include this. */
#ifndef MINIFE_KERNELS_H
#define MINIFE_KERNELS_H

#include "minife.h"

/** The owned node box and the global node counts, for kernels. */
typedef struct minife_grid {
  int64_t nodes[3]; /**< global nodes per dimension */
  int64_t nlo[3];   /**< first owned node per dimension */
  int64_t n[3];     /**< owned nodes per dimension */
  int64_t nrows;
} minife_grid;

static inline minife_grid minife_grid_make(const minife_mesh *mesh) {
  minife_grid g;
  for (int d = 0; d < 3; ++d) {
    g.nodes[d] = mesh->nodes[d];
    g.nlo[d] = mesh->nlo[d];
    g.n[d] = mesh->n[d];
  }
  g.nrows = mesh->nrows;
  return g;
}

/** A node's place: local and global coordinates, and which stencil offsets exist (lo..hi in
 *  each dimension, c = hi - lo + 1 of them). */
typedef struct minife_node {
  int64_t l[3], x[3];
  int lo[3], hi[3], c[3];
} minife_node;

PORTA_INLINE_FUNCTION minife_node minife_node_at(const minife_grid *g, int64_t lx, int64_t ly,
                                                 int64_t lz) {
  minife_node nd;
  nd.l[0] = lx;
  nd.l[1] = ly;
  nd.l[2] = lz;
  for (int d = 0; d < 3; ++d) {
    nd.x[d] = g->nlo[d] + nd.l[d];
    nd.lo[d] = nd.x[d] > 0 ? -1 : 0;
    nd.hi[d] = nd.x[d] < g->nodes[d] - 1 ? 1 : 0;
    nd.c[d] = nd.hi[d] - nd.lo[d] + 1;
  }
  return nd;
}

/** The node of owned row r (rows run x fastest, then y, then z). */
PORTA_INLINE_FUNCTION minife_node minife_row_node(const minife_grid *g, int64_t r) {
  const int64_t lx = r % g->n[0], t = r / g->n[0];
  return minife_node_at(g, lx, t % g->n[1], t / g->n[1]);
}

/** Position in the row of node `nd` of its neighbour at offset (dx, dy, dz). */
PORTA_INLINE_FUNCTION int64_t minife_stencil_pos(const minife_node *nd, int dx, int dy, int dz) {
  return ((int64_t)(dz - nd->lo[2]) * nd->c[1] + (dy - nd->lo[1])) * nd->c[0] + (dx - nd->lo[0]);
}

/** Where a kernel finds the matrix's entries (minife_matrix's sliced storage), by value. */
typedef struct minife_entries {
  porta_view_i32 row_ptr, slice_ptr;
  int64_t shift; /**< rows a slice: 2^shift */
} minife_entries;

static inline minife_entries minife_entries_of(const minife_matrix *A) {
  minife_entries e;
  e.row_ptr = A->row_ptr;
  e.slice_ptr = A->slice_ptr;
  e.shift = A->slice_shift;
  return e;
}

/** Where row r's entries are stored: k0, k0 + step, ... below k1 (entry j at k0 + j step). */
typedef struct minife_span {
  int64_t k0, k1, step;
} minife_span;

/** Row r's span in slices of 2^shift rows: e->shift, or the constant a kernel knows it to be
 *  (MINIFE_SLICE_SHIFT: the index arithmetic then takes fewer registers). */
PORTA_INLINE_FUNCTION minife_span minife_row_span(const minife_entries *e, int64_t shift,
                                                  int64_t r) {
  minife_span s;
  s.step = (int64_t)1 << shift;
  s.k0 = PORTA_AT1(e->slice_ptr, r >> shift) + (r & (s.step - 1));
  s.k1 = s.k0 + s.step * ((int64_t)PORTA_AT1(e->row_ptr, r + 1) - PORTA_AT1(e->row_ptr, r));
  return s;
}

#endif /* MINIFE_KERNELS_H */
