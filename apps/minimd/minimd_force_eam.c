/** @file minimd_force_eam.c
 *  EAM forces from the neighbour list in two passes around the halo exchange of F'(rho): the
 *  densities and embedding terms of the owned atoms, then the pair forces; one thread per owned
 *  atom, full or half list (minimd_force_common.h says how the variants are made). Newton
 *  across ghosts is never used with EAM.
 *  Kernel file (C11 and C++17). */
#include <math.h>
#include <string.h>

#include "minimd_force_common.h"

/** The arguments of both EAM passes: the list, the splines and the per-atom density and F'. */
typedef struct eam_args {
  porta_view_vec3 x, f;
  porta_view_i32 numneigh, neighbors;
  porta_view_f64 eatom, vatom;    /* per-atom energy and virial (energy variants) */
  porta_view_f64 rho, fp;         /* density and F'(rho) per atom */
  porta_view_f64 frho, rhor, z2r; /* splines, [knot * 7 + c] */
  double cutforcesq, rdr, rdrho;
  int nr, nrho;
  int64_t nlocal;
} eam_args;

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

/* ---- pass 1: densities and embedding ---------------------------------------------------- */

/** The density at atom i; with a half list also its share of owned partners' (they add to
 *  rho, which starts at zero). A third of the listed pairs lie beyond the cut-off: skipping them
 *  beat a branch-free vector loop (its square roots and table gathers for every listed pair) on
 *  the CPU. */
PORTA_FORCEINLINE_FUNCTION void eam_rho_atom(const eam_args *a, int64_t i, int half, int atomic) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int n = PORTA_AT1(a->numneigh, i);
  double rho = 0.0;
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
    if (half && j < a->nlocal) minimd_add_scalar(&PORTA_AT1(a->rho, j), r, atomic);
  }
  if (half)
    minimd_add_scalar(&PORTA_AT1(a->rho, i), rho, atomic);
  else
    PORTA_AT1(a->rho, i) = rho;
}

PORTA_FOR(minimd_k_eam_rho_full, eam_args, a, i) { eam_rho_atom(a, i, 0, MINIMD_ADD_PLAIN); }
PORTA_FOR(minimd_k_eam_rho_half_plain, eam_args, a, i) { eam_rho_atom(a, i, 1, MINIMD_ADD_PLAIN); }
PORTA_FOR(minimd_k_eam_rho_half_atomic, eam_args, a, i) {
  eam_rho_atom(a, i, 1, MINIMD_ADD_ATOMIC);
}

/** F'(rho) for the force pass; with energy F(rho) into the energy. */
PORTA_FORCEINLINE_FUNCTION void eam_embed_atom(const eam_args *a, int64_t i, int energy) {
  double p = PORTA_AT1(a->rho, i) * a->rdrho + 1.0;
  int m = (int)p;
  if (m > a->nrho - 1) m = a->nrho - 1;
  if (m < 1) m = 1;
  p -= m;
  if (p > 1.0) p = 1.0;
  PORTA_AT1(a->fp, i) = spl_deriv(&a->frho, m, p);
  if (energy) PORTA_AT1(a->eatom, i) = spl_value(&a->frho, m, p);
}

PORTA_FOR(minimd_k_eam_embed, eam_args, a, i) { eam_embed_atom(a, i, 0); }
PORTA_FOR(minimd_k_eam_embed_energy, eam_args, a, i) { eam_embed_atom(a, i, 1); }

/* ---- pass 2: pair forces ------------------------------------------------------------------ */

/** One EAM pair at squared distance rsq: f_pair, and phi for the energy (0 beyond the cut). */
PORTA_FORCEINLINE_FUNCTION double eam_pair(const eam_args *a, double rsq, double fpi, double fpj,
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

/** Atom i's pair forces. Full list: its force, written; each pair is seen from both atoms, so
 *  half its energy and virial is i's. Half list: owned partners updated here; owned-ghost pairs
 *  are listed on both ranks, so half of such a pair's energy and virial is i's. The energy adds
 *  to the embedding energy already in eatom. */
PORTA_FORCEINLINE_FUNCTION void eam_pairs_atom(const eam_args *a, int64_t i, int half, int energy,
                                               int atomic) {
  const minimd_vec3 xi = PORTA_AT1(a->x, i);
  const int n = PORTA_AT1(a->numneigh, i);
  const double fpi = PORTA_AT1(a->fp, i);
  double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0, w = 0.0;
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
    if (!half) {
      e += 0.5 * phi;
      w += 0.5 * rsq * fpair;
      continue;
    }
    const double s = j < a->nlocal ? 1.0 : 0.5;
    if (j < a->nlocal)
      minimd_add_force(&PORTA_AT1(a->f, j), -dx * fpair, -dy * fpair, -dz * fpair, atomic);
    e += s * phi;
    w += s * rsq * fpair;
  }
  if (half) {
    minimd_add_force(&PORTA_AT1(a->f, i), fx, fy, fz, atomic);
  } else {
    minimd_vec3 *fi = &PORTA_AT1(a->f, i);
    fi->v[0] = fx;
    fi->v[1] = fy;
    fi->v[2] = fz;
  }
  if (energy) {
    PORTA_AT1(a->eatom, i) += e;
    PORTA_AT1(a->vatom, i) = w;
  }
}

