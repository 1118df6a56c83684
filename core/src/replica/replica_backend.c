/** @file replica/replica_backend.c
 *  The test-only back end `replica` (PORTA_ENABLE_REPLICA): the Serial back end's execution
 *  interface under its own name and id. Its launchers are porta/backend/replica/kernels.h. */
#include "../backend_private.h"

static int replica_available(void) { return 1; }

const porta_backend_ops porta_replica_backend_ops_ = {
    .id = PORTA_BACKEND_REPLICA,
    .name = "replica",
    .memory_space = PORTA_HOST_SPACE,
    .reach = PORTA_HOST_REACH,
    .available = replica_available,
};
