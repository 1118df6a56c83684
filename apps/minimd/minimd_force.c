/** @file minimd_force.c
 *  LJ and EAM forces from the neighbour list, one thread per owned atom.
 *
 *  Full list: each atom sums its own force, no two threads write one atom (no atomics), and
 *  each pair is computed twice. Half list: each pair once; the partner's share is added with
 *  atomics (to ghosts too with Newton across ghosts, then summed into the owners by the
 *  reverse communication; without it only owned partners, owned-ghost pairs being listed on
 *  both ranks). On thermo steps every atom also records its share of the energy and of the
 *  virial, so that their totals are sums of per-atom terms (exact in reproducible mode):
 *  E = sum of pair energies (+ EAM's embedding energies), W = sum over pairs of r^2 f_pair.
 *  Kernel file (C11 and C++17). */
#include <math.h>
#include <string.h>

#include "minimd_kernels.h"

typedef struct force_args {
  porta_view_vec3 x, f;
  porta_view_i32 numneigh, neighbors;
  porta_view_f64 eatom, vatom, rho, fp;
  porta_view_f64 frho, rhor, z2r; /* EAM splines, [knot * 7 + c] */
  porta_view_i32 part;            /* the owned atoms of one side of the split */
  double cutforcesq, sigma6, epsilon;
  double rdr, rdrho;
  int nr, nrho;
  int64_t nlocal;
  int eflag, half, newton;
  int one_thread; /* the kernel runs on one host thread: plain adds for the partners */
} force_args;

/** f[j] += (fx, fy, fz): atomically, unless one thread runs the kernel (the Serial back end or
 *  one OpenMP thread), where the atomics' compare-and-swap loops only cost time (EAM on one
 *  thread per rank: 10% of its force time). The same adds in the same order either way. */
PORTA_FORCEINLINE_FUNCTION void add_force(const force_args *a, int64_t j, double fx, double fy,
                                          double fz) {
  minimd_vec3 *p = &PORTA_AT1(a->f, j);
  if (a->one_thread) {
    p->v[0] += fx;
    p->v[1] += fy;
    p->v[2] += fz;
    return;
  }
  porta_atomic_add_f64(&p->v[0], fx);
  porta_atomic_add_f64(&p->v[1], fy);
  porta_atomic_add_f64(&p->v[2], fz);
}

PORTA_FORCEINLINE_FUNCTION void add_scalar(const force_args *a, double *p, double v) {
  if (a->one_thread)
    *p += v;
  else
    porta_atomic_add_f64(p, v);
}

/* ---- Lennard-Jones ----------------------------------------------------------------------- */

/** `omp simd` on the host passes (the CPU vectorises the neighbour loop), nothing on a GPU. */
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define MINIMD_PRAGMA_(...) _Pragma(#__VA_ARGS__)
#define MINIMD_SIMD(...) MINIMD_PRAGMA_(omp simd __VA_ARGS__)
#else
#define MINIMD_SIMD(...)
#endif

/** One LJ pair: the force factor (0 beyond the cut-off, so a vector loop needs no branch). */
PORTA_FORCEINLINE_FUNCTION double lj_force(const force_args *a, double rsq, double *sr6_out) {
  const double sr2 = 1.0 / rsq;
  const double sr6 = sr2 * sr2 * sr2 * a->sigma6;
  *sr6_out = sr6;
  return rsq < a->cutforcesq ? 48.0 * sr6 * (sr6 - 0.5) * sr2 * a->epsilon : 0.0;
}

/** Atom i's force (full list): the sum over its neighbours, written, not added. */
PORTA_FORCEINLINE_FUNCTION void lj_full_atom(const force_args *a, int64_t i) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int n = PORTA_AT1(a->numneigh, i);
  double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0, w = 0.0;
  if (!a->eflag) {
    MINIMD_SIMD(reduction(+ : fx, fy, fz))
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
    MINIMD_SIMD(reduction(+ : fx, fy, fz, e, w))
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
  if (a->eflag) { /* each pair is seen from both atoms: half of it is this atom's */
    PORTA_AT1(a->eatom, i) = 0.5 * e;
    PORTA_AT1(a->vatom, i) = 0.5 * w;
  }
}

PORTA_FOR(minimd_k_lj_full, force_args, a, i) { lj_full_atom(a, i); }

/* the atoms of a->part (one side of the neighbour list's split) */
PORTA_FOR(minimd_k_lj_full_part, force_args, a, t) { lj_full_atom(a, PORTA_AT1(a->part, t)); }

PORTA_FOR(minimd_k_lj_half, force_args, a, i) {
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
      const int mine = a->newton || j < a->nlocal; /* the partner's share is updated here */
      if (mine) add_force(a, j, -dx * force, -dy * force, -dz * force);
      if (a->eflag) {
        const double s = mine ? 1.0 : 0.5;
        e += s * 4.0 * sr6 * (sr6 - 1.0) * a->epsilon;
        w += s * rsq * force;
      }
    }
  }
  add_force(a, i, fx, fy, fz);
  if (a->eflag) {
    PORTA_AT1(a->eatom, i) = e;
    PORTA_AT1(a->vatom, i) = w;
  }
}

