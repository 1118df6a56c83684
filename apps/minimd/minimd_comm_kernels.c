/** @file minimd_comm_kernels.c
 *  The device side of the ghost swaps: the image shift of received positions and, for a swap
 *  whose partner is this rank itself (one rank along a dimension), the whole swap as one
 *  kernel: ghost k = atom sendlist[k] (+ shift) forward, atom sendlist[k] += ghost k back.
 *  Kernel file (C11 and C++17). */
#include <string.h>

#include "minimd_kernels.h"

typedef struct swap_args {
  porta_view_vec3 x;
  porta_view_f64 s;
  porta_view_i64 list, list2; /* list2: a second, independent swap in the same launch */
  int64_t first, n, first2;
  double shift[3], shift2[3];
} swap_args;

PORTA_FOR(minimd_k_shift, swap_args, a, k) {
  minimd_vec3 *p = &PORTA_AT1(a->x, a->first + k);
  for (int d = 0; d < 3; ++d) p->v[d] += a->shift[d];
}

/* index k < n: the first swap; n and above: the second (the lower and the upper swap of one
 * dimension read the same candidates and write different ghosts, so they can share a launch) */
PORTA_FOR(minimd_k_self_forward, swap_args, a, k) {
  const int second = k >= a->n;
  const int64_t q = second ? k - a->n : k;
  const int64_t from = second ? PORTA_AT1(a->list2, q) : PORTA_AT1(a->list, q);
  const minimd_vec3 src = PORTA_AT1(a->x, from);
  minimd_vec3 *dst = &PORTA_AT1(a->x, (second ? a->first2 : a->first) + q);
  for (int d = 0; d < 3; ++d) dst->v[d] = src.v[d] + (second ? a->shift2[d] : a->shift[d]);
}

/* the atoms of one swap's list are distinct, so the adds do not race */
PORTA_FOR(minimd_k_self_reverse, swap_args, a, k) {
  const minimd_vec3 g = PORTA_AT1(a->x, a->first + k);
  minimd_vec3 *dst = &PORTA_AT1(a->x, PORTA_AT1(a->list, k));
  for (int d = 0; d < 3; ++d) dst->v[d] += g.v[d];
}

PORTA_FOR(minimd_k_self_scalar, swap_args, a, k) {
  PORTA_AT1(a->s, a->first + k) = PORTA_AT1(a->s, PORTA_AT1(a->list, k));
}

static swap_args make(porta_view_vec3 x, porta_view_i64 list, int64_t first, const double *shift) {
  swap_args a;
  a.x = x;
  a.s.data = NULL;
  a.s.m = x.m;
  a.list = list;
  a.list2 = list;
  a.first = first;
  a.n = 0;
  a.first2 = 0;
  for (int d = 0; d < 3; ++d) {
    a.shift[d] = shift ? shift[d] : 0.0;
    a.shift2[d] = 0.0;
  }
  return a;
}

int minimd_shift(porta_exec exec, porta_view_vec3 x, int64_t first, int64_t n,
                 const double shift[3]) {
  porta_view_i64 none;
  none.data = NULL;
  none.m = x.m;
  swap_args a = make(x, none, first, shift);
  return porta_parallel_for("minimd_shift", exec, porta_range(0, n), &minimd_k_shift, &a);
}

int minimd_self_forward(porta_exec exec, porta_view_vec3 x, porta_view_i64 list, int64_t n,
                        int64_t first, const double shift[3], porta_view_i64 list2, int64_t n2,
                        int64_t first2, const double shift2[3]) {
  swap_args a = make(x, list, first, shift);
  a.n = n;
  a.list2 = n2 > 0 ? list2 : list;
  a.first2 = first2;
  for (int d = 0; d < 3; ++d) a.shift2[d] = n2 > 0 ? shift2[d] : 0.0;
  return porta_parallel_for("minimd_self_forward", exec, porta_range(0, n + n2),
                            &minimd_k_self_forward, &a);
}

int minimd_self_reverse(porta_exec exec, porta_view_vec3 f, porta_view_i64 list, int64_t n,
                        int64_t first) {
  swap_args a = make(f, list, first, NULL);
  return porta_parallel_for("minimd_self_reverse", exec, porta_range(0, n), &minimd_k_self_reverse,
                            &a);
}

int minimd_self_scalar(porta_exec exec, porta_view_f64 s, porta_view_i64 list, int64_t n,
                       int64_t first) {
  porta_view_vec3 none;
  none.data = NULL;
  none.m = s.m;
  swap_args a = make(none, list, first, NULL);
  a.s = s;
  return porta_parallel_for("minimd_self_scalar", exec, porta_range(0, n), &minimd_k_self_scalar,
                            &a);
}

