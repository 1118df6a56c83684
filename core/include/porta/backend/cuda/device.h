/** @file backend/cuda/device.h
 *  The CUDA back end's hooks: what the user headers need when nvcc compiles a kernel file, in
 *  its host pass and its device pass (__CUDA_ARCH__). The one header through which device code
 *  reaches the user headers (porta/atomic.h, team.h, view_access.h, macros.h): porta/config.h names
 * it (PORTA_DEVICE_HOOKS_H) in CUDA builds and macros.h includes it first; the user headers then
 * include the files named here at their hook points and otherwise hold the interface and the host
 * pass only. */
#ifndef PORTA_BACKEND_CUDA_DEVICE_H
#define PORTA_BACKEND_CUDA_DEVICE_H

#if defined(__CUDACC__)
#include <string.h>

#if defined(__CUDA_ARCH__)
#define PORTA_DEVICE_PASS 1
#endif

#define PORTA_INLINE_FUNCTION static inline __host__ __device__
#define PORTA_FORCEINLINE_FUNCTION static __host__ __device__ __forceinline__
#define PORTA_HOST_DEVICE __host__ __device__

/* Hook points of the user headers. */
#define PORTA_DEVICE_ATOMIC_H "porta/backend/cuda/atomic.h"
#define PORTA_DEVICE_ATOMIC_LOCK_H "porta/backend/cuda/atomic_lock.h"
#define PORTA_DEVICE_VIEW_ACCESS_H "porta/backend/cuda/view_access.h"
#define PORTA_DEVICE_LOOP_H "porta/backend/cuda/loop.h"
#define PORTA_DEVICE_REDUCE_END_H "porta/backend/cuda/reduce_end.h"

#include "porta/backend/cuda/device_team.h"
#endif

#endif
