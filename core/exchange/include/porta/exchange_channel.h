/** @file porta/exchange_channel.h
 *  Messages of any length between pairs of ranks, packed and unpacked by kernels on an
 *  execution space: what miniMD's re-neighbouring sends (the atoms that migrate, the new
 *  ghosts), whose sizes change at every call, so that a fixed exchange plan (porta/exchange.h)
 *  does not fit.
 *
 *  A call is a paired send and receive, like MPI_Sendrecv: pack the message into the buffer
 *  porta_channel_send_buffer() gives, call porta_channel_sendrecv() (`to` and `from` make the
 *  matching call, naming this rank as their `from` and `to`), and unpack the message it
 *  returns. The transports are the exchange plans' (PORTA_EXCHANGE_TRANSPORT, or
 *  APP_EXCHANGE_TRANSPORT where it is unset, forces one, and the run reports list them with
 *  the plans'):
 *  - host back ends: host memory, sent by MPI;
 *  - a GPU and a CUDA-aware MPI: device memory, sent by MPI;
 *  - a GPU and a sender on the same node whose GPU this one can reach: CUDA IPC. A rank keeps
 *    one device buffer for each rank that sends to it, which that rank maps and copies its
 *    message into; MPI carries only the sizes and a "the message is in place" word. A buffer
 *    is replaced (and its handle sent again) only when a message does not fit;
 *  - otherwise pinned host memory: the message is copied there, sent by MPI and copied back
 *    to device memory.
 *  The receiver tells the sender at the start of every call that its buffer is free, so a
 *  received message stays valid until this rank's next porta_channel_sendrecv, which fences the
 *  execution space before anything else (kernels reading the message may still be queued).
 *
 *  A message too long for MPI is refused by both its ends after the call's last round, so no
 *  other rank is left waiting. A local failure part-way (no memory, a GPU fault) returns at
 *  once: the ranks this one was exchanging with then wait, so treat it as fatal (MPI_Abort,
 *  which the apps' fatal path calls).
 */
#ifndef PORTA_EXCHANGE_CHANNEL_H
#define PORTA_EXCHANGE_CHANNEL_H

#include <mpi.h>
#include <stdint.h>

#include "porta/porta.h"
#include "porta/exchange.h"

PORTA_EXTERN_C_BEGIN

typedef struct porta_channel porta_channel;

/** A channel over `comm` whose messages are packed and unpacked on `exec`, with MPI tags
 *  tag .. tag + 4. `label` names it in messages. */
PORTA_EXCHANGE_API int porta_channel_create(porta_channel **out, const char *label, MPI_Comm comm,
                                            porta_exec exec, int tag);
/** Free the channel's buffers and unmap the neighbours'. Not collective. */
PORTA_EXCHANGE_API void porta_channel_destroy(porta_channel *ch);

/** *buf: a buffer of at least n doubles in exec's memory, owned by the channel, to pack the
 *  next message into. It keeps its contents until the next call of this function, so one
 *  message can be sent to several ranks. */
PORTA_EXCHANGE_API int porta_channel_send_buffer(porta_channel *ch, int64_t n, porta_view_f64 *buf);

/** Send the first `ns` doubles of the send buffer (packed by kernels queued on exec) to rank
 *  `to` and receive the message from rank `from`: *nr doubles in *recv, in exec's memory,
 *  owned by the channel and valid until this rank's next call. Collective with `to` and
 *  `from`; either may be this rank. */
PORTA_EXCHANGE_API int porta_channel_sendrecv(porta_channel *ch, int64_t ns, int to, int from,
                                              porta_view_f64 *recv, int64_t *nr);

/** Make the buffers for messages of up to n doubles between this rank and `to` and `from`
 *  ready (collective like porta_channel_sendrecv, with the same pairs and each rank's own n):
 *  over CUDA IPC, a receiver allocates a buffer and its sender maps it, which is slow, so a
 *  simulation does it once at set-up rather than in its first timed step. */
PORTA_EXCHANGE_API int porta_channel_reserve(porta_channel *ch, int64_t n, int to, int from);

/** How the messages went so far: "host", "pinned-host", "cuda-aware-mpi", "cuda-ipc", or
 *  several joined by '+' ("none" before the first). */
PORTA_EXCHANGE_API void porta_channel_transports(const porta_channel *ch, char *buf, size_t size);

PORTA_EXTERN_C_END

#endif /* PORTA_EXCHANGE_CHANNEL_H */
