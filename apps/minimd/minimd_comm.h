/** @file minimd_comm.h
 *  miniMD's decomposition, migration, ghost swaps and per-step communication
 *  (minimd_comm.c). */
#ifndef MINIMD_COMM_H
#define MINIMD_COMM_H

#include "minimd.h"

PORTA_EXTERN_C_BEGIN

/** The process grid of `nranks` ranks over a box of lengths prd, and this rank's place. */
void minimd_comm_grid(minimd_comm *c, const double prd[3], int nranks, int rank);
/** The swaps for neighbour cut-off `cutneigh` (ranks reached per side, slabs, image shifts). */
int minimd_comm_setup(minimd_comm *c, double cutneigh);
void minimd_comm_free(minimd_comm *c);

/** Grow the host arrays to hold n atoms. */
int minimd_host_reserve(minimd_atoms *a, int64_t n);
/** Wrap the owned atoms (host arrays) into the box and send those that left this sub-domain
 *  to their new owners; checks that no atom was lost. */
int minimd_comm_exchange(minimd_comm *c, minimd_atoms *a, int64_t step);
/** The check minimd_comm_exchange makes at every re-neighbouring, on the host copy of the
 *  positions (a->hx) and without moving them: for a run that ends before its next
 *  re-neighbouring. PORTA_ERROR_INVALID_ARGUMENT naming the step and the first atom that blew
 *  up or left the box by more than a box length. */
int minimd_comm_check_positions(const minimd_comm *c, const minimd_atoms *a, int64_t step);
/** The global atom count still natoms after a migration (a clear error naming the step
 *  otherwise). */
int minimd_comm_check_count(const minimd_comm *c, const minimd_atoms *a, int64_t step);
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
/** Make *v hold at least n values in space s, with a quarter more room when it grows (contents
 *  not kept then). */
int minimd_reserve_i64(porta_view_i64 *v, const char *label, int64_t n, porta_memory_space s);
/** Build the swaps' send lists and append the ghosts to the host arrays. */
int minimd_comm_borders(minimd_comm *c, minimd_atoms *a);
/** Plans for the swaps just built: positions forward, forces back (`reverse`), one double
 *  forward (`scalar`, EAM's F'). The send lists are the host arrays, or with `lists_on_device`
 *  the execution space's (minimd_reneighbor.c), which update the plans the host path built
 *  (never through the host). Existing plans are updated, keeping their buffers. */
int minimd_comm_plans(minimd_comm *c, porta_exec exec, int reverse, int scalar,
                      int lists_on_device);

/** Re-neighbouring on the execution space (minimd_reneighbor.c): wrap, migration, the check
 *  of the atom count, when `sort` the sort by bin, borders and plans, the atoms never visiting
 *  the host. */
int minimd_reneighbor_device(minimd *m, int64_t step, int sort);
/** Before the first of those (collective): the message buffers sized for the current swaps and
 *  mapped by their senders, the kernels' lists reserved, and the plans' update rehearsed
 *  (minimd_comm_rehearse_update), so that the first timed re-neighbouring sets nothing up (it
 *  had cost 4 ms more than the others on 4 H100s: 5 % of a 100-step LJ -s 100 run). */
int minimd_reneighbor_prepare(minimd *m);
/** Every swap's device list refilled from the host's send list, and the plans updated from
 *  those: the same lists, so nothing changes, but the update's first-time costs (buffers,
 *  links) are paid before the timed loop. Collective. */
int minimd_comm_rehearse_update(minimd_comm *c, porta_exec exec, int reverse, int scalar);

/** Collective, after the first plans (minimd_comm_plans): the swaps with other ranks queued
 *  on the GPUs from now on, where a device communicator can serve every rank (else they stay
 *  driven from the host, and `why`, of `size` bytes, says why). Their plans stay prepared
 *  through later updates. */
int minimd_comm_queue_swaps(minimd_comm *c, porta_exec exec, char *why, size_t size);

/** Ghost positions from their owners (every step that is not a re-neighbouring):
 *  minimd_comm_forward_begin, then minimd_comm_forward_end. */
int minimd_comm_forward(minimd_comm *c, porta_exec exec, porta_view_vec3 x);
/** The swaps up to the first with another rank, which is started (its pair too): its
 *  positions are packed and sent, its messages in flight. Work queued after it on `exec` that
 *  reads no ghost past the leading ones (minimd_comm_leading_ghosts: the forces of the atoms
 *  without neighbours among other ranks' ghosts) overlaps the messages. */
int minimd_comm_forward_begin(minimd_comm *c, porta_exec exec, porta_view_vec3 x);
/** The started swap finished (its ghosts unpacked and shifted, queued on `exec`), then the
 *  swaps after it. Without a started swap, nothing. */
int minimd_comm_forward_end(minimd_comm *c, porta_exec exec, porta_view_vec3 x);
/** The index of the first swap with another rank (nswap when none). */
int minimd_comm_first_remote(const minimd_comm *c);
/** The ghosts that the swaps before it make: ghosts nlocal to nlocal + this - 1, whose
 *  positions come from this rank's own atoms. */
int64_t minimd_comm_leading_ghosts(const minimd_comm *c);
/** Forward swaps first to last - 1 only (queued on the GPUs where they are), to put the swaps
 *  with this rank itself and those with others on different instances; no pair is split. */
int minimd_comm_forward_range(minimd_comm *c, porta_exec exec, porta_view_vec3 x, int first,
                              int last);
/** Ghost forces added into their owners, in reverse swap order. */
int minimd_comm_reverse(minimd_comm *c, porta_exec exec, porta_view_vec3 f);
/** One double per atom to the ghosts. */
int minimd_comm_forward_scalar(minimd_comm *c, porta_exec exec, porta_view_f64 v);

PORTA_EXTERN_C_END

#endif /* MINIMD_COMM_H */
