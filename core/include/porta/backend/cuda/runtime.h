/** @file backend/cuda/runtime.h
 *  What generated CUDA launchers need from the CUDA runtime part of the core
 *  (core/src/cuda/runtime.cu). Plain C declarations; no CUDA headers. */
#ifndef PORTA_BACKEND_CUDA_RUNTIME_H
#define PORTA_BACKEND_CUDA_RUNTIME_H

#include "porta/runtime.h"

PORTA_EXTERN_C_BEGIN

/** The stream of an instance (a cudaStream_t). */
void *porta_cuda_stream_(int instance);
/** Device workspace of at least `bytes` (grows; one per process; launches are ordered). */
void *porta_cuda_workspace_(size_t bytes);
/** A zeroed device counter for last-block detection (atomicInc wraps it back to 0). */
unsigned *porta_cuda_counter_(void);
/** Pinned, device-mapped host memory for reduction results. */
void *porta_cuda_result_(size_t bytes);
/** Check a launch and remember its label for asynchronous fault reports. */
int porta_cuda_launched_(const char *label);
/** Wait for an instance; reports a fault naming the last kernel launched. */
int porta_cuda_sync_(int instance, const char *label);
/** Blocks per grid the launchers use at most. */
int64_t porta_cuda_max_grid_(void);
/** Opt a kernel in to more than 48 KiB of dynamic shared memory (cudaFuncSetAttribute). */
int porta_cuda_shared_opt_in_(const void *kernel, size_t bytes, const char *label);

PORTA_EXTERN_C_END

#endif
