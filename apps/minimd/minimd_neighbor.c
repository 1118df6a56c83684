/** @file minimd_neighbor.c
 *  Binning and the neighbour list, as the reference builds them (bins of 5/6 of a unit cell,
 *  a local bin grid over the sub-box plus the cut-off plus one bin, a stencil of the bins
 *  within the cut-off, inclusion at r^2 <= (cutforce + skin)^2), on the execution space.
 *
 *  The atoms are binned by a counting sort: an atomic counter per bin, a scan of the counts,
 *  then each atom's position and index written to its bin's slots, so that the atoms of
 *  consecutive bins are consecutive in memory. The stencil is kept as rows, runs of bins
 *  consecutive along x, and one thread per owned atom walks each row as one contiguous range of
 *  candidates: about 25 ranges of 8-12 atoms instead of 93 bins of 2-3 (H100, LJ -s 100: 12.5
 *  ms a build against 13.8 with bins of fixed capacity read through the atom index).
 *
 *  Three list kinds: full (every j != i), half with Newton across ghosts (upper bins only; in
 *  the own bin j > i, ghosts only if not below i in z, y, x order) and half without (every bin,
 *  j > i: owned-ghost pairs are listed on both ranks). The list is a 2D view [atom][slot] in
 *  the memory space's default layout (slot-major on a GPU, so the threads of a warp read
 *  consecutive words). In reproducible mode each list is put in global-id order, so a force
 *  sums its terms in an order that no decomposition or thread count changes.
 *  Kernel file (C11 and C++17). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minimd_kernels.h"

/** The local bin grid, what nb_coord2bin reads (plain numbers, in every struct below). */
typedef struct nb_grid {
  double prd[3], bininv[3];
  int nbin[3], mbinlo[3], mbin[3];
} nb_grid;

/** Binning: the atoms counted, the bins' starts scanned, the atoms filled into their bins. */
typedef struct bin_args {
  nb_grid g;
  porta_view_vec3 x, binx;
  porta_view_i32 bincount, binstart, binatom, flag; /* flag: an atom outside the bins */
  int64_t nall, mbins;
} bin_args;

/** The list build: owned atom i's neighbours from the binned atoms of its stencil's rows. */
typedef struct build_args {
  nb_grid g;
  porta_view_vec3 x, binx;
  porta_view_i32 binstart, binatom, rows, numneigh, neighbors;
  double cutneighsq;
  int nrows, maxneighs;
  int64_t nlocal;
} build_args;

/** The device sort of the owned atoms by bin (after binning them). */
typedef struct sort_args {
  nb_grid g;
  porta_view_vec3 x, v, binx, sortv; /* sortv, sorttype, sortid: the sorted copies */
  porta_view_i32 type, sorttype, bincount, binstart, binatom, flag;
  porta_view_i64 id, sortid;
} sort_args;

/** What follows a build: the reproducible order of each list, the split into atoms without and
 *  with ghost neighbours. */
typedef struct list_args {
  porta_view_vec3 x;
  porta_view_i64 id;
  porta_view_i32 numneigh, neighbors, isborder, inner, border;
  int64_t nlocal;
  int64_t ready; /**< the split: atoms and ghosts below this are ready before the first forces */
} list_args;

/** The reference's coord2bin, 0-based; -1 when the atom is outside the local bin grid. */
PORTA_INLINE_FUNCTION int64_t nb_coord2bin(const nb_grid *a, const double *x) {
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

/* count the atoms of every bin; flag: an atom outside the bins */
PORTA_FOR(minimd_k_bin_count, bin_args, a, i) {
  const int64_t b = nb_coord2bin(&a->g, PORTA_AT1(a->x, i).v);
  if (b < 0)
    porta_atomic_or_i32(&PORTA_AT1(a->flag, 0), 1);
  else
    porta_atomic_add_i32(&PORTA_AT1(a->bincount, b), 1);
}

/* binstart[b] = atoms in the bins before b (b = mbins: all); the counters back to zero */
PORTA_SCAN(minimd_k_bin_start, bin_args, a, b, porta_sum_i64, upd, final) {
  const int c = b < a->mbins ? PORTA_AT1(a->bincount, b) : 0;
  if (final) {
    PORTA_AT1(a->binstart, b) = (int32_t)*upd;
    if (b < a->mbins) PORTA_AT1(a->bincount, b) = 0;
  }
  *upd += c;
}

/* every atom into the next free slot of its bin (in index order on one thread) */
PORTA_FOR(minimd_k_bin_fill, bin_args, a, i) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int64_t b = nb_coord2bin(&a->g, xi.v);
  const int64_t slot =
      PORTA_AT1(a->binstart, b) + porta_atomic_fetch_add_i32(&PORTA_AT1(a->bincount, b), 1);
  PORTA_AT1(a->binx, slot) = xi;
  PORTA_AT1(a->binatom, slot) = (int32_t)i;
}

