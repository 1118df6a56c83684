/** @file backends.c
 *  Registration: every back end of PORTA_BACKEND_LIST (porta/config.h, generated from
 *  cmake/PortaBackends.cmake), indexed by porta_backend, and the memory spaces they bring.
 *  Each table is in its back end's folder; one that is not compiled in keeps its name and
 *  memory spaces there (so names parse and porta_exec_memory_space / porta_space_accessible
 *  answer as in any build), all hooks NULL. */
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

/** Host memory: the core's own (memory_space.c allocates it). */
static const porta_space_info host_space = {PORTA_HOST_SPACE, "Host", 1, PORTA_LAYOUT_RIGHT};

const porta_backend_ops *porta_space_backend_(porta_memory_space space) {
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    for (int k = 0; k < porta_backend_ops_[b]->num_spaces; ++k)
      if (porta_backend_ops_[b]->spaces[k].id == space) return porta_backend_ops_[b];
  return NULL;
}

const porta_space_info *porta_space_info_(porta_memory_space space) {
  if (space == PORTA_HOST_SPACE) return &host_space;
  const porta_backend_ops *ops = porta_space_backend_(space);
  if (ops)
    for (int k = 0; k < ops->num_spaces; ++k)
      if (ops->spaces[k].id == space) return &ops->spaces[k];
  return NULL;
}
