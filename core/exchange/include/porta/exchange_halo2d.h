/** @file porta/exchange_halo2d.h
 *  Halo exchange of any depth for 2D Porta views of doubles over a porta_decomp (2D).
 *
 *  Every field has `halo` ghost layers on each side: along x its extent is local[0] + 2*halo,
 *  along y local[1] + 2*halo, and owned cell (i, j) (0-based, local) is at view index
 *  (halo + i, halo + j), x being view dimension `x_dim` (0 or 1). Any layout works (the plans'
 *  offsets come from the views' strides). An extent may be larger: the cells past the high
 *  ghost layers are padding that no exchange touches (rows padded to an aligned length).
 *
 *  An exchange of depth d (1 <= d <= halo) fills ghost layers 1..d from the neighbours, in two
 *  phases like the reference codes: first x (the y range includes the ghost rows), then y (the
 *  x range includes the ghost columns just received), so corners are correct too. Physical
 *  boundaries are left to the caller (their neighbour is MPI_PROC_NULL).
 *
 *  The exchange is built from exchange plans (porta/exchange.h): for each depth d and each phase
 *  (x, then y) one plan whose send and receive lists are the element offsets of the faces'
 *  boxes, computed from the fields' extents and strides. The plans of every depth are built
 *  at the first exchange, from its first field's strides; every field of every exchange must
 *  have those strides (checked: all fields of one porta_halo2d share shape and layout). A phase
 *  with no neighbour has no plan. The plans pack and unpack with Porta
 *  kernels on the exchange's execution space, into memory MPI reads and writes too (see
 *  porta/exchange.h: pinned, mapped host memory on a GPU).
 */
#ifndef PORTA_EXCHANGE_HALO2D_H
#define PORTA_EXCHANGE_HALO2D_H

#include "porta/exchange_decomp.h"
#include "porta/exchange.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

typedef struct porta_halo2d {
  porta_decomp d; /**< copy of the decomposition (2D) */
  int halo;       /**< ghost layers allocated in every field */
  int x_dim;      /**< view dimension that is x (0 or 1) */
  int max_fields; /**< most fields in one exchange (at most PORTA_EXCHANGE_MAX_FIELDS) */
  int tag;        /**< first MPI tag of the plans (1000; they take tag .. tag + 2 * halo - 1):
                       a second halo over the same ranks sets another before its first
                       exchange, so that neither can take the other's messages */
  porta_exec exec;
  int built;         /**< the plans exist (built at the first exchange) */
  int64_t stride[2]; /**< the fields' strides the plans were built for */
  /** [2 * (depth - 1) + phase] (phase 0: x, 1: y); NULL where the phase has no neighbour */
  porta_exchange **plan;
  /** The faces' first ghost layer, corners left out, in one plan of every neighbour (tag + 20000;
   *  built by porta_halo2d_prepare_queue; NULL without neighbours) */
  porta_exchange *faces;
  int64_t messages, bytes; /**< counters: messages sent, bytes sent */
} porta_halo2d;

/** Set up exchanges of up to `max_fields` fields of depth up to `halo` (the plans and their
 *  buffers come with the first exchange). */
PORTA_EXCHANGE_API int porta_halo2d_create(porta_halo2d *h, const porta_decomp *d, int halo,
                                           int x_dim, int max_fields, porta_exec exec);
/** Exchange ghost layers 1..depth of `fields` with the neighbours: the x plan, then the y plan
 *  of that depth. Checks shapes, strides, depth and that every neighbour owns at least
 *  `depth` cells. Returns a Porta error code. The messages are complete on return; the unpack
 *  kernels are queued like any Porta kernel (later kernels on the execution space see the
 *  ghost layers, the host must fence first). Alternate exchanges receive into alternate
 *  buffers, so nothing waits for the unpack: the next exchange's fence after packing does,
 *  before the buffers come round again. */
PORTA_EXCHANGE_API int porta_halo2d_exchange(porta_halo2d *h, const porta_view_f64 *fields,
                                             int nfields, int depth);
/** Build the plans now, for fields shaped like `field` (collective over the neighbours, like
 *  the first exchange, which otherwise builds them): their buffers and CUDA IPC mappings cost
 *  milliseconds, which belong to the set-up rather than to the first timed exchange. A no-op
 *  once built (the strides must match). */
PORTA_EXCHANGE_API int porta_halo2d_prepare(porta_halo2d *h, const porta_view_f64 *field);
PORTA_EXCHANGE_API void porta_halo2d_destroy(porta_halo2d *h);

PORTA_EXTERN_C_END

#endif /* PORTA_EXCHANGE_HALO2D_H */
