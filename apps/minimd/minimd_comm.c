/** @file minimd_comm.c
 *  miniMD's re-neighbouring, and the choices its first call makes once: where the later ones
 *  run (the host or the execution space) and how the swaps with other ranks travel (driven
 *  from the host or queued on the GPUs). */
#include <stdio.h>

#include "app_env.h"
#include "app_mpi.h"
#include "porta/exchange.h"
#include "minimd_comm.h"
#include "minimd_comm_private.h"

/** The transport of the swaps with other ranks, once, after the first plans (collective):
 *  queued where the run is on several GPUs, MINIMD_DEVICE_SWAPS is not 0 and a device
 *  communicator serves every rank (with an instance beside the run's for the overlap), else
 *  driven from the host; c->swaps_note says which and why, where it was a choice. */
static int choose_transport(minimd *m) {
  minimd_comm *c = &m->comm;
  c->swaps_note[0] = '\0';
  if (c->nranks < 2 || !porta_exec_query(m->exec).on_device) return PORTA_SUCCESS;
  if (!app_env_flag("MINIMD_DEVICE_SWAPS", 1)) return PORTA_SUCCESS;
  char why[256];
  PORTA_CHECK(app_device_comm_try(MPI_COMM_WORLD, m->exec, &c->device, why, sizeof why));
  if (!c->device) {
    snprintf(c->swaps_note, sizeof c->swaps_note, "from the host (%s)", why);
    return PORTA_SUCCESS;
  }
  for (int s = 0; s < c->nswap; ++s) { /* the library queues prepared plans from now on */
    const minimd_swap *w = &c->swaps[s];
    porta_exchange *plans[3] = {w->forward, w->reverse, w->forward_scalar};
    for (int k = 0; k < 3; ++k)
      if (!w->self && plans[k]) PORTA_CHECK(porta_exchange_prepare_queue(plans[k], c->device));
  }
  if (porta_exec_query(m->exec).async_instances) {
    PORTA_CHECK(
        porta_exec_create_instance_with_priority(m->exec.backend, PORTA_PRIORITY_HIGH, &c->side));
    c->has_side = 1;
  }
  snprintf(c->swaps_note, sizeof c->swaps_note, "queued on the GPUs (%s)",
           porta_device_comm_transport(c->device));
  return PORTA_SUCCESS;
}

int minimd_comm_reneighbor(minimd *m, int64_t step, int sort) {
  minimd_comm *c = &m->comm;
  if (c->rebuild) return c->rebuild(m, step, sort);
  /* the first: the host's path builds the plans the others use or update */
  PORTA_CHECK(minimd_comm_rebuild_host(m, step, sort));
  PORTA_CHECK(choose_transport(m));
  if (!m->device_reneighbor) {
    c->rebuild = minimd_comm_rebuild_host;
    return PORTA_SUCCESS;
  }
  PORTA_CHECK(minimd_comm_rebuild_device_prepare(m));
  c->rebuild = minimd_comm_rebuild_device;
  return PORTA_SUCCESS;
}
