/** @file replica/replica_backend.c
 *  The test-only back end `replica` (PORTA_ENABLE_REPLICA): the Serial back end's execution
 *  interface under its own name and id, and a memory space of its own, ReplicaSpace, which
 *  proves that a back end brings its spaces as data: host memory underneath, but registered as
 *  memory the host cannot read, like a device's, so that the core reaches it only through the
 *  space's hooks (deep copies, fills, mirrors staged through the host) and only replica
 *  kernels may touch it. Its kernels still use Host memory by default, so every unit test runs
 *  on it unchanged. Its launchers are porta/backend/replica/kernels.h. */
#include <stdlib.h>
#include <string.h>

#include "../runtime_private.h"

static int replica_available(void) { return 1; }

static int replica_alloc(void **ptr, size_t bytes) {
  const size_t a = PORTA_ALLOC_ALIGN_BYTES;
  const size_t rounded = (bytes + a - 1) & ~(a - 1);
  *ptr = aligned_alloc(a, rounded ? rounded : a);
  return *ptr ? PORTA_SUCCESS : PORTA_ERROR_OUT_OF_MEMORY;
}

static void replica_free(void *ptr) { free(ptr); }

static int replica_zero(void *ptr, size_t bytes) {
  memset(ptr, 0, bytes);
  return PORTA_SUCCESS;
}

/** Between ReplicaSpace and any space the host reads (porta_space_copy_ calls the hooks of
 *  the space that is not the host's). */
static int replica_copy(void *dst, porta_memory_space dst_space, const void *src,
                        porta_memory_space src_space, size_t bytes) {
  (void)dst_space;
  (void)src_space;
  memcpy(dst, src, bytes);
  return PORTA_SUCCESS;
}

static int replica_initialize(const porta_backend_init_args *args) {
  (void)args;
  const porta_space_ops ops = {replica_alloc, replica_free, replica_zero, replica_copy};
  porta_space_ops_[PORTA_REPLICA_SPACE] = ops;
  return PORTA_SUCCESS;
}

static void replica_finalize(void) {
  memset(&porta_space_ops_[PORTA_REPLICA_SPACE], 0, sizeof porta_space_ops_[PORTA_REPLICA_SPACE]);
}

static const porta_space_info replica_spaces[] = {
    {PORTA_REPLICA_SPACE, "Replica", 0, PORTA_LAYOUT_RIGHT}};

const porta_backend_ops porta_replica_backend_ops_ = {
    .id = PORTA_BACKEND_REPLICA,
    .name = "replica",
    .memory_space = PORTA_HOST_SPACE,
    .spaces = replica_spaces,
    .num_spaces = 1,
    .available = replica_available,
    .initialize = replica_initialize,
    .finalize = replica_finalize,
};
