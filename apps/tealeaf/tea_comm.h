/** @file tea_comm.h
 *  The driver's communication state behind tea_chunk.comm: the decomposition and the halo
 *  exchanger, plus timers for the report. (The sum mode is the chunk's app_sum, c->sum.) */
#ifndef TEA_COMM_H
#define TEA_COMM_H

#include "app_common.h"
#include "app_sum_comm.h"
#include "tea_chunk.h"

PORTA_EXTERN_C_BEGIN

struct tea_comm {
  porta_decomp d;
  porta_halo2d halo;
  /** the exchanges beside c->exec (tea_halo_exchange_beside): plans of their own on a
   *  high-priority instance; has_beside 0 when there is none */
  porta_halo2d halo_beside;
  porta_exec beside;
  int has_beside;
  int beside_cells; /**< the fewest interior cells any rank has along x or y */
  app_timers *timers;
  int t_halo;
  /** several ranks on GPUs with NCCL: the sums and exchanges a recorded loop queues
   *  (tea_allreduce_sum_on, tea_halo_exchange_on); NULL otherwise, with the reason in
   *  device_note */
  porta_device_comm *device;
  char device_note[256];
  int queueing; /**< a loop is recording: exchanges are queued (tea_set_queueing) */
};

/** Collective: the ranks' decomposition of the settings' mesh into *d; a mesh the ranks cannot
 *  share (fewer cells than halo_depth on some rank) stops the job naming why. */
void tea_decompose(const tea_settings *s, porta_decomp *d);
/** Fill the chunk's geometry from the decomposition and the settings (before tea_chunk_alloc). */
void tea_chunk_setup(tea_chunk *c, const porta_decomp *d, const tea_settings *s, porta_exec exec);
/** Create the communication state of an allocated chunk: the halo exchanger and c->sum (over
 *  d->comm, exact when c->reproducible; MPI_COMM_NULL: one process without MPI). */
int tea_comm_create(tea_chunk *c, const porta_decomp *d, app_timers *timers);
void tea_comm_destroy(tea_chunk *c);

PORTA_EXTERN_C_END

#endif /* TEA_COMM_H */
