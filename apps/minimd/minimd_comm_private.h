/** @file minimd_comm_private.h
 *  What the files of miniMD's communication share (minimd_comm.h is the interface): the two
 *  implementations of the re-neighbouring and the swaps' plans. */
#ifndef MINIMD_COMM_PRIVATE_H
#define MINIMD_COMM_PRIVATE_H

#include "minimd.h"

PORTA_EXTERN_C_BEGIN

/** The candidates of swap w are the atoms [*nfirst, *nlast): the first pair of a dimension
 *  (k = 0, 1) takes the owned atoms and the earlier dimensions' ghosts, each later pair the
 *  ghosts the pair before it made. Call for every swap in order, `nall` the atoms (owned +
 *  ghosts) held before it. */
static inline void minimd_swap_candidates(const minimd_swap *w, int64_t nall, int64_t *nfirst,
                                          int64_t *nlast) {
  if (w->k == 0) *nlast = 0;
  if (w->k % 2 == 0) {
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
 *  preparation for queued exchanges. */
int minimd_comm_plans(minimd *m, int lists_on_device);
/** Every swap's device list refilled from the host's send list, and the plans updated from
 *  those: the same lists, so nothing changes, but the update's first-time costs (buffers,
 *  links) are paid before the timed loop. Collective. */
int minimd_comm_rehearse_update(minimd *m);

PORTA_EXTERN_C_END

#endif /* MINIMD_COMM_PRIVATE_H */
