/** @file minimd_comm_private.h
 *  What the files of miniMD's communication share (minimd_comm.h is the interface): the two
 *  implementations of the re-neighbouring, the swaps' plans, and the table of the swaps'
 *  transports. */
#ifndef MINIMD_COMM_PRIVATE_H
#define MINIMD_COMM_PRIVATE_H

#include "minimd.h"

PORTA_EXTERN_C_BEGIN

struct porta_exchange;

/** The candidates of swap k of a dimension are the atoms [*nfirst, *nlast): the first pair
 *  (k = 0, 1) takes the owned atoms and the earlier dimensions' ghosts, each later pair the
 *  ghosts the pair before it made. Call at every swap, with *nlast = 0 at a dimension's first
 *  and `nall` the atoms (owned + ghosts) held before the swap. */
static inline void minimd_swap_candidates(int k, int64_t nall, int64_t *nfirst, int64_t *nlast) {
  if (k % 2 == 0) {
    *nfirst = *nlast;
    *nlast = nall;
  }
}

/* ---- the re-neighbouring's two implementations -------------------------------------------- */

/** On the host (minimd_comm_host.c): the atoms brought to the host, wrapped and migrated, sorted
 *  when `sort`, the ghosts made by host messages, the atoms back on the execution space and
 *  the plans built from the host's lists. */
int minimd_comm_rebuild_host(minimd *m, int64_t step, int sort);
/** On the execution space (minimd_comm_device.c), the atoms never visiting the host; the
 *  plans the host's path built are updated. */
int minimd_comm_rebuild_device(minimd *m, int64_t step, int sort);
/** Before the first of those (collective): the message buffers sized for the current swaps,
 *  the kernels' lists reserved, and the plans' update rehearsed, so that the first timed
 *  re-neighbouring sets nothing up (it had cost 4 ms more than the others on 4 H100s: 5 % of
 *  a 100-step LJ -s 100 run). */
int minimd_comm_rebuild_device_prepare(minimd *m);

/** The global atom count still natoms after a migration (a clear error naming the step
 *  otherwise). Collective. */
int minimd_comm_check_count(const minimd_comm *c, const minimd_atoms *a, int64_t step);
/** Make *v hold at least n values in space s, with a quarter more room when it grows (contents
 *  not kept then). */
int minimd_reserve_i64(porta_view_i64 *v, const char *label, int64_t n, porta_memory_space s);

/* ---- the swaps' plans (minimd_comm_plans.c) ------------------------------------------------- */

/** Plans for the swaps just built: positions forward, forces back when `reverse`, one double
 *  forward when `scalar` (EAM's F'). The send lists are the host's, or with
 *  `lists_on_device` the execution space's, which update the plans the host's path built
 *  (never through the host). Existing plans are updated, keeping their buffers and their
 *  transport's preparation. */
int minimd_comm_plans(minimd *m, int lists_on_device);
/** Every swap's device list refilled from the host's send list, and the plans updated from
 *  those: the same lists, so nothing changes, but the update's first-time costs (buffers,
 *  links) are paid before the timed loop. Collective. */
int minimd_comm_rehearse_update(minimd *m);

/* ---- the swaps' transports (minimd_comm_swaps.c) -------------------------------------------- */

/** How the plans of the swaps with other ranks move their values: one table per transport,
 *  chosen once, at the first re-neighbouring (minimd_comm.c). */
typedef struct minimd_swap_transport {
  const char *name;
  /** Make the swaps' plans ready for this transport (after they are built). Collective. */
  int (*prepare)(minimd_comm *c);
  /** Set plans[0..n-1] (one swap, or a pair) moving `field` on `exec`. */
  int (*start)(minimd_comm *c, porta_exec exec, struct porta_exchange *const *plans, int n,
               const porta_view *field);
  /** Their values in place on `exec` (the host waits for them when the transport drives them). */
  int (*finish)(struct porta_exchange *const *plans, int n);
  /** Whether `finish` makes the host wait (minimd_comm_forward_begin leaves such a swap in
   *  flight). */
  int host_waits;
} minimd_swap_transport;

/** Host-driven: MPI (or the exchange library's transport) started and finished by the host. */
extern const minimd_swap_transport minimd_swaps_from_host;
/** Queued on the GPUs through a device communicator, each one kernel with no wait on the host. */
extern const minimd_swap_transport minimd_swaps_queued;

PORTA_EXTERN_C_END

#endif /* MINIMD_COMM_PRIVATE_H */
