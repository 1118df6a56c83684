/** @file minimd_comm_kernels.c
 *  The device side of the ghost swaps: the image shift of received positions and, for a swap
 *  whose partner is this rank itself (one rank along a dimension), the whole swap as one
 *  kernel: ghost k = atom sendlist[k] (+ shift) forward, atom sendlist[k] += ghost k back.
 *  Kernel file (C11 and C++17). */
#include "minimd_kernels.h"

typedef struct swap_args {
  porta_view_vec3 x;
  porta_view_f64 s;
  porta_view_i64 list;
  int64_t first;
  double shift[3];
} swap_args;

PORTA_FOR(minimd_k_shift, swap_args, a, k) {
  minimd_vec3 *p = &PORTA_AT1(a->x, a->first + k);
  for (int d = 0; d < 3; ++d) p->v[d] += a->shift[d];
}

PORTA_FOR(minimd_k_self_forward, swap_args, a, k) {
  const minimd_vec3 src = PORTA_AT1(a->x, PORTA_AT1(a->list, k));
  minimd_vec3 *dst = &PORTA_AT1(a->x, a->first + k);
  for (int d = 0; d < 3; ++d) dst->v[d] = src.v[d] + a->shift[d];
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
  a.first = first;
  for (int d = 0; d < 3; ++d) a.shift[d] = shift ? shift[d] : 0.0;
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
                        int64_t first, const double shift[3]) {
  swap_args a = make(x, list, first, shift);
  return porta_parallel_for("minimd_self_forward", exec, porta_range(0, n), &minimd_k_self_forward,
                            &a);
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
