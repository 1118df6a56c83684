/** @file minimd_neighbor.c
 *  Binning and the neighbour list, as the reference builds them (bins of 5/6 of a unit cell,
 *  a local bin grid over the sub-box plus the cut-off plus one bin, a stencil of the bins
 *  within the cut-off, inclusion at r^2 <= (cutforce + skin)^2), on the execution space:
 *  atoms go into bins by an atomic counter per bin, then one thread per owned atom walks the
 *  stencil. Three list kinds: full (every j != i), half with Newton across ghosts (upper bins
 *  only; in the own bin j > i, ghosts only if not below i in z, y, x order) and half without
 *  (every bin, j > i: owned-ghost pairs are listed on both ranks). The list is a 2D view
 *  [atom][slot] in the memory space's default layout (slot-major on a GPU, so the threads of a
 *  warp read consecutive words). In reproducible mode each list is put in global-id order, so
 *  a force sums its terms in an order that no decomposition or thread count changes.
 *  Kernel file (C11 and C++17). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minimd_kernels.h"

typedef struct nb_args {
  porta_view_vec3 x, binx;
  porta_view_i64 id;
  porta_view_i32 bincount, bins, stencil, numneigh, neighbors, flag;
  double prd[3], bininv[3], cutneighsq;
  int nbin[3], mbinlo[3], mbin[3];
  int atoms_per_bin, nstencil, maxneighs, half, newton, bin_copy;
  int64_t nlocal, nall, mbins;
} nb_args;

/** The reference's coord2bin, 0-based; -1 when the atom is outside the local bin grid. */
PORTA_INLINE_FUNCTION int64_t nb_coord2bin(const nb_args *a, const double *x) {
  int64_t ix[3];
  for (int d = 0; d < 3; ++d) {
    int64_t c;
    if (x[d] >= a->prd[d])
      c = (int64_t)((x[d] - a->prd[d]) * a->bininv[d]) + a->nbin[d] - a->mbinlo[d];
    else if (x[d] >= 0.0)
      c = (int64_t)(x[d] * a->bininv[d]) - a->mbinlo[d];
    else
      c = (int64_t)(x[d] * a->bininv[d]) - a->mbinlo[d] - 1;
    if (c < 0 || c >= a->mbin[d]) return -1;
    ix[d] = c;
  }
  return (ix[2] * a->mbin[1] + ix[1]) * a->mbin[0] + ix[0];
}

/* The bins' own copy of the positions (bin_copy): on the host a full-list build reads them
 * contiguously (1.6x faster on 2 cores); on a GPU, where a warp's atoms sit in different bins,
 * the gather through the atom index was faster (H100, EAM -s 64: 0.016 s of list building
 * per 100 steps against 0.031 s). MINIMD_NO_BIN_COPY=1 takes the GPU's way on the host (the tests
 * check it). */

/* every atom into its bin; flag bit 1: a bin overflowed, bit 2: an atom outside the bins */
PORTA_FOR(minimd_k_bin, nb_args, a, i) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int64_t b = nb_coord2bin(a, xi.v);
  if (b < 0) {
    porta_atomic_or_i32(&PORTA_AT1(a->flag, 0), 2);
    return;
  }
  const int slot = porta_atomic_fetch_add_i32(&PORTA_AT1(a->bincount, b), 1);
  if (slot < a->atoms_per_bin) {
    PORTA_AT2(a->bins, b, slot) = (int32_t)i;
    if (a->bin_copy) PORTA_AT1(a->binx, b * a->atoms_per_bin + slot) = xi;
  } else
    porta_atomic_or_i32(&PORTA_AT1(a->flag, 0), 1);
}

/* owned atom i's list; the reduction is the longest list (the width it needs). A full list on
 * the host reads the candidates' positions from the bins' copy and looks at an index only for
 * the candidates it keeps; half lists need every index (j < i). */
