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
  return PORTA_PARALLEL_FOR_LABELED("minimd_shift", minimd_k_shift, exec, porta_range(0, n), &a);
}

int minimd_self_forward(porta_exec exec, porta_view_vec3 x, porta_view_i64 list, int64_t n,
                        int64_t first, const double shift[3], porta_view_i64 list2, int64_t n2,
                        int64_t first2, const double shift2[3]) {
  swap_args a = make(x, list, first, shift);
  a.n = n;
  a.list2 = n2 > 0 ? list2 : list;
  a.first2 = first2;
  for (int d = 0; d < 3; ++d) a.shift2[d] = n2 > 0 ? shift2[d] : 0.0;
  return PORTA_PARALLEL_FOR_LABELED("minimd_self_forward", minimd_k_self_forward, exec,
                                    porta_range(0, n + n2), &a);
}

int minimd_self_reverse(porta_exec exec, porta_view_vec3 f, porta_view_i64 list, int64_t n,
                        int64_t first) {
  swap_args a = make(f, list, first, NULL);
  return PORTA_PARALLEL_FOR_LABELED("minimd_self_reverse", minimd_k_self_reverse, exec,
                                    porta_range(0, n), &a);
}

int minimd_self_scalar(porta_exec exec, porta_view_f64 s, porta_view_i64 list, int64_t n,
                       int64_t first) {
  porta_view_vec3 none;
  none.data = NULL;
  none.m = s.m;
  swap_args a = make(none, list, first, NULL);
  a.s = s;
  return PORTA_PARALLEL_FOR_LABELED("minimd_self_scalar", minimd_k_self_scalar, exec,
                                    porta_range(0, n), &a);
}

typedef struct iota_args {
  porta_view_i64 list;
  int64_t first;
} iota_args;

PORTA_FOR(minimd_k_iota, iota_args, a, k) { PORTA_AT1(a->list, k) = a->first + k; }

int minimd_iota(porta_exec exec, porta_view_i64 list, int64_t first, int64_t n) {
  iota_args a;
  a.list = list;
  a.first = first;
  return PORTA_PARALLEL_FOR_LABELED("minimd_iota", minimd_k_iota, exec, porta_range(0, n), &a);
}

/* ---- re-neighbouring on the execution space (apps/minimd/minimd_comm_device.c) ----------- */

typedef struct atom_args {
  porta_view_vec3 x, v;
  porta_view_i32 type;
  porta_view_i64 id, list, list2;
  porta_view_f64 buf;
  int64_t first;
  int dim;
  double lo, hi, shift[3], prd[3];
} atom_args;

static atom_args atom_args_make(const minimd_atoms *at) {
  atom_args a;
  memset(&a, 0, sizeof a);
  a.x = at->x;
  a.v = at->v;
  a.type = at->type;
  a.id = at->id;
  a.list = a.list2 = at->id; /* placeholders of the right type; set where used */
  a.buf.m = at->x.m;
  return a;
}

/* owned positions wrapped into the box (the reference's test: < 0, then >= L) */
PORTA_FOR(minimd_k_wrap, atom_args, a, i) {
  minimd_vec3 *p = &PORTA_AT1(a->x, i);
  for (int d = 0; d < 3; ++d) {
    if (p->v[d] < 0.0) p->v[d] += a->prd[d];
    if (p->v[d] >= a->prd[d]) p->v[d] -= a->prd[d];
  }
}

PORTA_FORCEINLINE_FUNCTION int selected(int mode, double c, double lo, double hi) {
  return mode == MINIMD_SELECT_SLAB      ? c >= lo && c <= hi
         : mode == MINIMD_SELECT_OUTSIDE ? c < lo || c >= hi
                                         : c >= lo && c < hi;
}

/** The atoms first + k chosen by the mode, in index order, into list: one kernel per mode. */
#define MINIMD_SELECT_KERNEL(NAME, MODE)                                                           \
  PORTA_SCAN(NAME, atom_args, a, k, porta_sum_i64, upd, final) {                                   \
    const double c = PORTA_AT1(a->x, a->first + k).v[a->dim];                                      \
    if (selected(MODE, c, a->lo, a->hi)) {                                                         \
      if (final) PORTA_AT1(a->list, *upd) = a->first + k;                                          \
      *upd += 1;                                                                                   \
    }                                                                                              \
  }
