/** @file tea_field_summary.c
 *  Field summary (reference field_summary_kernel): Volume, Mass, Energy (= sum vol*rho*e1)
 *  and U (= sum vol*rho*u) over the interior, one global sum of four values, Density =
 *  Mass/Volume. Kernel file (C++17 compatible). */
#include "tea_internal.h"

PORTA_DEFINE_SUM_REDUCER(tea_sum4, double, 4)

typedef struct {
  porta_view_f64 density, energy1, u;
  double vol;
  int which;
} tea_fs_args;

PORTA_MDREDUCE2(tea_k_field_summary, tea_fs_args, a, k, j, tea_sum4, acc) {
  double cell_mass = a->vol * PORTA_AT2(a->density, k, j);
  acc->v[0] += a->vol;
  acc->v[1] += cell_mass;
  acc->v[2] += cell_mass * PORTA_AT2(a->energy1, k, j);
  acc->v[3] += cell_mass * PORTA_AT2(a->u, k, j);
}

/* reproducible mode: one exact sum per launch (four porta_xsum_f64 values would not fit a CUDA
 * block's shared memory); `which` picks the term (0 volume, 1 mass, 2 energy, 3 u) */
PORTA_MDREDUCE2(tea_k_field_summary_x, tea_fs_args, a, k, j, porta_xsum_f64, acc) {
  double cell_mass = a->vol * PORTA_AT2(a->density, k, j);
  double t = a->vol;
  if (a->which == 1)
    t = cell_mass;
  else if (a->which == 2)
    t = cell_mass * PORTA_AT2(a->energy1, k, j);
  else if (a->which == 3)
    t = cell_mass * PORTA_AT2(a->u, k, j);
  porta_xsum_f64_add(acc, t);
}

int tea_field_summary(tea_chunk *c, tea_summary *out) {
  tea_fs_args a;
  a.density = TEA_F(c, TEA_FIELD_DENSITY);
  a.energy1 = TEA_F(c, TEA_FIELD_ENERGY1);
  a.u = TEA_F(c, TEA_FIELD_U);
  a.vol = c->dx * c->dy;
  a.which = 0;
  tea_sum4_value v;
  for (int i = 0; i < 4; ++i) v.v[i] = 0.0;
  if (c->reproducible) {
    for (a.which = 0; a.which < 4; ++a.which)
      PORTA_CHECK(tea_xreduce(c, "tea_field_summary", tea_policy(tea_box_interior(c, 0)),
                              &tea_k_field_summary_x, &a, a.which, &v.v[a.which]));
  } else {
    PORTA_CHECK(porta_parallel_reduce_md("tea_field_summary", c->exec,
                                         tea_policy(tea_box_interior(c, 0)), &tea_k_field_summary,
                                         &a, &v));
  }
  PORTA_CHECK(tea_allreduce_sum(c, v.v, 4));
  out->volume = v.v[0];
  out->mass = v.v[1];
  out->density = v.v[1] / v.v[0];
  out->energy = v.v[2];
  out->u = v.v[3];
  return PORTA_SUCCESS;
}
