/** @file tea_field_summary.c
 *  Field summary (reference field_summary_kernel): Volume, Mass, Energy (= sum vol*rho*e1)
 *  and U (= sum vol*rho*u) over the interior, one global sum of four values, Density =
 *  Mass/Volume. Kernel file (C++17 compatible). */
#include "tea_internal.h"

typedef struct {
  porta_view_f64 density, energy1, u;
  double vol;
  int which;
} tea_fs_args;

/* One sum per launch (four porta_xsum_f64 values would not fit a CUDA block's shared memory,
 * and the summary runs once per step); `which` picks the term (0 volume, 1 mass, 2 energy,
 * 3 u). One kernel per term would read no selector, but nvcc then contracts the sum's add with
 * the term's product into an FMA, which changes the printed sums' last bits on a GPU. */
APP_SUM_KERNEL_MD2(tea_k_field_summary, tea_fs_args, a, k, j) {
  double cell_mass = a->vol * PORTA_AT2(a->density, k, j);
  double t = a->vol;
  if (a->which == 1)
    t = cell_mass;
  else if (a->which == 2)
    t = cell_mass * PORTA_AT2(a->energy1, k, j);
  else if (a->which == 3)
    t = cell_mass * PORTA_AT2(a->u, k, j);
  return t;
}

int tea_field_summary(tea_chunk *c, tea_summary *out) {
  tea_fs_args a;
  a.density = TEA_F(c, TEA_FIELD_DENSITY);
  a.energy1 = TEA_F(c, TEA_FIELD_ENERGY1);
  a.u = TEA_F(c, TEA_FIELD_U);
  a.vol = c->dx * c->dy;
  double v[4];
  const char *label = "tea_field_summary";
  PORTA_CHECK(tea_sum_check(c, label));
  for (a.which = 0; a.which < 4; ++a.which)
    PORTA_CHECK(APP_SUM_REDUCE(tea_k_field_summary, c->sum, label, c->exec,
                               tea_policy(tea_box_interior(c, 0)), &a, a.which, &v[a.which]));
  PORTA_CHECK(tea_allreduce_sum(c, v, 4));
  out->volume = v[0];
  out->mass = v[1];
  out->density = v[1] / v[0];
  out->energy = v[2];
  out->u = v[3];
  return PORTA_SUCCESS;
}
