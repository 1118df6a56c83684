/** @file minimd_setup.c
 *  The system: units, the fcc lattice of this rank's sub-box, the reference's velocities, and
 *  the moves of the atoms between the host arrays (re-neighbouring) and the execution space. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "minimd_comm.h"
#include "minimd_kernels.h"
#include "minimd_setup.h"

void minimd_units_setup(minimd *m, double mass) {
  minimd_units *u = &m->units;
  const double n = (double)m->atoms.natoms;
  const double vol = m->comm.prd[0] * m->comm.prd[1] * m->comm.prd[2];
  u->mass = mass;
  if (m->prm.units == MINIMD_UNITS_LJ) {
    u->mvv2e = 1.0;
    u->boltz = 1.0;
    u->dof_boltz = 3.0 * n - 3.0;
    u->p_scale = 1.0 / 3.0 / vol;
    u->e_scale = 0.5;
  } else {
    u->mvv2e = 1.036427e-04;
    u->boltz = 8.617343e-05;
    u->dof_boltz = (3.0 * n - 3.0) * u->boltz;
    u->p_scale = 1.602176e+06 / 3.0 / vol;
    u->e_scale = 524287.985533;
  }
  u->t_scale = u->mvv2e / u->dof_boltz;
  u->dtforce = 0.5 * m->prm.dt / u->mvv2e / mass;
}

/** The reference's Park-Miller "minimal standard" generator (Schrage's method). */
static double park_miller(int64_t *seed) {
  const int64_t ia = 16807, im = 2147483647, iq = 127773, ir = 2836;
  const int64_t k = *seed / iq;
  *seed = ia * (*seed - k * iq) - ir * k;
  if (*seed < 0) *seed += im;
  return (double)*seed * (1.0 / (double)im);
}

/* Grow the host arrays to hold n atoms (contents kept). */
int minimd_host_reserve(minimd_atoms *a, int64_t n) {
  if (n <= a->hcap) return PORTA_SUCCESS;
  int64_t cap = a->hcap > 0 ? a->hcap : 1024;
  while (cap < n) cap += cap / 2 + 1;
  double *x = (double *)realloc(a->hx, (size_t)cap * 3 * sizeof(double));
  if (x) a->hx = x;
  double *v = x ? (double *)realloc(a->hv, (size_t)cap * 3 * sizeof(double)) : NULL;
  if (v) a->hv = v;
  int32_t *t = v ? (int32_t *)realloc(a->htype, (size_t)cap * sizeof(int32_t)) : NULL;
  if (t) a->htype = t;
  int64_t *id = t ? (int64_t *)realloc(a->hid, (size_t)cap * sizeof(int64_t)) : NULL;
  if (id) a->hid = id;
  if (!id)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "atoms",
                       "no host memory for %lld atoms", (long long)cap);
  a->hcap = cap;
  return PORTA_SUCCESS;
}