PORTA_REDUCE(minimd_k_build, nb_args, a, i, porta_max_i32, longest) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int64_t ib = nb_coord2bin(a, xi.v);
  int n = 0;
  for (int s = 0; s < a->nstencil; ++s) {
    const int64_t jb = ib + PORTA_AT1(a->stencil, s);
    const int cnt = PORTA_AT1(a->bincount, jb);
    if (a->bin_copy && !a->half) {
      const minimd_vec3 *bx = &PORTA_AT1(a->binx, jb * a->atoms_per_bin);
      for (int q = 0; q < cnt; ++q) {
        const double dx = xi.v[0] - bx[q].v[0], dy = xi.v[1] - bx[q].v[1],
                     dz = xi.v[2] - bx[q].v[2];
        if (dx * dx + dy * dy + dz * dz <= a->cutneighsq) {
          const int32_t j = PORTA_AT2(a->bins, jb, q);
          if (j == i) continue;
          if (n < a->maxneighs) PORTA_AT2(a->neighbors, i, n) = j;
          ++n;
        }
      }
      continue;
    }
    for (int q = 0; q < cnt; ++q) {
      const int64_t j = PORTA_AT2(a->bins, jb, q);
      if (j == i) continue;
      if (!a->half) {
        /* full list: every j */
      } else if (!a->newton) {
        if (j < i) continue;
      } else if (jb == ib) {
        if (j < i) continue;
        if (j >= a->nlocal) {
          const minimd_vec3 xj = PORTA_AT1(a->x, j);
          if (xj.v[2] < xi.v[2]) continue;
          if (xj.v[2] == xi.v[2]) {
            if (xj.v[1] < xi.v[1]) continue;
            if (xj.v[1] == xi.v[1] && xj.v[0] < xi.v[0]) continue;
          }
        }
      }
      const minimd_vec3 xj = PORTA_AT1(a->x, j);
      const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
      if (dx * dx + dy * dy + dz * dz <= a->cutneighsq) {
        if (n < a->maxneighs) PORTA_AT2(a->neighbors, i, n) = (int32_t)j;
        ++n;
      }
    }
  }
  PORTA_AT1(a->numneigh, i) = n;
  if (n > *longest) *longest = n;
}

/** Does neighbour j come before k: global id, then position (two images of one atom). */
PORTA_INLINE_FUNCTION int nb_before(const nb_args *a, int64_t j, int64_t k) {
  const int64_t ij = PORTA_AT1(a->id, j), ik = PORTA_AT1(a->id, k);
  if (ij != ik) return ij < ik;
  const minimd_vec3 xj = PORTA_AT1(a->x, j), xk = PORTA_AT1(a->x, k);
  for (int d = 2; d >= 0; --d)
    if (xj.v[d] != xk.v[d]) return xj.v[d] < xk.v[d];
  return 0;
}

/* reproducible mode: atom i's list in global-id order (insertion sort, lists are short) */
PORTA_FOR(minimd_k_sort_list, nb_args, a, i) {
  const int n = PORTA_AT1(a->numneigh, i);
  for (int p = 1; p < n; ++p) {
    const int32_t j = PORTA_AT2(a->neighbors, i, p);
    int q = p - 1;
    while (q >= 0 && nb_before(a, j, PORTA_AT2(a->neighbors, i, q))) {
      PORTA_AT2(a->neighbors, i, q + 1) = PORTA_AT2(a->neighbors, i, q);
      --q;
    }
    PORTA_AT2(a->neighbors, i, q + 1) = j;
  }
}

/* ---- host side --------------------------------------------------------------------------- */

/** The reference's bin distance: the closest approach of two bins i, j, k apart. */
static double bindist(const minimd_neighbor *nb, int i, int j, int k) {
  const int o[3] = {i, j, k};
  double d2 = 0.0;
  for (int d = 0; d < 3; ++d) {
    double del = 0.0;
    if (o[d] > 0) del = (o[d] - 1) * nb->binsize[d];
    if (o[d] < 0) del = (o[d] + 1) * nb->binsize[d];
    d2 += del * del;
  }
  return d2;
}

