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
typedef struct app_exchange_pack_args {
  porta_view_i64 index; /**< offsets into the fields */
  void *field[APP_EXCHANGE_MAX_FIELDS];
  void *buf;
  int nfields;
  int words;
} app_exchange_pack_args;

PORTA_DECLARE_KERNEL(app_exchange_pack_w8)
PORTA_DECLARE_KERNEL(app_exchange_unpack_w8)
PORTA_DECLARE_KERNEL(app_exchange_pack_w4)
PORTA_DECLARE_KERNEL(app_exchange_unpack_w4)
/** Unpack that adds doubles into the fields (reverse communication of forces). */
PORTA_DECLARE_KERNEL(app_exchange_unpack_add_f64)

#endif /* APP_EXCHANGE_KERNELS_H */
