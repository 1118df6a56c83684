/** @file porta/exchange_device.h
 *  Communication queued on a GPU (NCCL): global sums and exchange plans whose every step - the
 *  pack, the messages, the unpack, the sum - is queued on an execution space instance with no
 *  wait on the host. A recorded loop (porta/loop.h) can therefore hold them, and a solver's
 *  iterations on several ranks run on the GPUs with no return to the host per iteration.
 *
 *  A device communicator spans the ranks of an MPI communicator, one GPU each (NCCL refuses
 *  two ranks on one GPU). It exists only in a build with NCCL (PORTA_ENABLE_NCCL, found with
 *  the CUDA back end) and when every rank runs on a GPU of its own; porta_device_comm_create
 *  then succeeds on every rank, and otherwise fails on every rank alike with the reason, so
 *  that a caller falls back to its host path (MPI) on all ranks together.
 *
 *  Order: queued work runs in the order of the instance it is queued on, like Porta's
 *  launches, and every rank must queue the same sums and exchanges in the same order (NCCL
 *  matches them by their order). A sum of two ranks is a + b on both, as MPI_Allreduce's; over
 *  more ranks NCCL may add in another order than MPI, so results can differ in the last bits.
 *
 *  NCCL's work inside a CUDA graph's conditional node must not use graph event nodes: the first
 *  porta_device_comm_create sets NCCL_GRAPH_MIXING_SUPPORT=0 when it is unset, and refuses a
 *  value other than 0. */
#ifndef PORTA_EXCHANGE_DEVICE_H
#define PORTA_EXCHANGE_DEVICE_H

#include <mpi.h>

#include "porta/exchange.h"

PORTA_EXTERN_C_BEGIN

struct porta_halo2d; /* porta/exchange_halo2d.h */

/** A device communicator (porta_device_comm_create). */
typedef struct porta_device_comm porta_device_comm;

/** 1 when this build has the NCCL path, else 0. */
PORTA_EXCHANGE_API int porta_device_comm_built(void);

/** Collective over `comm`: a device communicator over its ranks for work queued on `exec`'s
 *  space. Fails on every rank alike (PORTA_ERROR_UNSUPPORTED, the message naming the reason
 *  and a rank it holds for) when the build has no NCCL, `exec` is not a GPU on some rank, two
 *  ranks share a GPU, or NCCL_GRAPH_MIXING_SUPPORT is set to another value than 0: a caller
 *  then takes its host path on every rank. Any other failure (PORTA_ERROR_BACKEND when NCCL
 *  fails) need not be every rank's: stop the job. On failure *out is NULL. */
PORTA_EXCHANGE_API int porta_device_comm_create(MPI_Comm comm, porta_exec exec,
                                                porta_device_comm **out);
/** Release it (collective like NCCL's own; NULL: nothing to do). Destroy the recorded loops
 *  that hold its work first: NCCL waits for the graphs it was captured into. */
PORTA_EXCHANGE_API void porta_device_comm_destroy(porta_device_comm *dc);

/** How its sums and exchanges travel: "gpu-peer" (one kernel each, straight between the GPUs'
 *  memories, mapped by CUDA IPC: every rank on one node, where each can map the others'
 *  memory, unless PORTA_DEVICE_COMM=nccl), else "nccl". PORTA_DEVICE_COMM=peer requires the
 *  former (porta_device_comm_create fails otherwise). A peer sum adds in rank order from rank 1,
 *  then rank 0: ((x1 + x2) + ...) + x0. The peer transport's kernels wait for each other on the
 *  GPUs: where other jobs share the GPUs (time-sliced), each wait can last their time slices
 *  (measured: 30x slower), so such jobs should set PORTA_DEVICE_COMM=nccl. */
PORTA_EXCHANGE_API const char *porta_device_comm_transport(const porta_device_comm *dc);

/** Queue on `exec` the sums over the ranks of `count` doubles at `values` (memory of `exec`'s
 *  space), in place. */
PORTA_EXCHANGE_API int porta_device_comm_sum(porta_device_comm *dc, porta_exec exec, double *values,
                                             int count);

