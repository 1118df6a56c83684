/** @file minife_sizes.c
 *  The sizes a miniFE run can take: 32-bit local indices, and the memory of each rank's node or
 *  device, checked before anything large is allocated. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "minife_run.h"

double minife_stencil_nnz(const int64_t lo[3], const int64_t n[3], const int64_t nodes[3]) {
  double nnz = 1;
  for (int d = 0; d < 3; ++d) { /* the stencil's extent, one node less at each mesh face */
    int64_t s = 3 * n[d];
    if (lo[d] == 0) s -= 1;
    if (lo[d] + n[d] == nodes[d]) s -= 1;
    nnz *= (double)s;
  }
  return nnz;
}

/** Refuse sizes that cannot work, the same on every rank (all boxes are known everywhere). */
void minife_check_sizes(const minife *m) {
  const minife_mesh *mesh = &m->mesh;
  /* counted in double: on a mesh far too large the products overflow 64 bits */
  double worst_nnz = 0, worst_rows = 0;
  for (int q = 0; q < mesh->nranks; ++q) {
    int64_t lo[3], n[3];
    minife_owned_nodes(&mesh->boxes[q], mesh->elems, lo, n);
    const double rows = (double)n[0] * (double)n[1] * (double)n[2];
    double nnz = minife_stencil_nnz(lo, n, mesh->nodes);
    if (m->A.slice_shift > 0) { /* the slices' padding: at most 27 entries a row of a slice */
      const double slice = (double)(1 << m->A.slice_shift);
      const double padded = 27.0 * slice * ceil(rows / slice);
      if (padded > nnz) nnz = padded;
    }
    if (nnz > worst_nnz) worst_nnz = nnz;
    if (rows > worst_rows) worst_rows = rows;
  }
  if (worst_nnz > INT32_MAX || worst_rows + 2 > INT32_MAX)
    app_exit_all(APP_EXIT_BAD_INPUT,
                 "nx=%lld ny=%lld nz=%lld on %d ranks: a rank would hold %.4g nonzeros and %.4g "
                 "rows, more than the 32-bit local index type allows (%d); use more ranks",
                 (long long)m->prm.nx, (long long)m->prm.ny, (long long)m->prm.nz, mesh->nranks,
                 worst_nnz, worst_rows, INT32_MAX);
  /* The matrix (12 B per nonzero) and six vectors of every rank on this node must fit in the
     memory the kernels use: the node's on a host back end, the device's on a GPU. Refused
     before allocating. */
  const double bytes = 12.0 * worst_nnz + 64.0 * worst_rows;
  const int on_device = porta_exec_query(m->exec).on_device;
  /* collective: every rank takes part in both */
  char limit[4400], dlimit[512];
  double worst = app_node_memory_share(on_device ? 0.0 : bytes, limit, sizeof limit);
  const double dworst =
      app_device_memory_share(on_device ? bytes : 0.0, m->exec, dlimit, sizeof dlimit);
  if (dworst > worst) {
    worst = dworst;
    snprintf(limit, sizeof limit, "%s", dlimit);
  }
  if (worst > 1.0)
    app_exit_all(APP_EXIT_BAD_INPUT,
                 "nx=%lld ny=%lld nz=%lld needs about %.3g GB per rank, %.3g times %s; use more "
                 "nodes or a smaller mesh",
                 (long long)m->prm.nx, (long long)m->prm.ny, (long long)m->prm.nz, bytes / 1e9,
                 worst, limit);
}
