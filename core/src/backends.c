/** @file backends.c
 *  Registration: every back end of PORTA_BACKEND_LIST (porta/config.h, generated from
 *  cmake/PortaBackends.cmake), indexed by porta_backend. Each table is in its back end's folder;
 *  one that is not compiled in keeps its name, memory space and reach there (so names parse and
 *  porta_exec_memory_space / porta_space_accessible answer as in any build), all hooks NULL. */
#include "backend_private.h"

#define PORTA_BACKEND_TABLE_(ID, name, on, A) &porta_##name##_backend_ops_,
const porta_backend_ops *const porta_backend_ops_[PORTA_NUM_BACKENDS] = {
    PORTA_BACKEND_LIST(PORTA_BACKEND_TABLE_, ~)};

const porta_backend_ops *porta_backend_usable_[PORTA_NUM_BACKENDS];

const porta_backend_ops *porta_backend_threads_(void) {
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    if (porta_backend_ops_[b]->default_threads) return porta_backend_ops_[b];
  return NULL;
}
