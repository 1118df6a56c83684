/** @file backend/cuda/kernels.h
 *  The CUDA back end's kernel generators, as kernel.h calls them (docs/backends.md): function
 *  templates instantiated for a kernel's functor type when nvcc compiles the file.
 *
 *  In a CUDA build every file that defines kernels must be compiled by nvcc (list it with
 *  porta_kernel_sources, or porta_add_app's KERNEL_SOURCES): compiled by the host compiler it
 *  would get no CUDA launchers and fail at its first launch on a GPU, so the build stops here
 *  instead, naming the kernel. A file meant for the host back ends only (a C++ syntax check)
 *  defines PORTA_HOST_KERNELS_ONLY before including porta.h. */
#ifndef PORTA_BACKEND_CUDA_KERNELS_H
#define PORTA_BACKEND_CUDA_KERNELS_H

#include "porta/backend/cuda/mdrange.h"
#include "porta/backend/cuda/range.h"
#include "porta/backend/cuda/team.h"

#if PORTA_ENABLE_CUDA && !defined(__CUDACC__) && !defined(PORTA_HOST_KERNELS_ONLY)
#ifdef __cplusplus
#define PORTA_CUDA_NOT_NVCC_(NAME)                                                                 \
  static_assert(0, "Porta kernel " #NAME " is in a file that nvcc does not compile in this CUDA "  \
                   "build: list the file in porta_kernel_sources()");
#else
#define PORTA_CUDA_NOT_NVCC_(NAME)                                                                 \
  _Static_assert(0, "Porta kernel " #NAME " is in a file that nvcc does not compile in this CUDA " \
                    "build: list the file in porta_kernel_sources()");
#endif
#undef PORTA_CUDA_FOR_
#undef PORTA_CUDA_REDUCE_
#undef PORTA_CUDA_SCAN_
#undef PORTA_CUDA_MDFOR_
#undef PORTA_CUDA_MDREDUCE_
#undef PORTA_CUDA_TEAM_FOR_
#undef PORTA_CUDA_TEAM_REDUCE_
#define PORTA_CUDA_FOR_(NAME, ARGS_T) PORTA_CUDA_NOT_NVCC_(NAME)
#define PORTA_CUDA_REDUCE_(NAME, ARGS_T, R) PORTA_CUDA_NOT_NVCC_(NAME)
#define PORTA_CUDA_SCAN_(NAME, ARGS_T, R) PORTA_CUDA_NOT_NVCC_(NAME)
#define PORTA_CUDA_MDFOR_(NAME, ARGS_T, RANK) PORTA_CUDA_NOT_NVCC_(NAME)
#define PORTA_CUDA_MDREDUCE_(NAME, ARGS_T, RANK, R) PORTA_CUDA_NOT_NVCC_(NAME)
#define PORTA_CUDA_TEAM_FOR_(NAME, ARGS_T) PORTA_CUDA_NOT_NVCC_(NAME)
#define PORTA_CUDA_TEAM_REDUCE_(NAME, ARGS_T, R) PORTA_CUDA_NOT_NVCC_(NAME)
#endif

#endif
