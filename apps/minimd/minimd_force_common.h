/** @file minimd_force_common.h
 *  What the LJ and the EAM force kernels share (minimd_force_lj.c, minimd_force_eam.c): how a
 *  kernel adds to an atom other than its own, the host's vector-loop hint and the zeroing of
 *  the forces before a half list's kernel adds to them. Kernel files only (C11 and C++17).
 *
 *  Full list: each atom sums its own force, no two threads write one atom (no atomics), and
 *  each pair is computed twice. Half list: each pair once; the partner's share is added with
 *  atomics (to ghosts too with Newton across ghosts, then summed into the owners by the
 *  reverse communication; without it only owned partners, owned-ghost pairs being listed on
 *  both ranks). On thermo steps every atom also records its share of the energy and of the
 *  virial, so that their totals are sums of per-atom terms (exact in reproducible mode):
 *  E = sum of pair energies (+ EAM's embedding energies), W = sum over pairs of r^2 f_pair.
 *
 *  Each variant (energy or not, Newton or not, atomic adds or plain ones) is a kernel of its
 *  own, generated from one inline function whose variant arguments are constants: no flag is
 *  read inside a kernel. */
#ifndef MINIMD_FORCE_COMMON_H
#define MINIMD_FORCE_COMMON_H

#include "minimd_kernels.h"

/** How a kernel adds to other atoms: plainly where one host thread runs it (the Serial back
 *  end or one OpenMP thread: the atomics' compare-and-swap loops only cost time there, 10 % of
 *  EAM's force time on one thread per rank), atomically otherwise. The same adds in the same
 *  order either way. Index of the last dimension of every variant table. */
enum { MINIMD_ADD_PLAIN = 0, MINIMD_ADD_ATOMIC = 1 };

/** The variant a kernel of exec needs. */
static inline int minimd_add_mode(porta_exec exec) {
  return porta_exec_query(exec).single_threaded ? MINIMD_ADD_PLAIN : MINIMD_ADD_ATOMIC;
}

/** *p += (fx, fy, fz). */
PORTA_FORCEINLINE_FUNCTION void minimd_add_force(minimd_vec3 *p, double fx, double fy, double fz,
                                                 int atomic) {
  if (!atomic) {
    p->v[0] += fx;
    p->v[1] += fy;
    p->v[2] += fz;
    return;
  }
  porta_atomic_add_f64(&p->v[0], fx);
  porta_atomic_add_f64(&p->v[1], fy);
  porta_atomic_add_f64(&p->v[2], fz);
}

/** *p += v. */
PORTA_FORCEINLINE_FUNCTION void minimd_add_scalar(double *p, double v, int atomic) {
  if (!atomic)
    *p += v;
  else
    porta_atomic_add_f64(p, v);
}

/** A half-list kernel's four variants from ATOM(a, i, energy, atomic), an inline function of
 *  ARGS_T: the kernels NAME_force_plain ... NAME_energy_atomic, and NAME_launch(label, exec,
 *  range, energy, add, args), which launches the one that `energy` (0 or not) and `add`
 *  (MINIMD_ADD_PLAIN or _ATOMIC) name, typed. */
#define MINIMD_HALF_KERNELS(NAME, ARGS_T, ATOM)                                                    \
  PORTA_FOR(NAME##_force_plain, ARGS_T, a, i) { ATOM(a, i, 0, MINIMD_ADD_PLAIN); }                 \
  PORTA_FOR(NAME##_force_atomic, ARGS_T, a, i) { ATOM(a, i, 0, MINIMD_ADD_ATOMIC); }               \
  PORTA_FOR(NAME##_energy_plain, ARGS_T, a, i) { ATOM(a, i, 1, MINIMD_ADD_PLAIN); }                \
  PORTA_FOR(NAME##_energy_atomic, ARGS_T, a, i) { ATOM(a, i, 1, MINIMD_ADD_ATOMIC); }              \
  static int NAME##_launch(const char *label, porta_exec exec, porta_range_policy r, int energy,   \
                           int add, const ARGS_T *args) {                                          \
    const int atomic = add == MINIMD_ADD_ATOMIC;                                                   \
    if (energy)                                                                                    \
      return atomic ? PORTA_PARALLEL_FOR_LABELED(label, NAME##_energy_atomic, exec, r, args)       \
                    : PORTA_PARALLEL_FOR_LABELED(label, NAME##_energy_plain, exec, r, args);       \
    return atomic ? PORTA_PARALLEL_FOR_LABELED(label, NAME##_force_atomic, exec, r, args)          \
                  : PORTA_PARALLEL_FOR_LABELED(label, NAME##_force_plain, exec, r, args);          \
  }

/** f[0 .. n) = 0, before a half list's kernel adds to it. */
static inline int minimd_zero_forces(minimd *m, int64_t n) {
  porta_view_vec3 f;
  porta_slice s = porta_slice_range(0, n > 0 ? n : 1);
  PORTA_CHECK(porta_view_vec3_subview(&f, &m->atoms.f, &s));
  const minimd_vec3 z = {{0.0, 0.0, 0.0}};
  int rc = porta_view_fill(PORTA_VIEW_ERASE(f), &z);
  porta_view_vec3_release(&f);
  return rc;
}

#endif /* MINIMD_FORCE_COMMON_H */