int minimd_neighbor_setup(minimd *m) {
  minimd_neighbor *nb = &m->neigh;
  const minimd_comm *c = &m->comm;
  const double cut = c->cutneigh;
  nb->cutneighsq = cut * cut;
  int64_t mbins = 1;
  for (int d = 0; d < 3; ++d) {
    nb->binsize[d] = c->prd[d] / nb->nbin[d];
    nb->bininv[d] = 1.0 / nb->binsize[d];
    double coord = c->lo[d] - cut - 1e-6 * c->prd[d];
    int lo = (int)(coord * nb->bininv[d]);
    if (coord < 0.0) lo -= 1;
    coord = c->hi[d] + cut + 1e-6 * c->prd[d];
    int hi = (int)(coord * nb->bininv[d]);
    lo -= 1;
    hi += 1;
    nb->mbinlo[d] = lo;
    nb->mbin[d] = hi - lo + 1;
    mbins *= nb->mbin[d];
  }
  nb->mbins = mbins;
  int next[3];
  for (int d = 0; d < 3; ++d) {
    next[d] = (int)(cut * nb->bininv[d]);
    if (next[d] * nb->binsize[d] < 0.999 * cut) next[d]++;
  }
  int32_t *st = (int32_t *)malloc((size_t)(2 * next[0] + 1) * (2 * next[1] + 1) *
                                  (2 * next[2] + 1) * sizeof(int32_t));
  if (!st) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "stencil", "no memory");
  int ns = 0;
  const int upper = nb->half && nb->newton;
  if (upper) st[ns++] = 0;
  for (int k = upper ? 0 : -next[2]; k <= next[2]; ++k)
    for (int j = -next[1]; j <= next[1]; ++j)
      for (int i = -next[0]; i <= next[0]; ++i) {
        if (upper && !(k > 0 || j > 0 || (j == 0 && i > 0))) continue;
        if (bindist(nb, i, j, k) < nb->cutneighsq)
          st[ns++] = (k * nb->mbin[1] + j) * nb->mbin[0] + i;
      }
  nb->nstencil = ns;
  porta_view_options hopt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, 0, NULL};
  porta_view_i32 h;
  int64_t n = ns;
  int rc = porta_view_i32_wrap(&h, st, "stencil_host", 1, &n, &hopt);
  if (rc == PORTA_SUCCESS) rc = porta_view_i32_create1(&nb->stencil, "minimd_stencil", ns);
  if (rc == PORTA_SUCCESS) rc = porta_deep_copy(nb->stencil, h);
  porta_view_i32_release(&h);
  free(st);
  PORTA_CHECK(rc);
  if (nb->atoms_per_bin < 8) nb->atoms_per_bin = 8;
  if (nb->maxneighs < 100) nb->maxneighs = 100;
  PORTA_CHECK(porta_view_i32_create1(&nb->bincount, "minimd_bincount", mbins));
  PORTA_CHECK(porta_view_i32_create2(&nb->bins, "minimd_bins", mbins, nb->atoms_per_bin));
  const int64_t nbx = mbins * nb->atoms_per_bin;
  PORTA_CHECK(porta_view_vec3_create(&nb->binx, "minimd_binx", 1, &nbx, NULL));
  PORTA_CHECK(porta_view_i32_create1(&nb->flag, "minimd_nbflag", 1));
  return PORTA_SUCCESS;
}

void minimd_neighbor_bin_host(const minimd *m, const double *x, int64_t n, int64_t *bin) {
  nb_args a;
  memset(&a, 0, sizeof a);
  const minimd_neighbor *nb = &m->neigh;
  for (int d = 0; d < 3; ++d) {
    a.prd[d] = m->comm.prd[d];
    a.bininv[d] = nb->bininv[d];
    a.nbin[d] = nb->nbin[d];
    a.mbinlo[d] = nb->mbinlo[d];
    a.mbin[d] = nb->mbin[d];
  }
  for (int64_t i = 0; i < n; ++i) bin[i] = nb_coord2bin(&a, x + 3 * i);
}

static int read_flag(porta_view_i32 v, int32_t *out) {
  porta_view_options hopt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, 0, NULL};
  porta_view_i32 h;
  int64_t n = 1;
  PORTA_CHECK(porta_view_i32_wrap(&h, out, "flag_host", 1, &n, &hopt));
  int rc = porta_deep_copy(h, v);
  porta_view_i32_release(&h);
  return rc;
}

