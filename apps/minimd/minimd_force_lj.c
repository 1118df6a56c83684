/** @file minimd_force_lj.c
 *  Lennard-Jones forces from the neighbour list, one thread per owned atom: the full list (all
 *  owned atoms, or one side of its split), and the half list with or without Newton across
 *  ghosts (minimd_force_common.h says how the variants are made).
 *  Kernel file (C11 and C++17). */
#include <string.h>

#include "minimd_force_common.h"

/** The LJ kernels' arguments. */
typedef struct lj_args {
  porta_view_vec3 x, f;
  porta_view_i32 numneigh, neighbors;
  porta_view_f64 eatom, vatom; /* per-atom energy and virial (energy variants) */
  porta_view_i32 part;         /* the owned atoms of one side of the split (part kernels) */
  double cutforcesq, sigma6, epsilon;
  int64_t nlocal;
} lj_args;

/** One LJ pair: the force factor (0 beyond the cut-off, so a vector loop needs no branch). */
PORTA_FORCEINLINE_FUNCTION double lj_force(const lj_args *a, double rsq, double *sr6_out) {
  const double sr2 = 1.0 / rsq;
  const double sr6 = sr2 * sr2 * sr2 * a->sigma6;
  *sr6_out = sr6;
  return rsq < a->cutforcesq ? 48.0 * sr6 * (sr6 - 0.5) * sr2 * a->epsilon : 0.0;
}

/** Atom i's force (full list): the sum over its neighbours, written, not added. */
PORTA_FORCEINLINE_FUNCTION void lj_full_atom(const lj_args *a, int64_t i, int energy) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int n = PORTA_AT1(a->numneigh, i);
  double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0, w = 0.0;
  if (!energy) {
    PORTA_SIMD(reduction(+ : fx, fy, fz))
    for (int k = 0; k < n; ++k) {
      const int32_t j = PORTA_AT2(a->neighbors, i, k);
      const minimd_vec3 xj = PORTA_AT1(a->x, j);
      const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
      double sr6;
      const double force = lj_force(a, dx * dx + dy * dy + dz * dz, &sr6);
      fx += dx * force;
      fy += dy * force;
      fz += dz * force;
    }
  } else {
    PORTA_SIMD(reduction(+ : fx, fy, fz, e, w))
    for (int k = 0; k < n; ++k) {
      const int32_t j = PORTA_AT2(a->neighbors, i, k);
      const minimd_vec3 xj = PORTA_AT1(a->x, j);
      const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      double sr6;
      const double force = lj_force(a, rsq, &sr6);
      fx += dx * force;
      fy += dy * force;
      fz += dz * force;
      e += rsq < a->cutforcesq ? 4.0 * sr6 * (sr6 - 1.0) * a->epsilon : 0.0;
      w += rsq * force;
    }
  }
  minimd_vec3 *fi = &PORTA_AT1(a->f, i);
  fi->v[0] = fx;
  fi->v[1] = fy;
  fi->v[2] = fz;
  if (energy) { /* each pair is seen from both atoms: half of it is this atom's */
    PORTA_AT1(a->eatom, i) = 0.5 * e;
    PORTA_AT1(a->vatom, i) = 0.5 * w;
  }
}

PORTA_FOR(minimd_k_lj_full, lj_args, a, i) { lj_full_atom(a, i, 0); }
PORTA_FOR(minimd_k_lj_full_energy, lj_args, a, i) { lj_full_atom(a, i, 1); }
/* the atoms of a->part (one side of the neighbour list's split) */
PORTA_FOR(minimd_k_lj_part, lj_args, a, t) { lj_full_atom(a, PORTA_AT1(a->part, t), 0); }
PORTA_FOR(minimd_k_lj_part_energy, lj_args, a, t) { lj_full_atom(a, PORTA_AT1(a->part, t), 1); }

/** Atom i's pairs of a half list: each adds to both atoms; the partner's share only when it
 *  is owned or Newton across ghosts holds (the reverse communication sums ghosts'). */
