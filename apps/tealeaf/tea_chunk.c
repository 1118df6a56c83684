/** @file tea_chunk.c
 *  Allocation of the chunk's fields and geometry (kernel file: also compiles as C++17). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_field.h"
#include "tea_internal.h"

static const char *const tea_field_labels[TEA_NUM_FIELDS] = {
    "density",        "energy0",   "energy1",   "u",         "vector_p",     "vector_sd",
    "vector_r",       "vector_z",  "vector_kx", "vector_ky", "vector_di",    "u0",
    "vector_w",       "vector_mi", "tri_cp",    "tri_bfp",   "vector_rtemp", "vector_utemp",
    "vector_r_store", "vector_un"};

porta_view_f64 *tea_field(tea_chunk *c, int id) {
  if (!c || id < 0 || id >= TEA_NUM_FIELDS) return NULL;
  return &c->fields[id];
}

typedef struct {
  porta_view_f64 v;
  double origin, d;
  int64_t off; /* global index of array index 0 */
} tea_coord_args;

/* vertex(i) = origin + d * (global index of array index i) */
PORTA_FOR(tea_k_coords, tea_coord_args, a, i) {
  PORTA_AT1(a->v, i) = a->origin + a->d * (double)(a->off + i);
}

typedef struct {
  porta_view_f64 cell, vert;
} tea_cell_args;

PORTA_FOR(tea_k_cells, tea_cell_args, a, i) {
  PORTA_AT1(a->cell, i) = 0.5 * (PORTA_AT1(a->vert, i) + PORTA_AT1(a->vert, i + 1));
}

static int tea_fill_axis(tea_chunk *c, porta_view_f64 *vert, porta_view_f64 *cell, int n, int off,
                         double origin, double d, const char *vl, const char *cl) {
  const int64_t h = c->halo, ext = (int64_t)n + 2 * h; /* 64-bit: checked by tea_chunk_alloc */
  PORTA_CHECK(porta_view_f64_create1(vert, vl, ext + 1));
  PORTA_CHECK(porta_view_f64_create1(cell, cl, ext));
  tea_coord_args ca;
  ca.v = *vert;
  ca.origin = origin;
  ca.d = d;
  ca.off = (int64_t)off - h;
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_coords", tea_k_coords, c->exec,
                                         porta_range(0, ext + 1), &ca));
  tea_cell_args cc;
  cc.cell = *cell;
  cc.vert = *vert;
  PORTA_CHECK(
      PORTA_PARALLEL_FOR_LABELED("tea_cells", tea_k_cells, c->exec, porta_range(0, ext), &cc));
  return PORTA_SUCCESS;
}

int tea_chunk_alloc(tea_chunk *c) {
  if (c->nx <= 0 || c->ny <= 0 || c->halo < 1)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_chunk_alloc", "chunk",
                       "bad sizes nx=%d ny=%d halo=%d", c->nx, c->ny, c->halo);
  /* sizes in 64-bit arithmetic: the extents (and the numerics' int index sums) must fit an int */
  int64_t ext[2];
  ext[0] = (int64_t)c->ny + 2 * (int64_t)c->halo;
  ext[1] = (int64_t)c->nx + 2 * (int64_t)c->halo;
  if (ext[0] > INT_MAX - 1024 || ext[1] > INT_MAX - 1024)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_chunk_alloc", "chunk",
                       "extents %lld x %lld (ny %d, nx %d, halo %d) exceed %d", (long long)ext[0],
                       (long long)ext[1], c->ny, c->nx, c->halo, INT_MAX - 1024);
    /* host fields that cannot fit in this node's memory are refused before allocating */
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const double bytes =
      (double)TEA_NUM_FIELDS * (double)sizeof(double) * (double)ext[0] * (double)(ext[1] + 64);
  if (porta_default_memory_space() == PORTA_HOST_SPACE && pages > 0 && page > 0 &&
      bytes > (double)pages * (double)page)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_chunk_alloc", "chunk",
                       "%d fields of %lld x %lld need %.3g GB, more than the %.3g GB of physical "
                       "memory",
                       TEA_NUM_FIELDS, (long long)ext[0], (long long)ext[1], bytes / 1e9,
                       (double)pages * (double)page / 1e9);
#endif
  for (int f = 0; f < TEA_NUM_FIELDS; ++f)
    PORTA_CHECK(app_field2d_create(&c->fields[f], tea_field_labels[f], ext[0], ext[1], c->halo));
  PORTA_CHECK(tea_fill_axis(c, &c->vertexx, &c->cellx, c->nx, c->x_off, c->xmin, c->dx, "vertexx",
                            "cellx"));
  PORTA_CHECK(tea_fill_axis(c, &c->vertexy, &c->celly, c->ny, c->y_off, c->ymin, c->dy, "vertexy",
                            "celly"));
  c->have_eigs = false;
  return PORTA_SUCCESS;
}

void tea_chunk_free(tea_chunk *c) {
  if (!c) return;
  for (int f = 0; f < TEA_NUM_FIELDS; ++f)
    if (c->fields[f].data) porta_view_f64_release(&c->fields[f]);
  if (c->vertexx.data) porta_view_f64_release(&c->vertexx);
  if (c->vertexy.data) porta_view_f64_release(&c->vertexy);
  if (c->cellx.data) porta_view_f64_release(&c->cellx);
  if (c->celly.data) porta_view_f64_release(&c->celly);
  free(c->cg_alphas);
  free(c->cg_betas);
  free(c->ch_alphas);
  free(c->ch_betas);
  c->cg_alphas = c->cg_betas = c->ch_alphas = c->ch_betas = NULL;
  c->cg_hist_cap = c->ch_cap = 0;
}
