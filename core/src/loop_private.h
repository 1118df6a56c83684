/** @file loop_private.h
 *  A recorded loop as the core and the back ends see it (porta/loop.h; not installed). */
#ifndef PORTA_LOOP_PRIVATE_H
#define PORTA_LOOP_PRIVATE_H

#include "porta/loop.h"
#include "runtime_private.h"

PORTA_EXTERN_C_BEGIN

struct porta_loop {
  char label[64];
  porta_exec exec;
  porta_loop_body body;
  void *ctx;
  const int32_t *repeat;        /**< NULL: one pass per run */
  int64_t max_passes;           /**< 0: no limit */
  int64_t passes;               /**< the last run's passes (host back ends) */
  int deciding;                 /**< porta_loop_create_deciding: the body's kernels decide */
  porta_loop_handle handle;     /**< a deciding loop's (its back end fills it in) */
  int32_t host_repeat;          /**< the host back ends' flag and count (handle points here) */
  const porta_backend_ops *ops; /**< the back end that recorded it, or NULL: the body is called */
  void *impl;                   /**< that back end's record (a CUDA graph, ...) */
};

/** Call the loop's body on `exec` under the loop's rules (launches on `exec` only, reductions
 *  into its memory, no fences: porta_state_.recording), with its launches recorded rather than
 *  run when `capturing` (no profiling hooks then). */
int porta_loop_call_body_(porta_loop *loop, porta_exec exec, int capturing);

PORTA_EXTERN_C_END

#endif