PORTA_FORCEINLINE_FUNCTION void lj_half_atom(const lj_args *a, int64_t i, int newton, int energy,
                                             int atomic) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int n = PORTA_AT1(a->numneigh, i);
  double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0, w = 0.0;
  for (int k = 0; k < n; ++k) {
    const int32_t j = PORTA_AT2(a->neighbors, i, k);
    const minimd_vec3 xj = PORTA_AT1(a->x, j);
    const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
    const double rsq = dx * dx + dy * dy + dz * dz;
    if (rsq < a->cutforcesq) {
      const double sr2 = 1.0 / rsq;
      const double sr6 = sr2 * sr2 * sr2 * a->sigma6;
      const double force = 48.0 * sr6 * (sr6 - 0.5) * sr2 * a->epsilon;
      fx += dx * force;
      fy += dy * force;
      fz += dz * force;
      const int mine = newton || j < a->nlocal; /* the partner's share is updated here */
      if (mine)
        minimd_add_force(&PORTA_AT1(a->f, j), -dx * force, -dy * force, -dz * force, atomic);
      if (energy) {
        const double s = mine ? 1.0 : 0.5;
        e += s * 4.0 * sr6 * (sr6 - 1.0) * a->epsilon;
        w += s * rsq * force;
      }
    }
  }
  minimd_add_force(&PORTA_AT1(a->f, i), fx, fy, fz, atomic);
  if (energy) {
    PORTA_AT1(a->eatom, i) = e;
    PORTA_AT1(a->vatom, i) = w;
  }
}

PORTA_FORCEINLINE_FUNCTION void lj_half_owned(const lj_args *a, int64_t i, int energy, int atomic) {
  lj_half_atom(a, i, 0, energy, atomic);
}
PORTA_FORCEINLINE_FUNCTION void lj_half_newton(const lj_args *a, int64_t i, int energy,
                                               int atomic) {
  lj_half_atom(a, i, 1, energy, atomic);
}
MINIMD_HALF_KERNELS(minimd_k_lj_half, lj_args, lj_half_owned)
MINIMD_HALF_KERNELS(minimd_k_lj_half_newton, lj_args, lj_half_newton)

/* ---- drivers ----------------------------------------------------------------------------- */

static lj_args lj_make(const minimd *m) {
  lj_args a;
  memset(&a, 0, sizeof a);
  a.x = m->atoms.x;
  a.f = m->atoms.f;
  a.numneigh = m->neigh.numneigh;
  a.neighbors = m->neigh.neighbors;
  a.eatom = m->atoms.eatom;
  a.vatom = m->atoms.vatom;
  a.nlocal = m->atoms.nlocal;
  const double c = m->prm.cutforce;
  a.cutforcesq = c * c;
  a.epsilon = m->prm.epsilon;
  const double s2 = m->prm.sigma * m->prm.sigma;
  a.sigma6 = s2 * s2 * s2;
  return a;
}

int minimd_force_lj_part(minimd *m, int eflag, int border) {
  const minimd_neighbor *nb = &m->neigh;
  if (!nb->split || nb->half)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd_force_lj_part", "neighbor",
                       "the list is not split (a full list split at its build)");
  lj_args a = lj_make(m);
  a.part = border ? nb->border : nb->inner;
  const porta_range_policy r = porta_range(0, border ? nb->nborder : nb->ninner);
  const char *label = border ? "minimd_force_lj_border" : "minimd_force_lj_inner";
  if (eflag) return PORTA_PARALLEL_FOR_LABELED(label, minimd_k_lj_part_energy, m->exec, r, &a);
  return PORTA_PARALLEL_FOR_LABELED(label, minimd_k_lj_part, m->exec, r, &a);
}

int minimd_force_lj(minimd *m, int eflag) {
  const lj_args a = lj_make(m);
  const minimd_neighbor *nb = &m->neigh;
  const porta_range_policy r = porta_range(0, m->atoms.nlocal);
  if (!nb->half) {
    const char *label = "minimd_force_lj_full";
    if (eflag) return PORTA_PARALLEL_FOR_LABELED(label, minimd_k_lj_full_energy, m->exec, r, &a);
    return PORTA_PARALLEL_FOR_LABELED(label, minimd_k_lj_full, m->exec, r, &a);
  }
  PORTA_CHECK(minimd_zero_forces(m, m->atoms.nlocal + (nb->newton ? m->atoms.nghost : 0)));
  const int add = minimd_add_mode(m->exec);
  const char *label = "minimd_force_lj_half";
  if (nb->newton) return minimd_k_lj_half_newton_launch(label, m->exec, r, eflag, add, &a);
  return minimd_k_lj_half_launch(label, m->exec, r, eflag, add, &a);
}
