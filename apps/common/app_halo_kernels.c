/** @file app_halo_kernels.c
 *  Pack / unpack kernels of the halo exchange: a kernel file (C11 and C++17, no MPI). */
#include "app_halo_kernels.h"

PORTA_MDFOR2(app_halo_pack, app_halo_pack_args, p, a, b) {
  int64_t i0 = p->swap ? b : a, i1 = p->swap ? a : b;
  PORTA_AT1(p->buf, p->off + (a - p->a0) * p->len + (b - p->b0)) = PORTA_S2(p->v, i0, i1);
}

PORTA_MDFOR2(app_halo_unpack, app_halo_pack_args, p, a, b) {
  int64_t i0 = p->swap ? b : a, i1 = p->swap ? a : b;
  PORTA_S2(p->v, i0, i1) = PORTA_AT1(p->buf, p->off + (a - p->a0) * p->len + (b - p->b0));
}