/* owned atom i's list; the reduction is the longest list (the width it needs). Candidates are
 * tested by distance first, from the binned positions; the atom index is read only for those
 * within the cut-off. With Newton across ghosts row 0 is the own bin, where a pair is listed
 * once: by the lower index, and for a ghost partner only if it is not below i in z, y, x. */
PORTA_FORCEINLINE_FUNCTION void nb_build_atom(const build_args *a, int64_t i, int32_t *longest,
                                              int half, int newton) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int64_t ib = nb_coord2bin(&a->g, xi.v);
  const int upper = half && newton;
  int n = 0;
  for (int r = 0; r < a->nrows; ++r) {
    const int64_t b0 = ib + PORTA_AT1(a->rows, 2 * r);
    const int32_t p0 = PORTA_AT1(a->binstart, b0);
    const int32_t p1 = PORTA_AT1(a->binstart, b0 + PORTA_AT1(a->rows, 2 * r + 1));
    const int own = upper && r == 0;
    for (int32_t p = p0; p < p1; ++p) {
      const minimd_vec3 xj = PORTA_AT1(a->binx, p);
      const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
      if (dx * dx + dy * dy + dz * dz > a->cutneighsq) continue;
      const int32_t j = PORTA_AT1(a->binatom, p);
      if (j == i) continue;
      if (half && !newton && j < i) continue;
      if (own) {
        if (j < i) continue;
        if (j >= a->nlocal) {
          if (xj.v[2] < xi.v[2]) continue;
          if (xj.v[2] == xi.v[2]) {
            if (xj.v[1] < xi.v[1]) continue;
            if (xj.v[1] == xi.v[1] && xj.v[0] < xi.v[0]) continue;
          }
        }
      }
      if (n < a->maxneighs) PORTA_AT2(a->neighbors, i, n) = j;
      ++n;
    }
  }
  PORTA_AT1(a->numneigh, i) = n;
  if (n > *longest) *longest = n;
}

/* the full list, the half list without and with Newton across ghosts */
PORTA_REDUCE(minimd_k_build_full, build_args, a, i, porta_max_i32, longest) {
  nb_build_atom(a, i, longest, 0, 0);
}
PORTA_REDUCE(minimd_k_build_half, build_args, a, i, porta_max_i32, longest) {
  nb_build_atom(a, i, longest, 1, 0);
}
PORTA_REDUCE(minimd_k_build_half_newton, build_args, a, i, porta_max_i32, longest) {
  nb_build_atom(a, i, longest, 1, 1);
}

/** The list of the kind `nb` asks for; *longest = the most neighbours of one atom. */
static int build_launch(porta_exec exec, const minimd_neighbor *nb, const build_args *a,
                        int32_t *longest) {
  const char *label = "minimd_neighbor_build";
  const porta_range_policy r = porta_range(0, a->nlocal);
  if (!nb->half)
    return PORTA_PARALLEL_REDUCE_LABELED(label, minimd_k_build_full, exec, r, a, longest);
  if (!nb->newton)
    return PORTA_PARALLEL_REDUCE_LABELED(label, minimd_k_build_half, exec, r, a, longest);
  return PORTA_PARALLEL_REDUCE_LABELED(label, minimd_k_build_half_newton, exec, r, a, longest);
}