/* ---- EAM --------------------------------------------------------------------------------- */

/** Spline knot and offset for r (r tables) */
PORTA_FORCEINLINE_FUNCTION int eam_knot(double x, double rinv, int n, double *p) {
  double q = x * rinv + 1.0;
  int m = (int)q;
  if (m > n - 1) m = n - 1;
  if (m < 1) m = 1;
  q -= m;
  *p = q < 1.0 ? q : 1.0;
  return m;
}

/** Coefficient c of knot m of spline s (7 per knot), through the accessor: bounds-checked in
 *  debug builds. */
#define SPL_C(s, m, c) PORTA_AT1(*(s), (int64_t)(m)*7 + (c))

PORTA_FORCEINLINE_FUNCTION double spl_value(const porta_view_f64 *s, int m, double p) {
  return ((SPL_C(s, m, 3) * p + SPL_C(s, m, 4)) * p + SPL_C(s, m, 5)) * p + SPL_C(s, m, 6);
}

PORTA_FORCEINLINE_FUNCTION double spl_deriv(const porta_view_f64 *s, int m, double p) {
  return (SPL_C(s, m, 0) * p + SPL_C(s, m, 1)) * p + SPL_C(s, m, 2);
}

/* pass 1: the density at atom i (half lists: also at owned partners, atomically). A third of
 * the listed pairs lie beyond the cut-off: skipping them beat a branch-free vector loop (its
 * square roots and table gathers for every listed pair) on the CPU. */
PORTA_FOR(minimd_k_eam_rho, force_args, a, i) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int n = PORTA_AT1(a->numneigh, i);
  double rho = 0.0;
  if (!a->half) {
    for (int k = 0; k < n; ++k) {
      const int32_t j = PORTA_AT2(a->neighbors, i, k);
      const minimd_vec3 xj = PORTA_AT1(a->x, j);
      const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (rsq >= a->cutforcesq) continue;
      double p;
      const int m = eam_knot(sqrt(rsq), a->rdr, a->nr, &p);
      const double r = spl_value(&a->rhor, m, p);
      rho += r;
    }
    PORTA_AT1(a->rho, i) = rho;
    return;
  }
  for (int k = 0; k < n; ++k) {
    const int32_t j = PORTA_AT2(a->neighbors, i, k);
    const minimd_vec3 xj = PORTA_AT1(a->x, j);
    const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
    const double rsq = dx * dx + dy * dy + dz * dz;
    if (rsq < a->cutforcesq) {
      double p;
      const int m = eam_knot(sqrt(rsq), a->rdr, a->nr, &p);
      const double r = spl_value(&a->rhor, m, p);
      rho += r;
      if (j < a->nlocal) add_scalar(a, &PORTA_AT1(a->rho, j), r);
    }
  }
  add_scalar(a, &PORTA_AT1(a->rho, i), rho);
}