int minimd_neighbor_build(minimd *m) {
  minimd_neighbor *nb = &m->neigh;
  minimd_atoms *at = &m->atoms;
  nb_args a;
  memset(&a, 0, sizeof a);
  a.x = at->x;
  a.id = at->id;
  for (int d = 0; d < 3; ++d) {
    a.prd[d] = m->comm.prd[d];
    a.bininv[d] = nb->bininv[d];
    a.nbin[d] = nb->nbin[d];
    a.mbinlo[d] = nb->mbinlo[d];
    a.mbin[d] = nb->mbin[d];
  }
  a.cutneighsq = nb->cutneighsq;
  a.nstencil = nb->nstencil;
  a.half = nb->half;
  a.newton = nb->newton;
  a.nlocal = at->nlocal;
  a.nall = at->nlocal + at->nghost;
  a.mbins = nb->mbins;
  a.stencil = nb->stencil;
  const char *nocopy = getenv("MINIMD_NO_BIN_COPY");
  a.bin_copy = m->exec.backend != PORTA_BACKEND_CUDA && !(nocopy && !strcmp(nocopy, "1"));
  const int32_t zero = 0;
  for (;;) { /* bin, doubling the bins' capacity until every atom fits */
    PORTA_CHECK(porta_view_fill(PORTA_VIEW_ERASE(nb->bincount), &zero));
    PORTA_CHECK(porta_view_fill(PORTA_VIEW_ERASE(nb->flag), &zero));
    a.bincount = nb->bincount;
    a.bins = nb->bins;
    a.binx = nb->binx;
    a.flag = nb->flag;
    a.atoms_per_bin = nb->atoms_per_bin;
    PORTA_CHECK(
        porta_parallel_for("minimd_bin", m->exec, porta_range(0, a.nall), &minimd_k_bin, &a));
    int32_t flag = 0;
    PORTA_CHECK(read_flag(nb->flag, &flag));
    if (flag & 2)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", "neighbor",
                         "an atom is outside this rank's bins (it moved farther than the "
                         "neighbour skin allows, or its position is not finite)");
    if (!(flag & 1)) break;
    nb->atoms_per_bin *= 2;
    porta_view_i32_release(&nb->bins);
    porta_view_vec3_release(&nb->binx);
    PORTA_CHECK(porta_view_i32_create2(&nb->bins, "minimd_bins", nb->mbins, nb->atoms_per_bin));
    const int64_t nbx = nb->mbins * nb->atoms_per_bin;
    PORTA_CHECK(porta_view_vec3_create(&nb->binx, "minimd_binx", 1, &nbx, NULL));
  }
  for (;;) { /* build, widening the list until the longest fits */
    if (nb->nlocal_cap < at->nlocal || !nb->neighbors.data) {
      porta_view_i32_release(&nb->numneigh);
      porta_view_i32_release(&nb->neighbors);
      nb->nlocal_cap = at->nlocal + at->nlocal / 5 + 16;
      porta_view_options opt = {porta_exec_memory_space(m->exec), PORTA_LAYOUT_DEFAULT,
                                PORTA_VIEW_UNINITIALIZED, NULL};
      int64_t e1 = nb->nlocal_cap, e2[2] = {nb->nlocal_cap, nb->maxneighs};
      PORTA_CHECK(porta_view_i32_create(&nb->numneigh, "minimd_numneigh", 1, &e1, &opt));
      PORTA_CHECK(porta_view_i32_create(&nb->neighbors, "minimd_neighbors", 2, e2, &opt));
    }
    a.numneigh = nb->numneigh;
    a.neighbors = nb->neighbors;
    a.maxneighs = nb->maxneighs;
    int32_t longest = 0;
    PORTA_CHECK(porta_parallel_reduce("minimd_neighbor_build", m->exec, porta_range(0, a.nlocal),
                                      &minimd_k_build, &a, &longest));
    if (longest <= nb->maxneighs) break;
    nb->maxneighs = (int)(1.2 * longest) + 1;
    porta_view_i32_release(&nb->neighbors); /* reallocated at the new width above */
  }
  if (m->reproducible)
    PORTA_CHECK(porta_parallel_for("minimd_sort_lists", m->exec, porta_range(0, a.nlocal),
                                   &minimd_k_sort_list, &a));
  nb->builds += 1;
  return PORTA_SUCCESS;
}
