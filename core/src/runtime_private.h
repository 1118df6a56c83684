/** @file runtime_private.h
 *  Run-time state shared by the core's source files (not installed). */
#ifndef PORTA_RUNTIME_PRIVATE_H
#define PORTA_RUNTIME_PRIVATE_H

#include "backend_private.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Everything porta_initialize decides. */
/** Instances one loop body may fork at once (porta_exec_wait). */
#define PORTA_MAX_FORKS 8

typedef struct porta_state {
  int initialized;
  porta_backend default_backend;
  int num_threads;
  int deterministic;
  int profile_table;
  int device_id;
  int default_space; /**< -1: the default execution space's */
  /** A loop's body being recorded (porta/loop.h): its label and execution space; launches
   *  elsewhere, blocking reductions and fences are refused until recording ends. */
  const char *recording;
  porta_exec recording_exec;
  const struct porta_loop *recording_loop; /**< that loop (porta_loop_decider, messages) */
  int capturing; /**< the launches are recorded (a CUDA graph), not run: no profiling hooks */
  /** Instances the body forked from its space (porta_exec_wait) and has not joined again: its
   *  launches may go there too */
  int forked[PORTA_MAX_FORKS];
  int nforked;
} porta_state;

extern porta_state porta_state_;

/* The recording guard of a loop's body (recording.c). */
/** A body of `loop` (labelled `label`) starts on `exec`: launches recorded when `capturing`. */
void porta_recording_begin_(const struct porta_loop *loop, const char *label, porta_exec exec,
                            int capturing);
/** The body ended: its forks joined to `exec`, the guard off. Returns an instance the body
 *  forked and did not join itself (-1: none). */
int porta_recording_end_(porta_exec exec);
/** porta_exec_wait inside a body: a fork from the body's space (or a forked instance) marks
 *  `exec` forked; the body's space waiting for a forked instance joins it. */
int porta_recording_wait_(porta_exec exec, porta_exec after);
/** Whether a loop's body forked `exec` (porta_exec_wait) and has not joined it yet. */
int porta_forked_(porta_exec exec);
/** `exec` (a loop body's space) waits for every instance still forked from it; none is left. */
void porta_join_forks_(porta_exec exec);

/** Allocation hooks of one memory space; the CUDA back end fills in its spaces. */
typedef struct porta_space_ops {
  int (*alloc)(void **ptr, size_t bytes);
  void (*free)(void *ptr);
  int (*zero)(void *ptr, size_t bytes);
  /** Copy between this space (as destination or source) and `other`. */
  int (*copy)(void *dst, porta_memory_space dst_space, const void *src,
              porta_memory_space src_space, size_t bytes);
} porta_space_ops;

extern porta_space_ops porta_space_ops_[PORTA_NUM_MEMORY_SPACES];

int porta_space_alloc_(porta_memory_space space, size_t bytes, const char *label, void **ptr);
void porta_space_free_(porta_memory_space space, void *ptr);
int porta_space_copy_(void *dst, porta_memory_space dst_space, const void *src,
                      porta_memory_space src_space, size_t bytes);
int porta_space_zero_(porta_memory_space space, void *ptr, size_t bytes);

/** Copy, element by element, the box common to two host views of equal rank. */
void porta_view_copy_overlap_(porta_view dst, porta_view src);
/** porta_view_copy_overlap_ for views in any memory spaces: a side the host cannot reach is
 *  staged through a host copy of its span, and a staged destination goes back whole (its span
 *  was read first, so gaps and padding keep their values). No fence. */
int porta_view_copy_overlap_staged_(porta_view dst, porta_view src, const char *op);

/** The error for a call a loop's body may not make (copies, fills, instances, loops, fences):
 *  the body only launches kernels on its execution space (porta/loop.h; recording.c). */
int porta_refuse_in_loop_(const char *op, const char *label);

/** PORTA_SUCCESS where `n` host threads (this one and n - 1 more) have room for their stacks
 *  under the process's address-space limit (RLIMIT_AS), else the failure of `op` saying so. */
int porta_thread_stacks_check_(int n, const char *op);

/** Failures porta_error has recorded on this thread: tells whether a message is new. */
unsigned long porta_error_serial_(void);

/** Wait for an instance without reporting a fence to tools (the profile table). */
int porta_fence_quiet_(porta_exec exec);

/** The waits' check set by porta_set_wait_check_ (NULL: none). */
extern int (*porta_wait_check_)(int poll);

/** Release the host workspace (at finalize). */
void porta_host_workspace_free_(void);

PORTA_EXTERN_C_END

#endif