/* F'(rho) for the force pass, F(rho) into the energy */
PORTA_FOR(minimd_k_eam_embed, force_args, a, i) {
  double p = PORTA_AT1(a->rho, i) * a->rdrho + 1.0;
  int m = (int)p;
  if (m > a->nrho - 1) m = a->nrho - 1;
  if (m < 1) m = 1;
  p -= m;
  if (p > 1.0) p = 1.0;
  PORTA_AT1(a->fp, i) = spl_deriv(&a->frho, m, p);
  if (a->eflag) PORTA_AT1(a->eatom, i) = spl_value(&a->frho, m, p);
}

/** One EAM pair at squared distance rsq: f_pair, and phi for the energy (0 beyond the cut). */
PORTA_FORCEINLINE_FUNCTION double eam_pair(const force_args *a, double rsq, double fpi, double fpj,
                                           double *phi_out) {
  const double r = sqrt(rsq);
  double p;
  const int m = eam_knot(r, a->rdr, a->nr, &p);
  const double rhop = spl_deriv(&a->rhor, m, p);
  const double z2p = spl_deriv(&a->z2r, m, p);
  const double z2 = spl_value(&a->z2r, m, p);
  const double recip = 1.0 / r;
  const double phi = z2 * recip;
  const double phip = z2p * recip - phi * recip;
  const double psip = fpi * rhop + fpj * rhop + phip;
  const int in = rsq < a->cutforcesq;
  *phi_out = in ? phi : 0.0;
  return in ? -psip * recip : 0.0;
}

/* pass 2: pair forces; the energy adds to the embedding energy already in eatom */
PORTA_FOR(minimd_k_eam_force, force_args, a, i) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int n = PORTA_AT1(a->numneigh, i);
  const double fpi = PORTA_AT1(a->fp, i);
  double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0, w = 0.0;
  if (!a->half) { /* each pair seen from both atoms: half its energy and virial is i's */
    for (int k = 0; k < n; ++k) {
      const int32_t j = PORTA_AT2(a->neighbors, i, k);
      const minimd_vec3 xj = PORTA_AT1(a->x, j);
      const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (rsq >= a->cutforcesq) continue;
      double phi;
      const double fpair = eam_pair(a, rsq, fpi, PORTA_AT1(a->fp, j), &phi);
      fx += dx * fpair;
      fy += dy * fpair;
      fz += dz * fpair;
      e += 0.5 * phi;
      w += 0.5 * rsq * fpair;
    }
    minimd_vec3 *fi = &PORTA_AT1(a->f, i);
    fi->v[0] = fx;
    fi->v[1] = fy;
    fi->v[2] = fz;
  } else { /* owned partners updated here; owned-ghost pairs are listed on both ranks */
    for (int k = 0; k < n; ++k) {
      const int32_t j = PORTA_AT2(a->neighbors, i, k);
      const minimd_vec3 xj = PORTA_AT1(a->x, j);
      const double dx = xi.v[0] - xj.v[0], dy = xi.v[1] - xj.v[1], dz = xi.v[2] - xj.v[2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (rsq >= a->cutforcesq) continue;
      double phi;
      const double fpair = eam_pair(a, rsq, fpi, PORTA_AT1(a->fp, j), &phi);
      fx += dx * fpair;
      fy += dy * fpair;
      fz += dz * fpair;
      const double s = j < a->nlocal ? 1.0 : 0.5;
      if (j < a->nlocal) add_force(a, j, -dx * fpair, -dy * fpair, -dz * fpair);
      e += s * phi;
      w += s * rsq * fpair;
    }
    add_force(a, i, fx, fy, fz);
  }
  if (a->eflag) {
    PORTA_AT1(a->eatom, i) += e;
    PORTA_AT1(a->vatom, i) = w;
  }
}

/* ---- drivers ----------------------------------------------------------------------------- */