/** Does neighbour j come before k: global id, then position (two images of one atom). */
PORTA_INLINE_FUNCTION int nb_before(const list_args *a, int64_t j, int64_t k) {
  const int64_t ij = PORTA_AT1(a->id, j), ik = PORTA_AT1(a->id, k);
  if (ij != ik) return ij < ik;
  const minimd_vec3 xj = PORTA_AT1(a->x, j), xk = PORTA_AT1(a->x, k);
  for (int d = 2; d >= 0; --d)
    if (xj.v[d] != xk.v[d]) return xj.v[d] < xk.v[d];
  return 0;
}

/** Most atoms a bin is ordered with (one thread orders a bin by insertion, in a time of its
 *  count squared: bins of a few atoms, the default 5/6 of a unit cell holds about 2, not a
 *  coarse --neigh_bins). */
#define MINIMD_BIN_ORDER_MOST 64

/* the slots of bin b in atom order (the fill's atomics left them in any order), where it holds
   at most MINIMD_BIN_ORDER_MOST atoms */
PORTA_FOR(minimd_k_bin_order, sort_args, a, b) {
  const int64_t s0 = PORTA_AT1(a->binstart, b), s1 = PORTA_AT1(a->binstart, b + 1);
  if (s1 - s0 > MINIMD_BIN_ORDER_MOST) return;
  for (int64_t s = s0 + 1; s < s1; ++s) {
    const int32_t i = PORTA_AT1(a->binatom, s);
    const minimd_vec3 xi = PORTA_AT1(a->binx, s);
    int64_t t = s;
    for (; t > s0 && PORTA_AT1(a->binatom, t - 1) > i; --t) {
      PORTA_AT1(a->binatom, t) = PORTA_AT1(a->binatom, t - 1);
      PORTA_AT1(a->binx, t) = PORTA_AT1(a->binx, t - 1);
    }
    PORTA_AT1(a->binatom, t) = i;
    PORTA_AT1(a->binx, t) = xi;
  }
}

/* the sort: the fullest bin */
PORTA_REDUCE(minimd_k_fullest_bin, sort_args, a, b, porta_max_i32, most) {
  const int32_t n = PORTA_AT1(a->bincount, b);
  if (n > *most) *most = n;
}

/* the sort's check (MINIMD_CHECK_SORT=1): atom q's bin is not below atom q - 1's */
PORTA_FOR(minimd_k_check_sorted, sort_args, a, q) {
  if (nb_coord2bin(&a->g, PORTA_AT1(a->x, q - 1).v) > nb_coord2bin(&a->g, PORTA_AT1(a->x, q).v))
    porta_atomic_or_i32(&PORTA_AT1(a->flag, 0), 1);
}

/* the sort: slot q's atom's velocity, type and id into the sorted copies */
PORTA_FOR(minimd_k_sort_gather, sort_args, a, q) {
  const int32_t i = PORTA_AT1(a->binatom, q);
  PORTA_AT1(a->sortv, q) = PORTA_AT1(a->v, i);
  PORTA_AT1(a->sorttype, q) = PORTA_AT1(a->type, i);
  PORTA_AT1(a->sortid, q) = PORTA_AT1(a->id, i);
}

/* the sort: the sorted copies back into the atoms */
PORTA_FOR(minimd_k_sort_store, sort_args, a, q) {
  PORTA_AT1(a->x, q) = PORTA_AT1(a->binx, q);
  PORTA_AT1(a->v, q) = PORTA_AT1(a->sortv, q);
  PORTA_AT1(a->type, q) = PORTA_AT1(a->sorttype, q);
  PORTA_AT1(a->id, q) = PORTA_AT1(a->sortid, q);
}

/* the split: 1 when a ghost made by a swap with another rank is among atom i's neighbours */
PORTA_FOR(minimd_k_find_border, list_args, a, i) {
  const int n = PORTA_AT1(a->numneigh, i);
  int32_t ghost = 0;
  for (int k = 0; k < n; ++k) ghost |= PORTA_AT2(a->neighbors, i, k) >= a->ready;
  PORTA_AT1(a->isborder, i) = ghost;
}

