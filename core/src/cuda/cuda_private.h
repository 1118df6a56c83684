/** @file cuda/cuda_private.h
 *  The CUDA back end's run time (runtime.cu) as the core's C files see it: plain C
 *  declarations, no CUDA headers. The launchers' part is porta/backend/cuda/runtime.h. */
#ifndef PORTA_CUDA_PRIVATE_H
#define PORTA_CUDA_PRIVATE_H

#include "../runtime_private.h"

PORTA_EXTERN_C_BEGIN

int porta_cuda_initialize_(int device_id, int device_given, int required);
void porta_cuda_finalize_(void);
int porta_cuda_available_(void);
const char *porta_cuda_device_name_(void);
double porta_cuda_device_memory_bytes_(void);
int porta_cuda_device_sync_(const char *label);
int porta_cuda_sync_(int instance, const char *label);
/** Threads per block, and shared memory per block with the opt-in (defaults without a GPU). */
void porta_cuda_team_limits_(int *max_threads, size_t *max_shared);
int porta_cuda_instance_create_(int priority, int *instance);
int porta_cuda_instance_destroy_(int instance);
int porta_cuda_copy_async_(void *dst, const void *src, size_t bytes, int instance);
/** The cudaStream_t of an instance (NULL: instance 0's legacy default stream, or none). */
void *porta_cuda_stream_(int instance);
/** Work queued later on instance `waiter` starts after `after`'s so far (an event). */
int porta_cuda_order_(int waiter, int after);
int porta_cuda_ipc_alloc_(size_t bytes, void **ptr, void *handle64);
void porta_cuda_ipc_free_(void *ptr);
int porta_cuda_ipc_open_(const void *handle64, void **ptr);
void porta_cuda_ipc_close_(void *ptr);
struct porta_loop;
int porta_cuda_loop_record_(struct porta_loop *loop);
int porta_cuda_loop_run_(struct porta_loop *loop);
int porta_cuda_exec_cond_(porta_exec exec, unsigned long long *handle);
int porta_cuda_exec_if_cond_(porta_exec exec, unsigned long long handle, const int32_t *flag,
                             int (*body)(porta_exec, void *), void *ctx, int capturing);
int porta_cuda_exec_if_(porta_exec exec, const int32_t *flag, int (*body)(porta_exec, void *),
                        void *ctx, int capturing);
int porta_cuda_loop_passes_(struct porta_loop *loop, int64_t *passes);
int porta_cuda_loop_release_(struct porta_loop *loop);
/** Recorded loops alive (`delta` +1 or -1): while any is, a launch workspace that grows keeps
 *  its old buffer (a graph may hold it) instead of waiting for the device and freeing it. */
void porta_cuda_loops_alive_(int delta);

PORTA_EXTERN_C_END

#endif
