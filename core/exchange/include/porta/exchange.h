/** @file porta/exchange.h
 *  The exchange library (porta_exchange, Porta::exchange): an exchange plan, the one halo
 *  exchange of the mini-apps and of Python's porta.exchange, with the Cartesian decomposition
 *  (porta/exchange_decomp.h), the 2D box halo built from plans (porta/exchange_halo2d.h),
 *  exchanges queued on a GPU (porta/exchange_device.h) and channels, messages of any length
 *  over the plans' transports (porta/exchange_channel.h), which this header includes.
 *
 *  A plan lists, for each neighbour rank, which values this rank sends (element offsets into a
 *  field) and where the values it receives go (offsets again). Offsets count elements from the
 *  field view's data pointer, so a plan serves any view shape and layout whose elements are
 *  `value_size` bytes: TeaLeaf builds its 2D box halo as plans (porta/exchange_halo2d.h), miniFE
 *  one plan from the external columns of its matrix, miniMD one per ghost swap.
 *
 *  One exchange moves up to `max_fields` fields of the same shape at once (one message per
 *  neighbour). The values are packed and unpacked by Porta kernels on the plan's execution
 *  space. How they travel between ranks (porta_exchange_transport names it; the apps' run
 *  summaries record it):
 *  - host back ends: buffers in host memory, sent by MPI;
 *  - a GPU and a CUDA-aware MPI (Open MPI's run-time query): device buffers, sent by MPI;
 *  - a GPU otherwise, for each neighbour on the same node whose GPU this one can reach: CUDA
 *    IPC (exchange_ipc.c): the values are copied straight into the neighbour's mapped
 *    receive buffer and MPI only carries a one-int "in place" message;
 *  - any other neighbour of a GPU rank: pinned, mapped host memory that the kernels read and
 *    write over the bus and MPI sends.
 *  PORTA_EXCHANGE_TRANSPORT=pinned-host (or cuda-ipc, cuda-aware-mpi; APP_EXCHANGE_TRANSPORT,
 *  its former name, where it is unset) forces a choice, for comparisons; every rank must see
 *  the same value.
 *
 *  An exchange is split in two so that work can run while the messages travel:
 *  porta_exchange_start() posts the receives, packs, waits for the pack and sends;
 *  porta_exchange_finish() waits for the messages and queues the unpack on the execution space
 *  (later kernels on it see the values; the host must fence first). Alternate exchanges
 *  receive into alternate buffers, so the unpack is never waited for: the next start's fence
 *  after packing covers the buffers before they come round again.
 *
 *  A neighbour may be this rank itself (periodic domains) and may appear more than once;
 *  messages between two ranks are matched in list order (MPI's non-overtaking rule), so both
 *  sides must list each other in corresponding order.
 */
#ifndef PORTA_EXCHANGE_H
#define PORTA_EXCHANGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "porta/exchange_decomp.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Most fields in one exchange. */
#define PORTA_EXCHANGE_MAX_FIELDS 16

/** What a plan is built from (host arrays; the plan copies them). */
typedef struct porta_exchange_lists {
  int nneighbours;
  const int *ranks;          /**< [nneighbours] neighbour ranks in the plan's communicator */
  const int64_t *send_count; /**< [nneighbours] values sent to each */
  const int64_t *send_index; /**< concatenated per neighbour: offsets of the values to send */
  const int64_t *recv_count; /**< [nneighbours] values received from each */
  const int64_t *recv_index; /**< concatenated per neighbour: offsets the values go to */
} porta_exchange_lists;

typedef struct porta_exchange porta_exchange;

/** Build a plan over `comm` for fields of `value_size` bytes per element (a multiple of 4),
 *  exchanging up to `max_fields` fields at once with messages of tag `tag`, packed and
 *  unpacked on `exec`. `label` names the plan in messages. */
PORTA_EXCHANGE_API int porta_exchange_create(porta_exchange **out, const char *label, MPI_Comm comm,
                                             const porta_exchange_lists *lists, size_t value_size,
                                             int max_fields, porta_exec exec, int tag);
PORTA_EXCHANGE_API void porta_exchange_destroy(porta_exchange *x);

/** Give the plan new lists with the same neighbours, in the same order (a simulation's ghost
 *  swaps after re-neighbouring). Index views and buffers are kept when they are large enough
 *  and otherwise grow with a margin, so repeated updates seldom allocate; an adding plan
 *  checks that its new receive offsets are distinct. No exchange may be in progress. A plan
 *  prepared for queued exchanges (porta/exchange_device.h) stays prepared: its neighbours'
 *  copies of the counts are refreshed too, so the update is then collective over the plan's
 *  neighbours (each updates its plan of the pair), as it is for a plan of CUDA IPC. */
PORTA_EXCHANGE_API int porta_exchange_update(porta_exchange *x, const porta_exchange_lists *lists);