/* the split: atom i into the next slot of its list (the scan counts the border atoms) */
PORTA_SCAN(minimd_k_split, list_args, a, i, porta_sum_i64, upd, final) {
  const int32_t b = PORTA_AT1(a->isborder, i);
  if (final) {
    if (b)
      PORTA_AT1(a->border, *upd) = (int32_t)i;
    else
      PORTA_AT1(a->inner, i - *upd) = (int32_t)i;
  }
  *upd += b;
}

/* reproducible mode: atom i's list in global-id order (insertion sort, lists are short) */
PORTA_FOR(minimd_k_sort_list, list_args, a, i) {
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

/* The local bin grid (the owned region and a cut-off around it): bin sizes, first bin and
   extents. Computed in doubles first: the extents and their product must fit the int32 bin
   indices of the kernels (minimd_bins_limit keeps them small; this is the last guard). */
static int bin_grid(minimd_neighbor *nb, const minimd_comm *c) {
  const double cut = c->cutneigh;
  double mbins_d = 1.0;
  for (int d = 0; d < 3; ++d) {
    nb->binsize[d] = c->prd[d] / nb->nbin[d];
    nb->bininv[d] = 1.0 / nb->binsize[d];
    const double below = c->lo[d] - cut - 1e-6 * c->prd[d];
    const double lo = trunc(below * nb->bininv[d]) - (below < 0.0 ? 1.0 : 0.0) - 1.0;
    const double hi = trunc((c->hi[d] + cut + 1e-6 * c->prd[d]) * nb->bininv[d]) + 1.0;
    if (!(fabs(lo) < 1e9 && fabs(hi) < 1e9))
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", "bins",
                         "%d bins along axis %d of a box of %g: the local bin grid reaches bin "
                         "%g",
                         nb->nbin[d], d, c->prd[d], fmax(fabs(lo), fabs(hi)));
    nb->mbinlo[d] = (int)lo;
    nb->mbin[d] = (int)(hi - lo) + 1;
    mbins_d *= nb->mbin[d];
  }
  if (mbins_d > 2147483646.0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", "bins",
                       "%d x %d x %d local bins (%.3g): more than the 2^31 - 1 the bin indices "
                       "hold; use fewer bins (-b)",
                       nb->mbin[0], nb->mbin[1], nb->mbin[2], mbins_d);
  nb->mbins = (int64_t)mbins_d;
  return PORTA_SUCCESS;
}

/* The stencil row by row into rows (pairs of first bin offset and count; *nr of them): for each
   (k, j) the bins i within reach form one run, symmetric about 0 (the upper half of a half list
   with Newton: the own bin first, then i > 0 in row (0, 0), then the rows above). `next`: the
   bins within the cut-off along each axis. */
static int stencil_rows(const minimd_neighbor *nb, const int next[3], int32_t **out, int *nr_out) {
  const int maxrows = (2 * next[1] + 1) * (2 * next[2] + 1) + 1;
  int32_t *rows = (int32_t *)malloc((size_t)maxrows * 2 * sizeof(int32_t));
  if (!rows) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "stencil", "no memory");
  int nr = 0;
  const int upper = nb->half && nb->newton;
  if (upper) {
    rows[2 * nr] = 0;
    rows[2 * nr + 1] = 1;
    ++nr;
  }
  for (int k = upper ? 0 : -next[2]; k <= next[2]; ++k)
    for (int j = -next[1]; j <= next[1]; ++j) {
      if (upper && k == 0 && j < 0) continue;
      const int ilo = upper && k == 0 && j == 0 ? 1 : -next[0];
      int first = 0, count = 0;
      for (int i = ilo; i <= next[0]; ++i)
        if (bindist(nb, i, j, k) < nb->cutneighsq) {
          if (count == 0) first = i;
          ++count;
        }
      if (count == 0) continue;
      rows[2 * nr] = (int32_t)(((int64_t)k * nb->mbin[1] + j) * nb->mbin[0] + first);
      rows[2 * nr + 1] = count;
      ++nr;
    }
  *out = rows;
  *nr_out = nr;
  return PORTA_SUCCESS;
}

