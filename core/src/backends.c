/** @file backends.c
 *  Registration: the back ends compiled into this build, indexed by porta_backend. The only
 *  place outside the back ends' own folders that knows which are compiled in. A back end that
 *  is not compiled in keeps a table with its name, memory space and reach (so names parse and
 *  porta_exec_memory_space / porta_space_accessible answer as in any build), all hooks NULL. */
#include "backend_private.h"

#if PORTA_ENABLE_OPENMP
#define OPENMP_OPS (&porta_openmp_backend_ops_)
#else
static const porta_backend_ops openmp_absent = {.id = PORTA_BACKEND_OPENMP,
                                                .name = "openmp",
                                                .memory_space = PORTA_HOST_SPACE,
                                                .reach = PORTA_HOST_REACH};
#define OPENMP_OPS (&openmp_absent)
#endif

#if PORTA_ENABLE_CUDA
#define CUDA_OPS (&porta_cuda_backend_ops_)
#else
static const porta_backend_ops cuda_absent = {.id = PORTA_BACKEND_CUDA,
                                              .name = "cuda",
                                              .memory_space = PORTA_CUDA_SPACE,
                                              .reach = PORTA_CUDA_REACH};
#define CUDA_OPS (&cuda_absent)
#endif

_Static_assert(PORTA_NUM_BACKENDS == 3, "a new back end needs its table listed here");

const porta_backend_ops *const porta_backend_ops_[PORTA_NUM_BACKENDS] = {&porta_serial_backend_ops_,
                                                                         OPENMP_OPS, CUDA_OPS};

const porta_backend_ops *porta_backend_usable_[PORTA_NUM_BACKENDS];

const porta_backend_ops *porta_backend_threads_(void) {
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    if (porta_backend_ops_[b]->default_threads) return porta_backend_ops_[b];
  return NULL;
}
