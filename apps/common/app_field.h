/** @file app_field.h
 *  Fields with ghost layers, allocated so that their interiors are aligned. */
#ifndef APP_FIELD_H
#define APP_FIELD_H

#include <stdint.h>

#include "porta/porta.h"

/** Bytes to which the first interior element of every line is aligned (a warp's 32 doubles on
 *  a GPU, four cache lines on a CPU): a divisor of PORTA_ALLOC_ALIGN_BYTES, the alignment of
 *  the allocation it is measured from. */
#define APP_FIELD_ALIGN_BYTES 256

PORTA_EXTERN_C_BEGIN

/** A zeroed rank-2 field of extents (e0, e1), `halo` ghost layers included, in the default
 *  memory space and its default layout. Along the contiguous dimension the allocation is
 *  padded, and the view starts part-way into it, so that element `halo` of every line sits on
 *  an APP_FIELD_ALIGN_BYTES boundary: loops over the interior then read and write whole
 *  memory sectors. (Unaligned, an H100 ran TeaLeaf's CG kernels at 0.87 of the speed.) The
 *  view is a padded subview: index it with the PORTA_AT* / PORTA_S* accessors, copy it with
 *  deep_copy. */
int app_field2d_create(porta_view_f64 *v, const char *label, int64_t e0, int64_t e1, int64_t halo);

PORTA_EXTERN_C_END

#endif /* APP_FIELD_H */