MINIMD_SELECT_KERNEL(minimd_k_select_slab, MINIMD_SELECT_SLAB)
MINIMD_SELECT_KERNEL(minimd_k_select_outside, MINIMD_SELECT_OUTSIDE)
MINIMD_SELECT_KERNEL(minimd_k_select_inside, MINIMD_SELECT_INSIDE)

/* ghost first + k is the image of atom list[k] */
PORTA_FOR(minimd_k_ghost, atom_args, a, k) {
  const int64_t i = PORTA_AT1(a->list, k), g = a->first + k;
  const minimd_vec3 src = PORTA_AT1(a->x, i);
  minimd_vec3 *dst = &PORTA_AT1(a->x, g);
  for (int d = 0; d < 3; ++d) dst->v[d] = src.v[d] + a->shift[d];
  PORTA_AT1(a->type, g) = PORTA_AT1(a->type, i);
  PORTA_AT1(a->id, g) = PORTA_AT1(a->id, i);
}

/* atom list2[k] takes atom list[k]'s place (filling the holes migration leaves) */
PORTA_FOR(minimd_k_move, atom_args, a, k) {
  const int64_t from = PORTA_AT1(a->list, k), to = PORTA_AT1(a->list2, k);
  PORTA_AT1(a->x, to) = PORTA_AT1(a->x, from);
  PORTA_AT1(a->v, to) = PORTA_AT1(a->v, from);
  PORTA_AT1(a->type, to) = PORTA_AT1(a->type, from);
  PORTA_AT1(a->id, to) = PORTA_AT1(a->id, from);
}

/** Atom list[k] into the message: x, (v), type, id as doubles. */
PORTA_FORCEINLINE_FUNCTION void pack_atom(const atom_args *a, int64_t k, int with_v) {
  const int64_t i = PORTA_AT1(a->list, k);
  const int w = with_v ? MINIMD_MIGRATE_DOUBLES : MINIMD_GHOST_DOUBLES;
  double *b = &PORTA_AT1(a->buf, k * w);
  const minimd_vec3 x = PORTA_AT1(a->x, i);
  for (int d = 0; d < 3; ++d) b[d] = x.v[d];
  if (with_v) {
    const minimd_vec3 v = PORTA_AT1(a->v, i);
    for (int d = 0; d < 3; ++d) b[3 + d] = v.v[d];
  }
  b[w - 2] = (double)PORTA_AT1(a->type, i);
  b[w - 1] = (double)PORTA_AT1(a->id, i);
}

PORTA_FOR(minimd_k_pack_ghost, atom_args, a, k) { pack_atom(a, k, 0); }
PORTA_FOR(minimd_k_pack_migrate, atom_args, a, k) { pack_atom(a, k, 1); }

/** The message's atom k, if within [lo, hi) along dim (dim < 0: all), appended from first on
 *  (+ shift). */
PORTA_FORCEINLINE_FUNCTION void unpack_atom(const atom_args *a, int64_t k, int64_t *upd, int final,
                                            int with_v) {
  const int w = with_v ? MINIMD_MIGRATE_DOUBLES : MINIMD_GHOST_DOUBLES;
  const double *b = &PORTA_AT1(a->buf, k * w);
  if (a->dim < 0 || (b[a->dim] >= a->lo && b[a->dim] < a->hi)) {
    if (final) {
      const int64_t j = a->first + *upd;
      minimd_vec3 *x = &PORTA_AT1(a->x, j);
      for (int d = 0; d < 3; ++d) x->v[d] = b[d] + a->shift[d];
      if (with_v) {
        minimd_vec3 *v = &PORTA_AT1(a->v, j);
        for (int d = 0; d < 3; ++d) v->v[d] = b[3 + d];
      }
      PORTA_AT1(a->type, j) = (int32_t)b[w - 2];
      PORTA_AT1(a->id, j) = (int64_t)b[w - 1];
    }
    *upd += 1;
  }
}