int minimd_neighbor_setup(minimd *m) {
  minimd_neighbor *nb = &m->neigh;
  const minimd_comm *c = &m->comm;
  const double cut = c->cutneigh;
  nb->cutneighsq = cut * cut;
  PORTA_CHECK(bin_grid(nb, c));
  int next[3];
  for (int d = 0; d < 3; ++d) {
    if (cut * nb->bininv[d] > 1000.0) /* a stencil of billions of bins */
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", "bins",
                         "bins of %g along axis %d: over 1000 in the cut-off %g", nb->binsize[d], d,
                         cut);
    next[d] = (int)(cut * nb->bininv[d]);
    if (next[d] * nb->binsize[d] < 0.999 * cut) next[d]++;
  }
  int32_t *rows = NULL;
  int nr = 0;
  PORTA_CHECK(stencil_rows(nb, next, &rows, &nr));
  nb->nrows = nr;
  porta_view_options hopt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, 0, NULL};
  porta_view_i32 h;
  int64_t n = 2 * nr;
  int rc = porta_view_i32_wrap(&h, rows, "rows_host", 1, &n, &hopt);
  if (rc == PORTA_SUCCESS) rc = porta_view_i32_create1(&nb->rows, "minimd_stencil_rows", 2 * nr);
  if (rc == PORTA_SUCCESS) rc = porta_deep_copy(nb->rows, h);
  porta_view_i32_release(&h);
  free(rows);
  PORTA_CHECK(rc);
  if (nb->maxneighs < 100) nb->maxneighs = 100;
  PORTA_CHECK(porta_view_i32_create1(&nb->bincount, "minimd_bincount", nb->mbins));
  PORTA_CHECK(porta_view_i32_create1(&nb->binstart, "minimd_binstart", nb->mbins + 1));
  PORTA_CHECK(porta_view_i32_create1(&nb->flag, "minimd_nbflag", 1));
  return PORTA_SUCCESS;
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

/** The binning arguments of the current atoms; nall of them are binned. */
static nb_grid grid_make(const minimd *m) {
  const minimd_neighbor *nb = &m->neigh;
  nb_grid g;
  for (int d = 0; d < 3; ++d) {
    g.prd[d] = m->comm.prd[d];
    g.bininv[d] = nb->bininv[d];
    g.nbin[d] = nb->nbin[d];
    g.mbinlo[d] = nb->mbinlo[d];
    g.mbin[d] = nb->mbin[d];
  }
  return g;
}

void minimd_neighbor_bin_host(const minimd *m, const double *x, int64_t n, int64_t *bin) {
  const nb_grid g = grid_make(m);
  for (int64_t i = 0; i < n; ++i) bin[i] = nb_coord2bin(&g, x + 3 * i);
}

/** Atoms 0 .. nall - 1 into the bins: counted, the bins' starts scanned, then each atom's
 *  position and index into a slot of its bin (the binned copies grown as needed), and each bin
 *  of up to MINIMD_BIN_ORDER_MOST atoms put in atom order. The fill's atomics leave a bin's
 *  atoms in any order on several threads, and the lists read the bins in slot order: ordered,
 *  a list is the same on every run and thread count, and so is the force summed along it. */
