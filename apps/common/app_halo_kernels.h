/** @file app_halo_kernels.h
 *  Pack / unpack kernels of the halo exchange (internal to apps/common). */
#ifndef APP_HALO_KERNELS_H
#define APP_HALO_KERNELS_H

#include "porta/porta.h"

/** Copy between a box of a field and a contiguous buffer. (a, b) are the indices along the
 *  exchanged dimension and the other one; `swap` says the exchanged dimension is view dim 1. */
typedef struct app_halo_pack_args {
  porta_view_f64 v;
  porta_view_f64 buf;
  int64_t off, a0, b0, len;
  int swap;
} app_halo_pack_args;

PORTA_DECLARE_KERNEL(app_halo_pack)
PORTA_DECLARE_KERNEL(app_halo_unpack)

#endif /* APP_HALO_KERNELS_H */