int minimd_create_atoms(minimd *m) {
  minimd_atoms *a = &m->atoms;
  const minimd_comm *c = &m->comm;
  const int64_t n2[3] = {2 * m->prm.nx, 2 * m->prm.ny, 2 * m->prm.nz};
  const double alat = pow(4.0 / m->prm.density, 1.0 / 3.0), h = 0.5 * alat;
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; ++d) { /* half-lattice points that may lie in [lo, hi) */
    lo[d] = (int64_t)(c->lo[d] / h - 1.0);
    hi[d] = (int64_t)(c->hi[d] / h + 1.0);
    if (lo[d] < 0) lo[d] = 0;
    if (hi[d] > n2[d] - 1) hi[d] = n2[d] - 1;
  }
  a->nlocal = 0;
  for (int64_t k = lo[2]; k <= hi[2]; ++k)
    for (int64_t j = lo[1]; j <= hi[1]; ++j)
      for (int64_t i = lo[0]; i <= hi[0]; ++i) {
        if ((i + j + k) % 2) continue;
        const double x[3] = {h * (double)i, h * (double)j, h * (double)k};
        if (x[0] < c->lo[0] || x[0] >= c->hi[0] || x[1] < c->lo[1] || x[1] >= c->hi[1] ||
            x[2] < c->lo[2] || x[2] >= c->hi[2])
          continue;
        PORTA_CHECK(minimd_host_reserve(a, a->nlocal + 1));
        const int64_t q = a->nlocal++;
        const int64_t site = (k * n2[1] + j) * n2[0] + i;
        int64_t seed = site + 1;
        for (int d = 0; d < 3; ++d) {
          for (int skip = 0; skip < 5; ++skip) park_miller(&seed);
          a->hv[3 * q + d] = park_miller(&seed);
          a->hx[3 * q + d] = x[d];
        }
        a->hid[q] = site / 2; /* sites have i + j + k even: site / 2 numbers them 0..N-1 */
        /* types do not change the physics (every pair has the same parameters); the
           reference draws them per rank with rand(), here they follow the id */
        a->htype[q] = (int32_t)((site / 2) % m->prm.ntypes);
      }
  int64_t total = 0;
  APP_MPI_CHECK(MPI_Allreduce(&a->nlocal, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  if (total != a->natoms)
    return porta_error(PORTA_ERROR_BACKEND, "minimd", "create_atoms",
                       "created %lld atoms instead of %lld", (long long)total,
                       (long long)a->natoms);
  return PORTA_SUCCESS;
}

int minimd_create_atoms_from(minimd *m, const double *x, const double *v, int64_t n) {
  minimd_atoms *a = &m->atoms;
  const minimd_comm *c = &m->comm;
  a->nlocal = 0;
  for (int64_t id = 0; id < n; ++id) {
    const double *p = x + 3 * id;
    if (p[0] < c->lo[0] || p[0] >= c->hi[0] || p[1] < c->lo[1] || p[1] >= c->hi[1] ||
        p[2] < c->lo[2] || p[2] >= c->hi[2])
      continue;
    PORTA_CHECK(minimd_host_reserve(a, a->nlocal + 1));
    const int64_t q = a->nlocal++;
    for (int d = 0; d < 3; ++d) {
      a->hx[3 * q + d] = p[d];
      a->hv[3 * q + d] = v[3 * id + d];
    }
    a->hid[q] = id;
    a->htype[q] = (int32_t)(id % m->prm.ntypes);
  }
  return PORTA_SUCCESS;
}

/** A host view over `n` elements of `ptr`. */
#define HOST_WRAP(TYPE, v, ptr, label, n)                                                          \
  do {                                                                                             \
    porta_view_options o_ = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, 0, NULL};                     \
    int64_t e_ = (n);                                                                              \
    PORTA_CHECK(porta_view_##TYPE##_wrap(&(v), (ptr), (label), 1, &e_, &o_));                      \
  } while (0)

int minimd_atoms_reserve(minimd *m, int64_t need) {
  minimd_atoms *a = &m->atoms;
  if (need <= a->cap && a->x.data) return PORTA_SUCCESS;
  const int64_t cap = need + need / 5 + 64;
  if (!a->x.data) { /* the first call: every per-atom view */
    porta_view_options opt = {porta_exec_memory_space(m->exec), PORTA_LAYOUT_DEFAULT, 0, NULL};
    PORTA_CHECK(porta_view_vec3_create(&a->x, "minimd_x", 1, &cap, &opt));
    PORTA_CHECK(porta_view_vec3_create(&a->v, "minimd_v", 1, &cap, &opt));
    PORTA_CHECK(porta_view_vec3_create(&a->f, "minimd_f", 1, &cap, &opt));
    PORTA_CHECK(porta_view_i32_create(&a->type, "minimd_type", 1, &cap, &opt));
    PORTA_CHECK(porta_view_i64_create(&a->id, "minimd_id", 1, &cap, &opt));
    PORTA_CHECK(porta_view_f64_create(&a->eatom, "minimd_eatom", 1, &cap, &opt));
    PORTA_CHECK(porta_view_f64_create(&a->vatom, "minimd_vatom", 1, &cap, &opt));
    if (m->prm.force == MINIMD_FORCE_EAM) {
      PORTA_CHECK(porta_view_f64_create(&m->eam.rho, "minimd_rho", 1, &cap, &opt));
      PORTA_CHECK(porta_view_f64_create(&m->eam.fp, "minimd_fp", 1, &cap, &opt));
    }
    a->cap = cap;
    return PORTA_SUCCESS;
  }
  /* positions, velocities, types and ids keep their values; the rest is recomputed */
  PORTA_CHECK(porta_view_vec3_resize(&a->x, 1, &cap));
  PORTA_CHECK(porta_view_vec3_resize(&a->v, 1, &cap));
  PORTA_CHECK(porta_view_i32_resize(&a->type, 1, &cap));
  PORTA_CHECK(porta_view_i64_resize(&a->id, 1, &cap));
  PORTA_CHECK(porta_view_vec3_realloc(&a->f, 1, &cap));
  PORTA_CHECK(porta_view_f64_realloc(&a->eatom, 1, &cap));
  PORTA_CHECK(porta_view_f64_realloc(&a->vatom, 1, &cap));
  if (m->prm.force == MINIMD_FORCE_EAM) {
    PORTA_CHECK(porta_view_f64_realloc(&m->eam.rho, 1, &cap));
    PORTA_CHECK(porta_view_f64_realloc(&m->eam.fp, 1, &cap));
  }
  a->cap = cap;
  return PORTA_SUCCESS;
}

/** Copy n elements between a device view's first elements and a host array. */
#define COPY_RANGE(TYPE, dev, host_ptr, n, to_device)                                              \
  do {                                                                                             \
    if ((n) > 0) {                                                                                 \
      porta_view_##TYPE h_, d_;                                                                    \
      porta_slice s_ = porta_slice_range(0, (n));                                                  \
      HOST_WRAP(TYPE, h_, host_ptr, "minimd_host", (n));                                           \
      int rc_ = porta_view_##TYPE##_subview(&d_, &(dev), &s_);                                     \
      if (rc_ == PORTA_SUCCESS)                                                                    \
        rc_ = (to_device) ? porta_deep_copy(d_, h_) : porta_deep_copy(h_, d_);                     \
      porta_view_##TYPE##_release(&d_);                                                            \
      porta_view_##TYPE##_release(&h_);                                                            \
      PORTA_CHECK(rc_);                                                                            \
    }                                                                                              \
  } while (0)

int minimd_atoms_to_device(minimd *m) {
  minimd_atoms *a = &m->atoms;
  const int64_t nall = a->nlocal + a->nghost;
  PORTA_CHECK(minimd_atoms_reserve(m, nall));
  COPY_RANGE(vec3, a->x, (minimd_vec3 *)a->hx, nall, 1);
  COPY_RANGE(vec3, a->v, (minimd_vec3 *)a->hv, a->nlocal, 1);
  COPY_RANGE(i32, a->type, a->htype, nall, 1);
  COPY_RANGE(i64, a->id, a->hid, nall, 1);
  return PORTA_SUCCESS;
}

int minimd_atoms_to_host(minimd *m) {
  minimd_atoms *a = &m->atoms;
  PORTA_CHECK(minimd_host_reserve(a, a->nlocal));
  COPY_RANGE(vec3, a->x, (minimd_vec3 *)a->hx, a->nlocal, 0);
  COPY_RANGE(vec3, a->v, (minimd_vec3 *)a->hv, a->nlocal, 0);
  /* re-neighbouring on the execution space reorders the atoms: their ids and types too */
  COPY_RANGE(i32, a->type, a->htype, a->nlocal, 0);
  COPY_RANGE(i64, a->id, a->hid, a->nlocal, 0);
  return PORTA_SUCCESS;
}

int minimd_sort_host(minimd *m) {
  minimd_atoms *a = &m->atoms;
  const int64_t n = a->nlocal;
  if (n < 2) return PORTA_SUCCESS;
  const int64_t nb = m->neigh.mbins;
  int64_t *bin = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  int64_t *start = (int64_t *)calloc((size_t)nb + 1, sizeof(int64_t));
  double *x = (double *)malloc((size_t)n * 3 * sizeof(double));
  double *v = (double *)malloc((size_t)n * 3 * sizeof(double));
  int32_t *t = (int32_t *)malloc((size_t)n * sizeof(int32_t));
  int64_t *id = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  int rc = PORTA_SUCCESS;
  if (!bin || !start || !x || !v || !t || !id) {
    rc = porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "sort", "no memory to sort %lld atoms",
                     (long long)n);
  } else {
    minimd_neighbor_bin_host(m, a->hx, n, bin);
    for (int64_t i = 0; i < n; ++i) {
      if (bin[i] < 0) bin[i] = nb - 1; /* cannot happen after the exchange; keep it whole */
      start[bin[i] + 1] += 1;
    }
    for (int64_t b = 0; b < nb; ++b) start[b + 1] += start[b];
    for (int64_t i = 0; i < n; ++i) { /* stable: by bin, then by the old order */
      const int64_t q = start[bin[i]]++;
      memcpy(x + 3 * q, a->hx + 3 * i, 3 * sizeof(double));
      memcpy(v + 3 * q, a->hv + 3 * i, 3 * sizeof(double));
      t[q] = a->htype[i];
      id[q] = a->hid[i];
    }
    memcpy(a->hx, x, (size_t)n * 3 * sizeof(double));
    memcpy(a->hv, v, (size_t)n * 3 * sizeof(double));
    memcpy(a->htype, t, (size_t)n * sizeof(int32_t));
    memcpy(a->hid, id, (size_t)n * sizeof(int64_t));
  }
  free(bin);
  free(start);
  free(x);
  free(v);
  free(t);
  free(id);
  return rc;
}

int minimd_velocity_create(minimd *m) {
  double vsum[3];
  PORTA_CHECK(minimd_sum_velocity(m, vsum));
  PORTA_CHECK(app_sum_allreduce(m->sum, vsum, 3));
  const double n = (double)m->atoms.natoms;
  const double vmean[3] = {vsum[0] / n, vsum[1] / n, vsum[2] / n};
  PORTA_CHECK(minimd_velocity_adjust(m, vmean, 1.0));
  double t = 0.0;
  PORTA_CHECK(minimd_temperature(m, &t));
  if (!(t > 0.0)) return PORTA_SUCCESS; /* one atom: nothing moves */
  const double zero[3] = {0.0, 0.0, 0.0};
  return minimd_velocity_adjust(m, zero, sqrt(m->prm.temperature / t));
}

int minimd_temperature(minimd *m, double *t) {
  double mv2 = 0.0;
  PORTA_CHECK(minimd_sum_mv2(m, &mv2));
  PORTA_CHECK(app_sum_allreduce(m->sum, &mv2, 1));
  *t = mv2 * m->units.t_scale;
  return PORTA_SUCCESS;
}