static int bin_atoms(minimd *m, int64_t nall) {
  minimd_neighbor *nb = &m->neigh;
  if (nb->binned_cap < nall || !nb->binx.data) { /* the binned copies, as long as the atoms */
    porta_view_vec3_release(&nb->binx);
    porta_view_i32_release(&nb->binatom);
    nb->binned_cap = nall + nall / 5 + 64;
    porta_view_options opt = {porta_exec_memory_space(m->exec), PORTA_LAYOUT_DEFAULT,
                              PORTA_VIEW_UNINITIALIZED, NULL};
    PORTA_CHECK(porta_view_vec3_create(&nb->binx, "minimd_binx", 1, &nb->binned_cap, &opt));
    PORTA_CHECK(porta_view_i32_create(&nb->binatom, "minimd_binatom", 1, &nb->binned_cap, &opt));
  }
  bin_args b;
  memset(&b, 0, sizeof b);
  b.g = grid_make(m);
  b.x = m->atoms.x;
  b.binx = nb->binx;
  b.bincount = nb->bincount;
  b.binstart = nb->binstart;
  b.binatom = nb->binatom;
  b.flag = nb->flag;
  b.nall = nall;
  b.mbins = nb->mbins;
  const bin_args *a = &b;
  const int32_t zero = 0;
  PORTA_CHECK(porta_view_fill(PORTA_VIEW_ERASE(nb->bincount), &zero));
  PORTA_CHECK(porta_view_fill(PORTA_VIEW_ERASE(nb->flag), &zero));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_bin_count", minimd_k_bin_count, m->exec,
                                         porta_range(0, a->nall), a));
  int32_t flag = 0;
  PORTA_CHECK(read_flag(nb->flag, &flag));
  if (flag)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", "neighbor",
                       "an atom is outside this rank's bins (it moved farther than the "
                       "neighbour skin allows, or its position is not finite)");
  PORTA_CHECK(PORTA_PARALLEL_SCAN_LABELED("minimd_bin_start", minimd_k_bin_start, m->exec,
                                          porta_range(0, a->mbins + 1), a, NULL));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_bin_fill", minimd_k_bin_fill, m->exec,
                                         porta_range(0, a->nall), a));
  sort_args o;
  memset(&o, 0, sizeof o);
  o.binx = nb->binx;
  o.binstart = nb->binstart;
  o.binatom = nb->binatom;
  return PORTA_PARALLEL_FOR_LABELED("minimd_bin_order", minimd_k_bin_order, m->exec,
                                    porta_range(0, nb->mbins), &o);
}

int minimd_sort_reserve(minimd *m, int64_t n) {
  minimd_neighbor *nb = &m->neigh;
  if (nb->sortv.data && porta_extent(nb->sortv, 0) >= n) return PORTA_SUCCESS;
  porta_view_vec3_release(&nb->sortv);
  porta_view_i32_release(&nb->sorttype);
  porta_view_i64_release(&nb->sortid);
  const int64_t cap = n + n / 5 + 64;
  porta_view_options opt = {porta_exec_memory_space(m->exec), PORTA_LAYOUT_DEFAULT,
                            PORTA_VIEW_UNINITIALIZED, NULL};
  PORTA_CHECK(porta_view_vec3_create(&nb->sortv, "minimd_sortv", 1, &cap, &opt));
  PORTA_CHECK(porta_view_i32_create(&nb->sorttype, "minimd_sorttype", 1, &cap, &opt));
  return porta_view_i64_create(&nb->sortid, "minimd_sortid", 1, &cap, &opt);
}

int minimd_sort_device(minimd *m) {
  minimd_neighbor *nb = &m->neigh;
  minimd_atoms *at = &m->atoms;
  if (at->nlocal < 2) return PORTA_SUCCESS;
  PORTA_CHECK(minimd_sort_reserve(m, at->nlocal));
  PORTA_CHECK(bin_atoms(m, at->nlocal));
  sort_args a;
  memset(&a, 0, sizeof a);
  a.g = grid_make(m);
  a.x = at->x;
  a.v = at->v;
  a.type = at->type;
  a.id = at->id;
  a.binx = nb->binx;
  a.bincount = nb->bincount;
  a.binstart = nb->binstart;
  a.binatom = nb->binatom;
  a.flag = nb->flag;
  a.sortv = nb->sortv;
  a.sorttype = nb->sorttype;
  a.sortid = nb->sortid;
  /* where a bin was left unordered, the atoms stay as they are */
  int32_t most = 0;
  PORTA_CHECK(PORTA_PARALLEL_REDUCE_LABELED("minimd_fullest_bin", minimd_k_fullest_bin, m->exec,
                                            porta_range(0, nb->mbins), &a, &most));
  if (most > MINIMD_BIN_ORDER_MOST) return PORTA_SUCCESS;
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_sort_gather", minimd_k_sort_gather, m->exec,
                                         porta_range(0, at->nlocal), &a));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_sort_store", minimd_k_sort_store, m->exec,
                                         porta_range(0, at->nlocal), &a));
  if (!nb->check_sort) return PORTA_SUCCESS;
  const int32_t zero = 0;
  int32_t flag = 0;
  PORTA_CHECK(porta_view_fill(PORTA_VIEW_ERASE(nb->flag), &zero));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_check_sorted", minimd_k_check_sorted, m->exec,
                                         porta_range(1, at->nlocal), &a));
  PORTA_CHECK(read_flag(nb->flag, &flag));
  if (flag)
    return porta_error(PORTA_ERROR_BACKEND, "minimd_sort_device", "sort",
                       "the owned atoms are not in bin order after the sort");
  return PORTA_SUCCESS;
}