/* every atom of a ghost message is kept: atom k goes to first + k, with no scan */
PORTA_FOR(minimd_k_unpack_ghost, atom_args, a, k) {
  int64_t upd = k;
  unpack_atom(a, k, &upd, 1, 0);
}
PORTA_SCAN(minimd_k_unpack_migrate, atom_args, a, k, porta_sum_i64, upd, final) {
  unpack_atom(a, k, upd, final, 1);
}

int minimd_wrap(porta_exec exec, minimd_atoms *at, const double prd[3]) {
  atom_args a = atom_args_make(at);
  for (int d = 0; d < 3; ++d) a.prd[d] = prd[d];
  return PORTA_PARALLEL_FOR_LABELED("minimd_wrap", minimd_k_wrap, exec, porta_range(0, at->nlocal),
                                    &a);
}

int minimd_select(porta_exec exec, const minimd_atoms *at, int64_t first, int64_t n, int dim,
                  int mode, double lo, double hi, porta_view_i64 list, int64_t *count) {
  atom_args a = atom_args_make(at);
  a.list = list;
  a.first = first;
  a.dim = dim;
  a.lo = lo;
  a.hi = hi;
  *count = 0;
  if (mode < MINIMD_SELECT_SLAB || mode > MINIMD_SELECT_INSIDE)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd_select", "mode", "%d is no mode",
                       mode);
  const porta_range_policy r = porta_range(0, n);
  if (mode == MINIMD_SELECT_SLAB)
    return PORTA_PARALLEL_SCAN_LABELED("minimd_select", minimd_k_select_slab, exec, r, &a, count);
  if (mode == MINIMD_SELECT_OUTSIDE)
    return PORTA_PARALLEL_SCAN_LABELED("minimd_select", minimd_k_select_outside, exec, r, &a,
                                       count);
  return PORTA_PARALLEL_SCAN_LABELED("minimd_select", minimd_k_select_inside, exec, r, &a, count);
}

int minimd_ghosts(porta_exec exec, minimd_atoms *at, porta_view_i64 list, int64_t n, int64_t first,
                  const double shift[3]) {
  atom_args a = atom_args_make(at);
  a.list = list;
  a.first = first;
  for (int d = 0; d < 3; ++d) a.shift[d] = shift[d];
  return PORTA_PARALLEL_FOR_LABELED("minimd_ghost", minimd_k_ghost, exec, porta_range(0, n), &a);
}

int minimd_move(porta_exec exec, minimd_atoms *at, porta_view_i64 from, porta_view_i64 to,
                int64_t n) {
  atom_args a = atom_args_make(at);
  a.list = from;
  a.list2 = to;
  return PORTA_PARALLEL_FOR_LABELED("minimd_move", minimd_k_move, exec, porta_range(0, n), &a);
}

int minimd_pack(porta_exec exec, const minimd_atoms *at, porta_view_i64 list, int64_t n, int with_v,
                porta_view_f64 buf) {
  atom_args a = atom_args_make(at);
  a.list = list;
  a.buf = buf;
  const porta_range_policy r = porta_range(0, n);
  if (with_v) return PORTA_PARALLEL_FOR_LABELED("minimd_pack", minimd_k_pack_migrate, exec, r, &a);
  return PORTA_PARALLEL_FOR_LABELED("minimd_pack", minimd_k_pack_ghost, exec, r, &a);
}

int minimd_unpack(porta_exec exec, minimd_atoms *at, porta_view_f64 buf, int64_t n, int with_v,
                  int dim, double lo, double hi, int64_t first, const double shift[3],
                  int64_t *kept) {
  atom_args a = atom_args_make(at);
  a.buf = buf;
  a.dim = dim;
  a.lo = lo;
  a.hi = hi;
  a.first = first;
  for (int d = 0; d < 3; ++d) a.shift[d] = shift ? shift[d] : 0.0;
  *kept = 0;
  const porta_range_policy r = porta_range(0, n);
  if (with_v)
    return PORTA_PARALLEL_SCAN_LABELED("minimd_unpack", minimd_k_unpack_migrate, exec, r, &a, kept);
  if (dim >= 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd_unpack", "dim",
                       "a ghost message is kept whole (dim %d, not < 0)", dim);
  *kept = n; /* a swap's ghosts: all of them, so no count to read back */
  return PORTA_PARALLEL_FOR_LABELED("minimd_unpack_ghost", minimd_k_unpack_ghost, exec, r, &a);
}
