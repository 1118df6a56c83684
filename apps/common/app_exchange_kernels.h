/** @file app_exchange_kernels.h
 *  Pack / unpack kernels of the exchange plan (internal to apps/common; no MPI here, so the
 *  kernel file also compiles as C++17 / CUDA). */
#ifndef APP_EXCHANGE_KERNELS_H
#define APP_EXCHANGE_KERNELS_H

#include "porta/porta.h"

/** Most fields in one exchange (app_exchange.h repeats it). */
#define APP_EXCHANGE_MAX_FIELDS 16

/** Index e of a pack covers value e of the list in every field: the buffer holds the fields
 *  interleaved per value (value e of field f at e * nfields + f), so each neighbour's message
 *  is one contiguous run. Values are copied as `words` machine words of 8 (the _w8 kernels)
 *  or 4 bytes. */
/** Most neighbours a pack writes straight into (app_exchange_pack_args.nseg). */
#define APP_EXCHANGE_MAX_SEGMENTS 4

typedef struct app_exchange_pack_args {
  porta_view_i64 index; /**< offsets into the fields */
  void *field[APP_EXCHANGE_MAX_FIELDS];
  void *buf;
  int nfields;
  int words;
  /** nseg > 0 (a pack only): the values seg_first[k] .. go to buffer seg_buf[k] from its start
   *  instead of buf (each neighbour's values straight into its mapped receive buffer) */
  int nseg;
  int64_t seg_first[APP_EXCHANGE_MAX_SEGMENTS];
  void *seg_buf[APP_EXCHANGE_MAX_SEGMENTS];
} app_exchange_pack_args;

PORTA_DECLARE_KERNEL(app_exchange_pack_w8, app_exchange_pack_args)
PORTA_DECLARE_KERNEL(app_exchange_unpack_w8, app_exchange_pack_args)
PORTA_DECLARE_KERNEL(app_exchange_pack_w4, app_exchange_pack_args)
PORTA_DECLARE_KERNEL(app_exchange_unpack_w4, app_exchange_pack_args)
/** Unpack that adds doubles into the fields (reverse communication of forces). */
PORTA_DECLARE_KERNEL(app_exchange_unpack_add_f64, app_exchange_pack_args)

/** What app_exchange_check_offsets finds in lists on the execution space: the smallest and
 *  largest offset, and how many receive offsets are not above the one before. */
typedef struct app_exchange_check_value {
  int64_t lo, hi, unordered;
} app_exchange_check_value;
PORTA_INLINE_FUNCTION void app_exchange_check_init(app_exchange_check_value *v) {
  v->lo = INT64_MAX;
  v->hi = -1;
  v->unordered = 0;
}
PORTA_INLINE_FUNCTION void app_exchange_check_join(app_exchange_check_value *d,
                                                   const app_exchange_check_value *s) {
  if (s->lo < d->lo) d->lo = s->lo;
  if (s->hi > d->hi) d->hi = s->hi;
  d->unordered += s->unordered;
}
/** Index i < nsend: send offset i; above: receive offset i - nsend. */
typedef struct app_exchange_check_args {
  porta_view_i64 send, recv;
  int64_t nsend;
} app_exchange_check_args;
PORTA_DECLARE_KERNEL(app_exchange_check_offsets, app_exchange_check_args, app_exchange_check)

#endif /* APP_EXCHANGE_KERNELS_H */
