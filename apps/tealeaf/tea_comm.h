/** @file tea_comm.h
 *  The driver's communication state behind tea_chunk.comm: the decomposition, the halo
 *  exchanger and the sum mode, plus timers for the report. */
#ifndef TEA_COMM_H
#define TEA_COMM_H

#include "app_common.h"
#include "tea_chunk.h"

PORTA_EXTERN_C_BEGIN

struct tea_comm {
  app_decomp d;
  app_halo2d halo;
  app_timers *timers;
  int t_halo, t_reduce;
  int64_t reductions;
};

/** Fill the chunk's geometry from the decomposition and the settings (before tea_chunk_alloc). */
void tea_chunk_setup(tea_chunk *c, const app_decomp *d, const tea_settings *s, porta_exec exec);
/** Create the communication state of an allocated chunk. */
int tea_comm_create(tea_chunk *c, const app_decomp *d, app_timers *timers);
void tea_comm_destroy(tea_chunk *c);

PORTA_EXTERN_C_END

#endif /* TEA_COMM_H */