static force_args force_make(minimd *m, int eflag) {
  force_args a;
  memset(&a, 0, sizeof a);
  a.x = m->atoms.x;
  a.f = m->atoms.f;
  a.numneigh = m->neigh.numneigh;
  a.neighbors = m->neigh.neighbors;
  a.eatom = m->atoms.eatom;
  a.vatom = m->atoms.vatom;
  a.nlocal = m->atoms.nlocal;
  a.eflag = eflag;
  a.half = m->neigh.half;
  a.newton = m->neigh.newton;
  a.one_thread = porta_exec_query(m->exec).single_threaded;
  return a;
}

static int zero_forces(minimd *m, int64_t n) {
  porta_view_vec3 f;
  porta_slice s = porta_slice_range(0, n > 0 ? n : 1);
  PORTA_CHECK(porta_view_vec3_subview(&f, &m->atoms.f, &s));
  const minimd_vec3 z = {{0.0, 0.0, 0.0}};
  int rc = porta_view_fill(PORTA_VIEW_ERASE(f), &z);
  porta_view_vec3_release(&f);
  return rc;
}

static force_args lj_make(minimd *m, int eflag) {
  force_args a = force_make(m, eflag);
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
  force_args a = lj_make(m, eflag);
  a.part = border ? nb->border : nb->inner;
  const int64_t n = border ? nb->nborder : nb->ninner;
  return PORTA_PARALLEL_FOR_LABELED(border ? "minimd_force_lj_border" : "minimd_force_lj_inner",
                                    minimd_k_lj_full_part, m->exec, porta_range(0, n), &a);
}

int minimd_force_lj(minimd *m, int eflag) {
  force_args a = lj_make(m, eflag);
  const porta_range_policy r = porta_range(0, m->atoms.nlocal);
  if (!a.half)
    return PORTA_PARALLEL_FOR_LABELED("minimd_force_lj_full", minimd_k_lj_full, m->exec, r, &a);
  PORTA_CHECK(zero_forces(m, m->atoms.nlocal + (a.newton ? m->atoms.nghost : 0)));
  return PORTA_PARALLEL_FOR_LABELED("minimd_force_lj_half", minimd_k_lj_half, m->exec, r, &a);
}

/** The arguments of both EAM passes: the splines and the per-atom density and F'. */
static force_args eam_make(minimd *m, int eflag) {
  force_args a = force_make(m, eflag);
  const minimd_eam *e = &m->eam;
  a.cutforcesq = e->cutsq;
  a.frho = e->frho;
  a.rhor = e->rhor;
  a.z2r = e->z2r;
  a.rdr = e->rdr;
  a.rdrho = e->rdrho;
  a.nr = e->nr;
  a.nrho = e->nrho;
  a.rho = e->rho;
  a.fp = e->fp;
  a.newton = 0;
  return a;
}

int minimd_force_eam(minimd *m, int eflag) {
  force_args a = eam_make(m, eflag);
  minimd_eam *e = &m->eam;
  const porta_range_policy r = porta_range(0, m->atoms.nlocal);
  if (a.half) {
    const double zero = 0.0;
    porta_view_f64 rho;
    porta_slice s = porta_slice_range(0, m->atoms.nlocal > 0 ? m->atoms.nlocal : 1);
    PORTA_CHECK(porta_view_f64_subview(&rho, &e->rho, &s));
    int rc = porta_view_fill(PORTA_VIEW_ERASE(rho), &zero);
    porta_view_f64_release(&rho);
    PORTA_CHECK(rc);
    PORTA_CHECK(zero_forces(m, m->atoms.nlocal));
  }
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_eam_rho", minimd_k_eam_rho, m->exec, r, &a));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_eam_embed", minimd_k_eam_embed, m->exec, r, &a));
  return PORTA_SUCCESS; /* the caller sends F' to the ghosts, then minimd_force_eam_pairs */
}

int minimd_force_eam_pairs(minimd *m, int eflag) {
  force_args a = eam_make(m, eflag);
  return PORTA_PARALLEL_FOR_LABELED("minimd_eam_force", minimd_k_eam_force, m->exec,
                                    porta_range(0, m->atoms.nlocal), &a);
}
