/** @file profiling_private.h
 *  The profiling hooks the core's dispatch, view, copy and fence code calls (not installed).
 *  Each call site first tests porta_profiling_active_: the one branch a launch pays when
 *  profiling is off. */
#ifndef PORTA_PROFILING_PRIVATE_H
#define PORTA_PROFILING_PRIVATE_H

#include "porta/profiling.h"

PORTA_EXTERN_C_BEGIN

/** Non-zero iff a tool library is loaded or the built-in table is on: the one
 *  branch a launch pays. Written only by porta_profiling_initialize/finalize. */
extern int porta_profiling_active_;

/** A kernel starts: calls kokkosp_begin_parallel_{for,reduce,scan}. Returns the
 *  handle to pass to the end hook: the kID the first tool set, or an internal
 *  counter when no tool has that hook. Starts the table's clock when on. */
uint64_t porta_profile_begin_kernel_(porta_pattern p, const char *label, uint32_t device_id);
/** A kernel has completed (the caller fenced): stops the clock and calls
 *  kokkosp_end_parallel_*. */
void porta_profile_end_kernel_(porta_pattern p, uint64_t handle);
/** `space` is a porta_memory_space; tools see Kokkos' space names (Host, Cuda, ...). */
void porta_profile_allocate_(int space, const char *label, const void *ptr, uint64_t bytes);
void porta_profile_deallocate_(int space, const char *label, const void *ptr, uint64_t bytes);
void porta_profile_begin_deep_copy_(int dst_space, const char *dst_label, const void *dst,
                                    int src_space, const char *src_label, const void *src,
                                    uint64_t bytes);
void porta_profile_end_deep_copy_(void);
uint64_t porta_profile_begin_fence_(const char *label, uint32_t device_id);
void porta_profile_end_fence_(uint64_t handle);

PORTA_EXTERN_C_END

#endif