/** porta_exchange_update with the offsets already where the plan's kernels run: `ranks`,
 *  `send_count` and `recv_count` have one entry per neighbour of the plan (its count at
 *  creation), and the first sum(send_count) of `send_index` and sum(recv_count) of
 *  `recv_index` (views `exec` reaches) are the offsets, concatenated per neighbour as in
 *  porta_exchange_lists. They are checked by a kernel (none
 *  negative; an adding plan's receive offsets distinct, on the host when they are not
 *  ascending) and copied on the device, so lists that kernels make never visit the host. */
PORTA_EXCHANGE_API int porta_exchange_update_device(porta_exchange *x, const int *ranks,
                                                    const int64_t *send_count,
                                                    porta_view_i64 send_index,
                                                    const int64_t *recv_count,
                                                    porta_view_i64 recv_index);

/** The memory space of the buffers that `exec`'s kernels and MPI both access: the space's
 *  own when the host can read it, else (CUDA) pinned, mapped host memory. */
PORTA_EXCHANGE_API int porta_exchange_buffer_space(porta_exec exec, porta_memory_space *space);

/** Make the unpack add the received values to the fields instead of storing them (reverse
 *  communication: ghost forces summed into their owners). The values must be doubles
 *  (value_size a multiple of 8) and the receive offsets distinct (checked). */
PORTA_EXCHANGE_API int porta_exchange_set_accumulate(porta_exchange *x, int on);

/** Begin an exchange of `fields[0..nfields)` (views of value_size-byte elements whose spans
 *  hold every offset of the plan: checked). Returns a Porta error code. */
PORTA_EXCHANGE_API int porta_exchange_start(porta_exchange *x, const porta_view *fields,
                                            int nfields);
/** Complete the exchange begun by porta_exchange_start. */
PORTA_EXCHANGE_API int porta_exchange_finish(porta_exchange *x);
/** porta_exchange_start for several plans with one wait for all their packs: every plan's
 *  receives and pack are queued, each execution space instance among the plans' is fenced
 *  once, then every plan sends (each plan is then finished on its own). The plans must be
 *  distinct and independent, as for porta_exchange_run_together. Every plan is checked before
 *  any starts, so a refusal (a plan in progress, or given twice; a field that does not fit)
 *  leaves none started; after a failed MPI call the plans are not usable. */
PORTA_EXCHANGE_API int porta_exchange_start_together(porta_exchange *const *plans, int nplans,
                                                     const porta_view *fields, int nfields);
/** start + finish. */
PORTA_EXCHANGE_API int porta_exchange_run(porta_exchange *x, const porta_view *fields, int nfields);
/** Start every plan, then finish every plan, so that their messages travel at the same time.
 *  The plans must be independent: none may send a value another of them receives (miniMD's
 *  two swaps of one dimension, which read the same atoms and write different ghosts). */
PORTA_EXCHANGE_API int porta_exchange_run_together(porta_exchange *const *plans, int nplans,
                                                   const porta_view *fields, int nfields);

/** How this plan's values travel: "host" (host back end), "pinned-host" (GPU kernels read and
 *  write pinned host memory that MPI sends), "cuda-aware-mpi" (device buffers to MPI),
 *  "cuda-ipc" (copies into the neighbours' mapped device buffers, MPI only signals) or
 *  "cuda-ipc+pinned-host" (some neighbours each way). */
PORTA_EXCHANGE_API const char *porta_exchange_transport(const porta_exchange *x);
/** The transports of every plan made so far in this process, joined by '+' ("none": no
 *  plan; "nccl" where exchanges were queued on a GPU, porta/exchange_device.h), for the run
 *  reports. */
PORTA_EXCHANGE_API void porta_exchange_transports_used(char *buf, size_t size);
/** The same over every rank of comm (collective). */
PORTA_EXCHANGE_API int porta_exchange_transports_agree(MPI_Comm comm, char *buf, size_t size);

/** Totals over this plan's exchanges: messages and bytes sent. */
PORTA_EXCHANGE_API void porta_exchange_stats(const porta_exchange *x, int64_t *messages,
                                             int64_t *bytes);
/** Values sent / received per field in one exchange. */
PORTA_EXCHANGE_API int64_t porta_exchange_send_total(const porta_exchange *x);
PORTA_EXCHANGE_API int64_t porta_exchange_recv_total(const porta_exchange *x);

PORTA_EXTERN_C_END

/* The 2D box halo, built from plans (it includes this header, whose declarations are above). */
#include "porta/exchange_halo2d.h"
/* Sums and exchanges queued on a GPU (NCCL), which a recorded loop can hold. */
#include "porta/exchange_device.h"
/* Messages of any length between pairs of ranks, over the plans' transports. */
#include "porta/exchange_channel.h"

#endif /* PORTA_EXCHANGE_H */
