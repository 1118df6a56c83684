/** @file app_halo.h
 *  Halo exchange of any depth for 2D Porta views of doubles over an app_decomp (2D).
 *
 *  Every field has `halo` ghost layers on each side: along x its extent is local[0] + 2*halo,
 *  along y local[1] + 2*halo, and owned cell (i, j) (0-based, local) is at view index
 *  (halo + i, halo + j), x being view dimension `x_dim` (0 or 1). Any layout works (the pack
 *  kernels use the views' strides).
 *
 *  An exchange of depth d (1 <= d <= halo) fills ghost layers 1..d from the neighbours, in two
 *  phases like the reference codes: first x (the y range includes the ghost rows), then y (the
 *  x range includes the ghost columns just received), so corners are correct too. Physical
 *  boundaries are left to the caller (their neighbour is MPI_PROC_NULL).
 *
 *  Buffers are packed and unpacked with Porta kernels on the exchange's execution space, into
 *  memory MPI reads and writes too: the space's own memory when the host can access it, else
 *  (CUDA) pinned, mapped host memory that the kernels access directly over the bus. That
 *  skips two staging copies per face, each a synchronous cudaMemcpy of a few kilobytes that
 *  costs its latency (about 10 us), not its bandwidth. A CUDA-aware MPI could instead take
 *  device buffers (the hook is in app_halo2d_create).
 */
#ifndef APP_HALO_H
#define APP_HALO_H

#include "app_decomp.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

typedef struct app_halo2d {
  app_decomp d;   /**< copy of the decomposition (2D) */
  int halo;       /**< ghost layers allocated in every field */
  int x_dim;      /**< view dimension that is x (0 or 1) */
  int max_fields; /**< most fields in one exchange */
  porta_exec exec;
  int64_t cap[2];               /**< elements per face buffer, per dimension */
  porta_view_f64 send[2][2];    /**< [dim][side] buffers the kernels and MPI share */
  porta_view_f64 recv[2][2][2]; /**< [exchange % 2][dim][side]: see app_halo2d_exchange */
  int64_t exchanges;            /**< exchanges begun (picks the receive buffers) */
  int64_t messages, bytes;      /**< counters: messages sent, bytes sent */
} app_halo2d;

/** Set up buffers for exchanges of up to `max_fields` fields of depth up to `halo`. */
int app_halo2d_create(app_halo2d *h, const app_decomp *d, int halo, int x_dim, int max_fields,
                      porta_exec exec);
/** Exchange ghost layers 1..depth of `fields` with the neighbours. Checks shapes, depth and
 *  that every neighbour owns at least `depth` cells. Returns a Porta error code. The messages
 *  are complete on return; the unpack kernels are queued like any Porta kernel (later kernels
 *  on the execution space see the ghost layers, the host must fence first). Alternate
 *  exchanges receive into alternate buffers, so nothing waits for the unpack: the next
 *  exchange's fence after packing does, before the buffers come round again. */
int app_halo2d_exchange(app_halo2d *h, const porta_view_f64 *fields, int nfields, int depth);
void app_halo2d_destroy(app_halo2d *h);

PORTA_EXTERN_C_END

#endif /* APP_HALO_H */
