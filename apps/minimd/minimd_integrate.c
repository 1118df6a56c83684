/** @file minimd_integrate.c
 *  Velocity Verlet (NVE) over the owned atoms, and the sums of the thermo output and of the
 *  velocity initialisation (through app_sum: exact by default, ordinary with --sums ordinary).
 *  Kernel file (C11 and C++17). */
#include <string.h>

#include "minimd_kernels.h"

/** Velocity Verlet's arguments. */
typedef struct verlet_args {
  porta_view_vec3 x, v, f;
  double dt, dtf; /* the time step, and dt / 2 in force units (a half-kick: v += dtf f) */
} verlet_args;

/** The first half-kick and the drift of atom i; with final_first the previous step's second
 *  half-kick before them, the same operations in the same order as the two kernels (one pass
 *  over the atoms instead of two: no one looks at v in between on a step without output). */
PORTA_FORCEINLINE_FUNCTION void verlet_initial_atom(const verlet_args *a, int64_t i,
                                                    int final_first) {
  minimd_vec3 x = PORTA_AT1(a->x, i), v = PORTA_AT1(a->v, i);
  const minimd_vec3 f = PORTA_AT1(a->f, i);
  for (int d = 0; d < 3; ++d) {
    if (final_first) v.v[d] += a->dtf * f.v[d];
    v.v[d] += a->dtf * f.v[d];
    x.v[d] += a->dt * v.v[d];
  }
  PORTA_AT1(a->v, i) = v;
  PORTA_AT1(a->x, i) = x;
}

PORTA_FOR(minimd_k_initial, verlet_args, a, i) { verlet_initial_atom(a, i, 0); }
PORTA_FOR(minimd_k_final_initial, verlet_args, a, i) { verlet_initial_atom(a, i, 1); }

PORTA_FOR(minimd_k_final, verlet_args, a, i) {
  minimd_vec3 *v = &PORTA_AT1(a->v, i);
  const minimd_vec3 f = PORTA_AT1(a->f, i);
  for (int d = 0; d < 3; ++d) v->v[d] += a->dtf * f.v[d];
}

/** The thermo output's and the velocity set-up's sums. */
typedef struct thermo_args {
  porta_view_vec3 v;
  porta_view_f64 eatom, vatom;
  double mass;
  int comp; /* the velocity component minimd_k_vcomp sums */
} thermo_args;

APP_SUM_KERNEL(minimd_k_mv2, thermo_args, a, i) {
  const minimd_vec3 v = PORTA_AT1(a->v, i);
  return (v.v[0] * v.v[0] + v.v[1] * v.v[1] + v.v[2] * v.v[2]) * a->mass;
}

APP_SUM_KERNEL(minimd_k_energy, thermo_args, a, i) { return PORTA_AT1(a->eatom, i); }
APP_SUM_KERNEL(minimd_k_virial, thermo_args, a, i) { return PORTA_AT1(a->vatom, i); }
APP_SUM_KERNEL(minimd_k_vcomp, thermo_args, a, i) { return PORTA_AT1(a->v, i).v[a->comp]; }

/** v = (v - vmean) * scale: the velocity set-up's shift and scaling. */
typedef struct vadjust_args {
  porta_view_vec3 v;
  double vmean[3], scale;
} vadjust_args;

PORTA_FOR(minimd_k_vadjust, vadjust_args, a, i) {
  minimd_vec3 *v = &PORTA_AT1(a->v, i);
  for (int d = 0; d < 3; ++d) v->v[d] = (v->v[d] - a->vmean[d]) * a->scale;
}

static verlet_args verlet_make(const minimd *m) {
  verlet_args a;
  memset(&a, 0, sizeof a);
  a.x = m->atoms.x;
  a.v = m->atoms.v;
  a.f = m->atoms.f;
  a.dt = m->prm.dt;
  a.dtf = m->units.dtforce;
  return a;
}

static thermo_args thermo_make(const minimd *m) {
  thermo_args a;
  memset(&a, 0, sizeof a);
  a.v = m->atoms.v;
  a.eatom = m->atoms.eatom;
  a.vatom = m->atoms.vatom;
  a.mass = m->units.mass;
  return a;
}

int minimd_initial_integrate(minimd *m, int final_first) {
  const verlet_args a = verlet_make(m);
  const porta_range_policy r = porta_range(0, m->atoms.nlocal);
  const char *label = "minimd_initial_integrate";
  if (final_first) return PORTA_PARALLEL_FOR_LABELED(label, minimd_k_final_initial, m->exec, r, &a);
  return PORTA_PARALLEL_FOR_LABELED(label, minimd_k_initial, m->exec, r, &a);
}

int minimd_final_integrate(minimd *m) {
  const verlet_args a = verlet_make(m);
  return PORTA_PARALLEL_FOR_LABELED("minimd_final_integrate", minimd_k_final, m->exec,
                                    porta_range(0, m->atoms.nlocal), &a);
}

int minimd_sum_mv2(minimd *m, double *local) {
  const thermo_args a = thermo_make(m);
  return APP_SUM_REDUCE(minimd_k_mv2, m->sum, "minimd_mv2", m->exec,
                        porta_range(0, m->atoms.nlocal), &a, 0, local);
}

int minimd_sum_energy_virial(minimd *m, double local[2]) {
  const thermo_args a = thermo_make(m);
  const porta_range_policy r = porta_range(0, m->atoms.nlocal);
  PORTA_CHECK(
      APP_SUM_REDUCE(minimd_k_energy, m->sum, "minimd_energy", m->exec, r, &a, 0, &local[0]));
  return APP_SUM_REDUCE(minimd_k_virial, m->sum, "minimd_virial", m->exec, r, &a, 1, &local[1]);
}

int minimd_sum_velocity(minimd *m, double local[3]) {
  thermo_args a = thermo_make(m);
  for (int d = 0; d < 3; ++d) {
    a.comp = d;
    PORTA_CHECK(APP_SUM_REDUCE(minimd_k_vcomp, m->sum, "minimd_vsum", m->exec,
                               porta_range(0, m->atoms.nlocal), &a, d, &local[d]));
  }
  return PORTA_SUCCESS;
}

int minimd_velocity_adjust(minimd *m, const double vmean[3], double scale) {
  vadjust_args a;
  memset(&a, 0, sizeof a);
  a.v = m->atoms.v;
  for (int d = 0; d < 3; ++d) a.vmean[d] = vmean[d];
  a.scale = scale;
  return PORTA_PARALLEL_FOR_LABELED("minimd_velocity_adjust", minimd_k_vadjust, m->exec,
                                    porta_range(0, m->atoms.nlocal), &a);
}