/* ---- re-neighbouring on the execution space (one rank: every swap is a self swap) -------- */

typedef struct border_args {
  porta_view_vec3 x;
  porta_view_i32 type;
  porta_view_i64 id, list;
  int64_t nfirst, first;
  int dim;
  double lo, hi, shift[3], prd[3];
} border_args;

/* owned positions wrapped into the box (the reference's test: < 0, then >= L) */
PORTA_FOR(minimd_k_wrap, border_args, a, i) {
  minimd_vec3 *p = &PORTA_AT1(a->x, i);
  for (int d = 0; d < 3; ++d) {
    if (p->v[d] < 0.0) p->v[d] += a->prd[d];
    if (p->v[d] >= a->prd[d]) p->v[d] -= a->prd[d];
  }
}

/* the candidates within the swap's slab, in index order, into list */
PORTA_SCAN(minimd_k_slab, border_args, a, k, porta_sum_i64, upd, final) {
  const double c = PORTA_AT1(a->x, a->nfirst + k).v[a->dim];
  if (c >= a->lo && c <= a->hi) {
    if (final) PORTA_AT1(a->list, *upd) = a->nfirst + k;
    *upd += 1;
  }
}

/* ghost first + k is the image of atom list[k] */
PORTA_FOR(minimd_k_ghost, border_args, a, k) {
  const int64_t i = PORTA_AT1(a->list, k), g = a->first + k;
  const minimd_vec3 src = PORTA_AT1(a->x, i);
  minimd_vec3 *dst = &PORTA_AT1(a->x, g);
  for (int d = 0; d < 3; ++d) dst->v[d] = src.v[d] + a->shift[d];
  PORTA_AT1(a->type, g) = PORTA_AT1(a->type, i);
  PORTA_AT1(a->id, g) = PORTA_AT1(a->id, i);
}

int minimd_reneighbor_device(minimd *m) {
  minimd_comm *c = &m->comm;
  minimd_atoms *at = &m->atoms;
  border_args a;
  memset(&a, 0, sizeof a);
  a.x = at->x;
  a.type = at->type;
  a.id = at->id;
  for (int d = 0; d < 3; ++d) a.prd[d] = c->prd[d];
  PORTA_CHECK(
      porta_parallel_for("minimd_wrap", m->exec, porta_range(0, at->nlocal), &minimd_k_wrap, &a));
  /* every swap's candidates, as minimd_comm_borders chooses them; a list may be as long as the
     candidates, a ghost range must fit the views: otherwise the caller takes the host path */
  int64_t nghost = 0, nfirst = 0, nlast = 0;
  int s = 0;
  for (int d = 0; d < 3; ++d) {
    nlast = 0;
    for (int k = 0; k < 2 * c->need[d]; ++k, ++s) {
      minimd_swap *w = &c->swaps[s];
      if (k % 2 == 0) {
        nfirst = nlast;
        nlast = at->nlocal + nghost;
      }
      if (porta_extent(w->list_d, 0) < nlast - nfirst || !w->list_d.data) {
        porta_view_i64_release(&w->list_d);
        const int64_t len = (nlast - nfirst) + (nlast - nfirst) / 4 + 16;
        porta_view_options opt = {porta_exec_memory_space(m->exec), PORTA_LAYOUT_DEFAULT,
                                  PORTA_VIEW_UNINITIALIZED, NULL};
        PORTA_CHECK(porta_view_i64_create(&w->list_d, "minimd_sendlist", 1, &len, &opt));
      }
      a.list = w->list_d;
      a.nfirst = nfirst;
      a.dim = d;
      a.lo = w->slablo;
      a.hi = w->slabhi;
      int64_t count = 0;
      PORTA_CHECK(porta_parallel_scan("minimd_slab", m->exec, porta_range(0, nlast - nfirst),
                                      &minimd_k_slab, &a, &count));
      w->firstrecv = at->nlocal + nghost;
      if (w->firstrecv + count > at->cap) return PORTA_ERROR_OUT_OF_MEMORY; /* host path */
      w->nsend = w->nrecv = count;
      w->self = 1;
      a.first = w->firstrecv;
      for (int e = 0; e < 3; ++e) a.shift[e] = w->shift[e];
      PORTA_CHECK(
          porta_parallel_for("minimd_ghost", m->exec, porta_range(0, count), &minimd_k_ghost, &a));
      nghost += count;
    }
  }
  at->nghost = nghost;
  if (nghost > c->max_ghosts) c->max_ghosts = nghost;
  return PORTA_SUCCESS;
}
