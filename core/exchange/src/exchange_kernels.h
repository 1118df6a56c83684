/** @file exchange_kernels.h
 *  Pack / unpack kernels of the exchange plan (internal to the exchange library; no MPI here, so
 * the kernel file also compiles as C++17 / CUDA). */
#ifndef PORTA_EXCHANGE_KERNELS_H
#define PORTA_EXCHANGE_KERNELS_H

#include "porta/porta.h"

/** Most fields in one exchange (porta/exchange.h repeats it). */
#define PORTA_EXCHANGE_MAX_FIELDS 16

/** Index e of a pack covers value e of the list in every field: the buffer holds the fields
 *  interleaved per value (value e of field f at e * nfields + f), so each neighbour's message
 *  is one contiguous run. Values are copied as `words` machine words of 8 (the _w8 kernels)
 *  or 4 bytes. */
/** Most neighbours a pack writes straight into (porta_exchange_pack_args.nseg). */
#define PORTA_EXCHANGE_MAX_SEGMENTS 4

typedef struct porta_exchange_pack_args {
  porta_view_i64 index; /**< offsets into the fields */
  void *field[PORTA_EXCHANGE_MAX_FIELDS];
  void *buf;
  int nfields;
  int words;
  /** nseg > 0 (a pack only): the values seg_first[k] .. go to buffer seg_buf[k] from its start
   *  instead of buf (each neighbour's values straight into its mapped receive buffer) */
  int nseg;
  int64_t seg_first[PORTA_EXCHANGE_MAX_SEGMENTS];
  void *seg_buf[PORTA_EXCHANGE_MAX_SEGMENTS];
} porta_exchange_pack_args;

PORTA_DECLARE_KERNEL(porta_exchange_pack_w8, porta_exchange_pack_args)
PORTA_DECLARE_KERNEL(porta_exchange_unpack_w8, porta_exchange_pack_args)
PORTA_DECLARE_KERNEL(porta_exchange_pack_w4, porta_exchange_pack_args)
PORTA_DECLARE_KERNEL(porta_exchange_unpack_w4, porta_exchange_pack_args)
/** Unpack that adds doubles into the fields (reverse communication of forces). */
PORTA_DECLARE_KERNEL(porta_exchange_unpack_add_f64, porta_exchange_pack_args)

/** What porta_exchange_check_offsets finds in lists on the execution space: the smallest and
 *  largest offset, and how many receive offsets are not above the one before. */
typedef struct porta_exchange_check_value {
  int64_t lo, hi, unordered;
} porta_exchange_check_value;
PORTA_INLINE_FUNCTION void porta_exchange_check_init(porta_exchange_check_value *v) {
  v->lo = INT64_MAX;
  v->hi = -1;
  v->unordered = 0;
}
PORTA_INLINE_FUNCTION void porta_exchange_check_join(porta_exchange_check_value *d,
                                                     const porta_exchange_check_value *s) {
  if (s->lo < d->lo) d->lo = s->lo;
  if (s->hi > d->hi) d->hi = s->hi;
  d->unordered += s->unordered;
}
/** Index i < nsend: send offset i; above: receive offset i - nsend. */
typedef struct porta_exchange_check_args {
  porta_view_i64 send, recv;
  int64_t nsend;
} porta_exchange_check_args;
PORTA_DECLARE_KERNEL(porta_exchange_check_offsets, porta_exchange_check_args, porta_exchange_check)

#endif /* PORTA_EXCHANGE_KERNELS_H */
