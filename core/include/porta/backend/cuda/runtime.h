/** @file backend/cuda/runtime.h
 *  What generated CUDA launchers need from the CUDA runtime part of the core
 *  (core/src/cuda/runtime.cu). Plain C declarations; no CUDA headers. */
#ifndef PORTA_BACKEND_CUDA_RUNTIME_H
#define PORTA_BACKEND_CUDA_RUNTIME_H

#include "porta/runtime.h"

PORTA_EXTERN_C_BEGIN

/** The stream of an instance (a cudaStream_t). */
PORTA_API void *porta_cuda_stream_(int instance);
/** Device workspace of at least `bytes` (grows; one per host thread, whose launches are
 *  ordered; NULL if out of memory). */
PORTA_API void *porta_cuda_workspace_(size_t bytes);
/** The calling thread's zeroed device counter for last-block detection (atomicInc wraps it back
 *  to 0); made by porta_cuda_workspace_ if not yet. */
PORTA_API unsigned *porta_cuda_counter_(void);
/** Pinned, device-mapped host memory for reduction results (one buffer per host thread). */
PORTA_API void *porta_cuda_result_(size_t bytes);
/** Check a launch and remember its label for asynchronous fault reports. */
PORTA_API int porta_cuda_launched_(const char *label);
/** Wait for an instance; reports a fault naming the last kernel launched. */
PORTA_API int porta_cuda_sync_(int instance, const char *label);
/** The GPU's limit on blocks per grid (x). */
PORTA_API int64_t porta_cuda_max_grid_(void);
/** Blocks a grid-stride launch uses at most: the GPU's limit, or PORTA_CUDA_GRID_LIMIT. */
PORTA_API int64_t porta_cuda_grid_limit_(void);
/** Set a kernel up for `bytes` of dynamic shared memory in blocks of `threads`: opt in above
 *  48 KiB (failing with a message naming `label`, the bytes and the GPU's limit when they
 *  cannot fit), and ask for a shared-memory carveout just large enough for a full SM of such
 *  blocks, so the rest stays L1 cache (the driver's own choice for a kernel that uses shared
 *  memory can shrink L1). Remembered per kernel: repeated launches of one shape cost a lookup. */
PORTA_API int porta_cuda_shared_setup_(const void *kernel, size_t bytes, int threads,
                                       const char *label);

/** A failed view check on the GPU (debug builds, view_access.h). The first failing thread
 *  claims the record through a flag in device memory, fills it in pinned host memory (which
 *  survives the trap that stops the kernel) and sets `ready` last; the run time turns it into
 *  a PORTA_ERROR_BOUNDS naming the kernel, the view, the indices and the extents. */
typedef struct porta_cuda_check_record {
  int32_t ready;    /**< non-zero once the rest is written */
  int32_t nidx;     /**< indices used by the access */
  int32_t rank;     /**< the view's rank */
  int32_t layout;   /**< the view's layout */
  int32_t line;     /**< source line of the access */
  int32_t block[3]; /**< blockIdx of the failing thread */
  int32_t thread[3];
  int64_t idx[8];
  int64_t extent[8];
  char label[32]; /**< the view's label */
  char what[48];  /**< "index out of bounds", "rank mismatch", "layout mismatch" */
  char file[128]; /**< the end of the source path */
} porta_cuda_check_record;

/** Where a kernel file's device code finds the check record (set per file by
 *  porta_cuda_check_attach_). */
typedef struct porta_cuda_check_sink {
  int32_t *claim;               /**< device memory: 0 until a thread claims the record */
  porta_cuda_check_record *rec; /**< pinned, device-mapped host memory */
} porta_cuda_check_sink;

/** Copy the run time's check sink into a kernel file's `__device__` symbol (its host shadow
 *  address) unless that was done since the last porta_initialize (`*epoch` remembers), and ask
 *  launches to wait for their kernel so a failed check is reported by the launch that caused it.
 *  Called by debug-build launchers before each launch. */
PORTA_API int porta_cuda_check_attach_(const void *symbol, unsigned *epoch);

PORTA_EXTERN_C_END

#endif