/** The owned atoms split by whether a ghost from another rank is among their neighbours
 *  (nb->split). The ghosts of the swaps with this rank itself that come before the first with
 *  another (the leading ones) are copies of owned atoms, made before the first forces: an atom
 *  near only those faces is computed with the inner atoms, which keeps the border atoms in
 *  whole rows and planes of bins (the bins run x fastest), not in short runs at every row's
 *  ends. */
static int split_atoms(minimd *m, list_args *a) {
  minimd_neighbor *nb = &m->neigh;
  a->ready = a->nlocal + m->comm.leading_ghosts;
  if (!nb->inner.data || porta_extent(nb->inner, 0) < a->nlocal) {
    porta_view_i32_release(&nb->isborder);
    porta_view_i32_release(&nb->inner);
    porta_view_i32_release(&nb->border);
    const int64_t cap = a->nlocal + a->nlocal / 5 + 64;
    porta_view_options opt = {porta_exec_memory_space(m->exec), PORTA_LAYOUT_DEFAULT,
                              PORTA_VIEW_UNINITIALIZED, NULL};
    PORTA_CHECK(porta_view_i32_create(&nb->isborder, "minimd_isborder", 1, &cap, &opt));
    PORTA_CHECK(porta_view_i32_create(&nb->inner, "minimd_inner", 1, &cap, &opt));
    PORTA_CHECK(porta_view_i32_create(&nb->border, "minimd_border", 1, &cap, &opt));
  }
  a->isborder = nb->isborder;
  a->inner = nb->inner;
  a->border = nb->border;
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_find_border", minimd_k_find_border, m->exec,
                                         porta_range(0, a->nlocal), a));
  int64_t nborder = 0;
  PORTA_CHECK(PORTA_PARALLEL_SCAN_LABELED("minimd_split", minimd_k_split, m->exec,
                                          porta_range(0, a->nlocal), a, &nborder));
  nb->nborder = nborder;
  nb->ninner = a->nlocal - nborder;
  return PORTA_SUCCESS;
}

int minimd_neighbor_build(minimd *m) {
  minimd_neighbor *nb = &m->neigh;
  minimd_atoms *at = &m->atoms;
  PORTA_CHECK(bin_atoms(m, at->nlocal + at->nghost));
  build_args a;
  memset(&a, 0, sizeof a);
  a.g = grid_make(m);
  a.x = at->x;
  a.binx = nb->binx;
  a.binstart = nb->binstart;
  a.binatom = nb->binatom;
  a.rows = nb->rows;
  a.cutneighsq = nb->cutneighsq;
  a.nrows = nb->nrows;
  a.nlocal = at->nlocal;
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
    PORTA_CHECK(build_launch(m->exec, nb, &a, &longest));
    if (longest <= nb->maxneighs) break;
    nb->maxneighs = (int)(1.2 * longest) + 1;
    porta_view_i32_release(&nb->neighbors); /* reallocated at the new width above */
  }
  list_args l;
  memset(&l, 0, sizeof l);
  l.x = at->x;
  l.id = at->id;
  l.numneigh = nb->numneigh;
  l.neighbors = nb->neighbors;
  l.nlocal = at->nlocal;
  if (m->reproducible)
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_sort_lists", minimd_k_sort_list, m->exec,
                                           porta_range(0, l.nlocal), &l));
  if (nb->split) PORTA_CHECK(split_atoms(m, &l));
  nb->builds += 1;
  return PORTA_SUCCESS;
}
