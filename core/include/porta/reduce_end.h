/** @file reduce_end.h
 *  The end of a reduction into memory of its execution space (porta_parallel_reduce_into and
 *  porta_parallel_reduce_md_into), run by the reduction itself once its value is final: the
 *  value summed over ranks (a cross-rank sum, which the exchange library sets up:
 *  porta_device_comm_end_sum), then a few scalar steps on doubles of the same memory.
 *
 *  Why: on a GPU every kernel of a dependent chain costs a launch after its predecessor ends,
 *  about 7 us for a one-thread kernel between two large ones on an H100. A solver iteration's
 *  "sum the dot product over the ranks, then alpha = rr / pw" is two such kernels; as the
 *  reduction's end they are none (the reduction's last block runs them). Host back ends run the
 *  steps after the reduction, on the host.
 *
 *  Set with porta_exec_end_next_reduction before the launch: the next reduction into memory on
 *  that instance, from the same host thread, takes it (inside a recorded loop too: it is a
 *  kernel argument). Range and mdrange reductions, deterministic or not (there the tree's last
 *  thread runs it; the exact sum's, on CUDA, by its ordinary kernel); a team policy's reduction
 *  refuses an end. */
#ifndef PORTA_REDUCE_END_H
#define PORTA_REDUCE_END_H

#include <stdint.h>

#include "porta/macros.h"
#include "porta/runtime.h"

PORTA_EXTERN_C_BEGIN

/** Scalar steps a reduction's end runs, in order. */
#define PORTA_REDUCE_END_STEPS 4
/** Ranks a cross-rank sum in a reduction's end reaches (more: sum in a kernel of its own). */
#define PORTA_REDUCE_END_RANKS 16

/** The cross-rank sum's inboxes (device memory every rank maps): two buffers of
 *  PORTA_CROSS_SUM_SLOTS values per rank, each value two 64-bit words that carry its run (no
 *  flags of their own), used alternately by the sum's runs (exchange library, exchange_peer.h). */
#define PORTA_CROSS_SUM_SLOTS 8
/** Seconds a cross-rank sum waits for the other ranks before it stops the GPU (a trap). */
#define PORTA_CROSS_SUM_TIMEOUT_S 300

typedef enum porta_scalar_step_kind {
  PORTA_SCALAR_COPY = 1, /**< *dst = *a */
  PORTA_SCALAR_DIV = 2   /**< *dst = *a / *b */
} porta_scalar_step_kind;

/** One scalar step: doubles in the reduction's memory space. */
typedef struct porta_scalar_step {
  int32_t kind, pad; /**< porta_scalar_step_kind */
  double *dst;
  const double *a, *b;
} porta_scalar_step;

/** A reduction's end, passed by value. Zeroed: nothing. */
typedef struct porta_reduce_end {
  /** The cross-rank sum (nranks 0: none): the value, that of a sum of doubles (the reducer is not
   *  checked: one double of a max would be added too), added over the ranks as
   *  ((x1 + x2) + ...) + x0, the order of the exchange library's sums (the same bits). */
  int32_t nranks, rank;
  unsigned char *inbox[PORTA_REDUCE_END_RANKS]; /**< every rank's inbox, mapped here */
  unsigned long long *runs;                     /**< the sums finished (device memory) */
  int32_t nsteps, pad;
  porta_scalar_step steps[PORTA_REDUCE_END_STEPS];
} porta_reduce_end;

/** Append the step *dst = *a (kind COPY, b unused) or *dst = *a / *b to `end`. */
PORTA_API int porta_reduce_end_step(porta_reduce_end *end, porta_scalar_step_kind kind, double *dst,
                                    const double *a, const double *b);

/** The next reduction into memory on `exec` ends with `end` (copied). A cross-rank sum needs a
 *  GPU back end; the reduction's value must then be one double. Replaces an end not yet taken. */
PORTA_API int porta_exec_end_next_reduction(porta_exec exec, const porta_reduce_end *end);

PORTA_EXTERN_C_END

/* The device back end's side: its reductions' ends and the sums over the ranks a kernel may
   run itself (its hooks, porta/backend/<device>/device.h); none on the host back ends. */
#ifdef PORTA_DEVICE_REDUCE_END_H
#include PORTA_DEVICE_REDUCE_END_H
#endif

/* Whether `e` holds a cross-rank sum a kernel can run. */
PORTA_INLINE_FUNCTION int porta_reduce_end_holds_(const porta_reduce_end *e) {
  return e->nranks >= 1 && e->nranks <= PORTA_REDUCE_END_RANKS;
}

/** In a kernel on a GPU, from one thread, on every rank of the cross-rank sum `e` holds
 *  (porta_device_comm_end_sum filled it), in the same order as the sums queued beside it:
 *  values[0 .. count - 1] summed over the ranks in place, PORTA_CROSS_SUM_SLOTS values a run
 *  of the sums' counter, the same bits as porta_device_comm_sum's. Returns 1; 0, with nothing
 *  done, where the back end runs no such sum (the host back ends, and a host pass) or `e`
 *  holds none (nranks 0). */
PORTA_INLINE_FUNCTION int porta_reduce_end_sum(const porta_reduce_end *e, double *values,
                                               int count) {
#ifdef PORTA_CROSS_SUM_
  if (!porta_reduce_end_holds_(e)) return 0;
  for (int j = 0; j < count; j += PORTA_CROSS_SUM_SLOTS)
    PORTA_CROSS_SUM_(e, values + j,
                     count - j < PORTA_CROSS_SUM_SLOTS ? count - j : PORTA_CROSS_SUM_SLOTS);
  return 1;
#else
  (void)e, (void)values, (void)count;
  return 0;
#endif
}

/** The same, gathering instead of adding: every rank's mine[0 .. count - 1] into
 *  all[count q ..] for rank q (count <= PORTA_CROSS_SUM_SLOTS, all of e->nranks count doubles):
 *  every rank gets the same doubles. 0 also for a count beyond the slots. */
PORTA_INLINE_FUNCTION int porta_reduce_end_gather(const porta_reduce_end *e, const double *mine,
                                                  int count, double *all) {
#ifdef PORTA_CROSS_GATHER_
  if (!porta_reduce_end_holds_(e) || count < 0 || count > PORTA_CROSS_SUM_SLOTS) return 0;
  PORTA_CROSS_GATHER_(e, mine, count, all);
  return 1;
#else
  (void)e, (void)mine, (void)count, (void)all;
  return 0;
#endif
}

#endif /* PORTA_REDUCE_END_H */
