/** @file exchange_peer.h
 *  Queued sums and exchanges between the GPUs of one node through each other's memory (CUDA
 *  IPC), the device communicator's other transport beside NCCL (exchange_device.c). Internal to
 *  the exchange library.
 *
 *  Every rank owns an inbox in device memory that the others map: for an exchange a flag per
 *  writer, then two buffers; for the sums two buffers alone. A queued operation is one kernel on
 *  the caller's instance, so a recorded loop holds it: it writes this rank's values straight
 *  into the readers' inboxes (buffer e % 2 for the operation's e-th run), marks them as run e's
 *  (each 64-bit word goes as two that carry e: porta/backend/cuda/reduce_end.h, which a
 *  reduction's end runs too; an exchange with PORTA_PEER_EXCHANGE=flags sends plain words and
 *  raises its flag to e after a system fence), waits until every writer's values in its own
 *  inbox are run e's, and reads its inbox. Two buffers suffice where each reader also writes
 *  to its writer (every sum; plans whose neighbours send both ways): a writer reaches run e + 2
 *  only after every reader marked its run e + 1, which a reader does after its run e finished
 *  reading. Where a reader sends nothing back (a one-way ring), it tells its writer instead:
 *  every exchange ends by writing its finished run into each neighbour's inbox, and a writer to
 *  such a reader waits for run e before it writes run e + 2 (docs/design-notes.md, "Why two
 *  buffers suffice"). The run counters live in device memory, so nothing is reset between runs
 *  or replays of a recorded loop.
 *
 *  A waiting kernel stops the GPU with an error (a trap) after PORTA_PEER_TIMEOUT_S seconds, so
 *  a rank that never arrives (it failed) ends the job rather than hanging it. */
#ifndef PORTA_EXCHANGE_PEER_H
#define PORTA_EXCHANGE_PEER_H

#include <stdint.h>

#include "porta/macros.h"
#include "porta/reduce_end.h"

PORTA_EXTERN_C_BEGIN

/** Seconds a queued peer operation waits for its writers before it stops the GPU. */
#define PORTA_PEER_TIMEOUT_S PORTA_CROSS_SUM_TIMEOUT_S
/** Doubles a peer sum carries (a sum of more goes by NCCL). */
#define PORTA_PEER_SUM_MAX PORTA_CROSS_SUM_SLOTS
/** Writers an inbox has flags for (a plan's neighbours; a communicator's ranks). */
#define PORTA_PEER_MAX 64
/** Bytes of an exchange's inbox before its buffers: a flag per writer (the run it wrote), then
 *  one per reader (the run it finished reading), 64-bit each. */
#define PORTA_PEER_FLAG_BYTES (16 * PORTA_PEER_MAX)

/** A queued operation's counters, in this rank's device memory. */
typedef struct porta_peer_state {
  unsigned long long runs;    /**< runs finished */
  unsigned arrived, departed; /**< blocks of the current run past each half */
} porta_peer_state;

/** Where one of this rank's messages goes (device memory, one per neighbour entry). */
typedef struct porta_peer_link {
  unsigned char *inbox; /**< the reader's inbox, mapped here (this rank's own for itself) */
  int64_t at;           /**< where the values start in the reader's buffers, in values */
  int64_t first, count; /**< the values of this rank's send list that go there */
  int64_t buffer_bytes; /**< each of the reader's two buffers (its receives, not this rank's) */
  int slot;             /**< this rank's flags in the reader's inbox (written and read runs) */
  int one_way;          /**< the reader sends nothing back: wait for its finished runs */
} porta_peer_link;

/** One queued exchange: the kernel's arguments. */
typedef struct porta_peer_exchange_args {
  void *field[16];      /**< the fields (PORTA_EXCHANGE_MAX_FIELDS at most) */
  int nfields, words;   /**< fields, 8-byte words per value */
  int nlinks, nwriters; /**< messages sent; flags waited for (messages received) */
  int accumulate;       /**< the unpack adds (doubles) */
  int tagged;           /**< each word travels as two carrying the run: no fence, no flags */
  int one_way;          /**< a link is one-way: wait for its reader's run e - 2 first */
  int pad;
  const int64_t *send_index; /**< [send_total] offsets, in values */
  const int64_t *recv_index; /**< [recv_total] */
  int64_t send_total, recv_total;
  const porta_peer_link *links; /**< [nlinks], device memory */
  unsigned char *inbox;         /**< this rank's */
  int64_t buffer_bytes;         /**< each of the inbox's two buffers */
  porta_peer_state *state;
} porta_peer_exchange_args;

/** One queued sum of `count` doubles over `nranks` ranks, added in rank order from rank 1 on,
 *  then rank 0's ((x1 + x2) + ...) + x0: the order of NCCL's ring on one node, and a + b on
 *  two ranks as MPI's. */
typedef struct porta_peer_sum_args {
  double *values;
  int count, nranks, rank, pad;
  unsigned char *inbox[PORTA_PEER_MAX]; /**< every rank's inbox, mapped here (its own too) */
  porta_peer_state *state;
} porta_peer_sum_args;

/** 1 when this build has the peer transport (the CUDA back end), else 0. */
int porta_peer_built_(void);
/** Queue the exchange / the sum on the native queue `queue` (a cudaStream_t). */
int porta_peer_exchange_queue_(const porta_peer_exchange_args *a, void *queue);
int porta_peer_sum_queue_(const porta_peer_sum_args *a, void *queue);
/** Zeroed device memory of `bytes` (the counters, the links); porta_peer_free releases it. */
int porta_peer_alloc_(size_t bytes, void **ptr);
void porta_peer_free_(void *ptr);
/** Zero `bytes` of device memory at `ptr` and copy `bytes` from the host: both wait. */
int porta_peer_zero_(void *ptr, size_t bytes);
int porta_peer_upload_(void *dst, const void *src, size_t bytes);
/** Copy `bytes` of device memory (an inbox's flags into its replacement): waits. */
int porta_peer_copy_(void *dst, const void *src, size_t bytes);

PORTA_EXTERN_C_END

#endif /* PORTA_EXCHANGE_PEER_H */