PORTA_FOR(minimd_k_eam_full, eam_args, a, i) { eam_pairs_atom(a, i, 0, 0, MINIMD_ADD_PLAIN); }
PORTA_FOR(minimd_k_eam_full_energy, eam_args, a, i) {
  eam_pairs_atom(a, i, 0, 1, MINIMD_ADD_PLAIN);
}

PORTA_FORCEINLINE_FUNCTION void eam_half_atom(const eam_args *a, int64_t i, int energy,
                                              int atomic) {
  eam_pairs_atom(a, i, 1, energy, atomic);
}
MINIMD_HALF_KERNELS(minimd_k_eam_half, eam_args, eam_half_atom)

/* ---- drivers ----------------------------------------------------------------------------- */

static eam_args eam_make(const minimd *m) {
  eam_args a;
  memset(&a, 0, sizeof a);
  const minimd_eam *e = &m->eam;
  a.x = m->atoms.x;
  a.f = m->atoms.f;
  a.numneigh = m->neigh.numneigh;
  a.neighbors = m->neigh.neighbors;
  a.eatom = m->atoms.eatom;
  a.vatom = m->atoms.vatom;
  a.rho = e->rho;
  a.fp = e->fp;
  a.frho = e->frho;
  a.rhor = e->rhor;
  a.z2r = e->z2r;
  a.cutforcesq = e->cutsq;
  a.rdr = e->rdr;
  a.rdrho = e->rdrho;
  a.nr = e->nr;
  a.nrho = e->nrho;
  a.nlocal = m->atoms.nlocal;
  return a;
}

/** rho[0 .. n) = 0, before the half list's density pass adds to it. */
static int zero_density(minimd *m, int64_t n) {
  const double zero = 0.0;
  porta_view_f64 rho;
  porta_slice s = porta_slice_range(0, n > 0 ? n : 1);
  PORTA_CHECK(porta_view_f64_subview(&rho, &m->eam.rho, &s));
  int rc = porta_view_fill(PORTA_VIEW_ERASE(rho), &zero);
  porta_view_f64_release(&rho);
  return rc;
}

int minimd_force_eam(minimd *m, int eflag) {
  const eam_args a = eam_make(m);
  const porta_range_policy r = porta_range(0, m->atoms.nlocal);
  if (m->neigh.half) {
    PORTA_CHECK(zero_density(m, m->atoms.nlocal));
    PORTA_CHECK(minimd_zero_forces(m, m->atoms.nlocal));
    if (minimd_add_mode(m->exec) == MINIMD_ADD_PLAIN)
      PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_eam_rho", minimd_k_eam_rho_half_plain, m->exec,
                                             r, &a));
    else
      PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_eam_rho", minimd_k_eam_rho_half_atomic,
                                             m->exec, r, &a));
  } else {
    PORTA_CHECK(
        PORTA_PARALLEL_FOR_LABELED("minimd_eam_rho", minimd_k_eam_rho_full, m->exec, r, &a));
  }
  if (eflag)
    PORTA_CHECK(
        PORTA_PARALLEL_FOR_LABELED("minimd_eam_embed", minimd_k_eam_embed_energy, m->exec, r, &a));
  else
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minimd_eam_embed", minimd_k_eam_embed, m->exec, r, &a));
  return PORTA_SUCCESS; /* the caller sends F' to the ghosts, then minimd_force_eam_pairs */
}

int minimd_force_eam_pairs(minimd *m, int eflag) {
  const eam_args a = eam_make(m);
  const porta_range_policy r = porta_range(0, m->atoms.nlocal);
  const char *label = "minimd_eam_force";
  if (m->neigh.half)
    return minimd_k_eam_half_launch(label, m->exec, r, eflag, minimd_add_mode(m->exec), &a);
  if (eflag) return PORTA_PARALLEL_FOR_LABELED(label, minimd_k_eam_full_energy, m->exec, r, &a);
  return PORTA_PARALLEL_FOR_LABELED(label, minimd_k_eam_full, m->exec, r, &a);
}