/** Make the sum over the ranks of one double part of a reduction's end (porta/reduce_end.h):
 *  the reduction that takes `end` (porta_exec_end_next_reduction) then leaves the sum of every
 *  rank's value in its result, with no kernel of its own, the same bits as
 *  porta_device_comm_sum's. *fused = 1 when `end` now does that (the peer transport), or when
 *  there is one rank (nothing to add); 0 when the caller must still call porta_device_comm_sum
 *  after the reduction (NCCL). Every rank must queue the same sums, fused or not, in the same
 *  order. */
PORTA_EXCHANGE_API int porta_device_comm_end_sum(porta_device_comm *dc, porta_reduce_end *end,
                                                 int *fused);

/** Give the plan device buffers for queued exchanges of up to its max_fields fields, over
 *  `dc` (whose communicator must be the plan's or congruent to it). Allocates: call it before
 *  recording a loop that queues the plan. Calling it again is a no-op, and the plan stays
 *  prepared through porta_exchange_update (its buffers grown as needed, no new hand-shake of
 *  the device communicator); an update that fails leaves it not prepared. */
PORTA_EXCHANGE_API int porta_exchange_prepare_queue(porta_exchange *x, porta_device_comm *dc);
/** Queue on `exec` a whole exchange of `fields` by the plan: the pack, one NCCL send and
 *  receive per neighbour, the unpack (adding, for an accumulating plan). Nothing waits on the
 *  host; later work on `exec` sees the ghost values. The plan must be prepared for `dc`
 *  (porta_exchange_prepare_queue) and no host exchange (porta_exchange_start) in progress. */
PORTA_EXCHANGE_API int porta_exchange_queue(porta_exchange *x, porta_device_comm *dc,
                                            porta_exec exec, const porta_view *fields, int nfields);

/** Whether the plan's exchanges are queued on a GPU: prepared for a device communicator
 *  (porta_exchange_prepare_queue), which the _on calls below then take. */
PORTA_EXCHANGE_API int porta_exchange_queued(const porta_exchange *x);
/** An exchange of `fields` by the plan, as it was prepared, so that the caller need not know
 *  how: queued on `exec` where the plan is queued (porta_exchange_queue over the device
 *  communicator it was prepared for; nothing waits on the host, later work on `exec` sees the
 *  values), else porta_exchange_run (driven from the host on the plan's own space). */
PORTA_EXCHANGE_API int porta_exchange_run_on(porta_exchange *x, porta_exec exec,
                                             const porta_view *fields, int nfields);
/** The first half of porta_exchange_run_on for several independent plans (as for
 *  porta_exchange_run_together), all queued or none (refused otherwise, leaving none
 *  started): queued plans are queued whole on `exec`, the others started together
 *  (porta_exchange_start_together). */
PORTA_EXCHANGE_API int porta_exchange_start_on(porta_exchange *const *plans, int nplans,
                                               porta_exec exec, const porta_view *fields,
                                               int nfields);
/** The second half: the plans driven from the host finished (the host waits for their
 *  messages); a queued plan has nothing left to do. */
PORTA_EXCHANGE_API int porta_exchange_finish_on(porta_exchange *const *plans, int nplans);

/** porta_halo2d_prepare (porta/exchange_halo2d.h), and every plan prepared for queued exchanges
 * over `dc`. */
PORTA_EXCHANGE_API int porta_halo2d_prepare_queue(struct porta_halo2d *h, porta_device_comm *dc,
                                                  const porta_view_f64 *field);
/** porta_halo2d_exchange queued on `exec` (the x plan's exchange, then the y plan's, each by
 *  porta_exchange_queue): the same checks, the same ghost values. Queued exchanges are not
 *  counted in the halo's messages and bytes (one recorded in a loop runs many times). */
PORTA_EXCHANGE_API int porta_halo2d_queue(struct porta_halo2d *h, porta_device_comm *dc,
                                          porta_exec exec, const porta_view_f64 *fields,
                                          int nfields, int depth);
/** The first ghost layer of the faces alone, queued on `exec` as one exchange with every
 *  neighbour at once (half the steps of porta_halo2d_queue of depth 1): for a caller whose
 *  kernels read no corner ghost cell (a 5-point stencil), which keep what they held. */
PORTA_EXCHANGE_API int porta_halo2d_queue_faces(struct porta_halo2d *h, porta_device_comm *dc,
                                                porta_exec exec, const porta_view_f64 *fields,
                                                int nfields);

PORTA_EXTERN_C_END

#endif /* PORTA_EXCHANGE_DEVICE_H */
