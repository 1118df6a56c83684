/** @file minimd_comm.h
 *  miniMD's communication, one interface with the verbs of ExaMiniMD's Comm: the
 *  decomposition (minimd_comm_grid.c), the re-neighbouring that migrates the atoms and makes
 *  the ghosts (`minimd_comm_reneighbor`: minimd_comm_host.c or minimd_comm_device.c, chosen at
 *  the first), the ghosts' positions every step (`forward`), their forces back (`reverse`),
 *  and EAM's F' (`forward_scalar`), whose swaps travel by one transport chosen once
 *  (minimd_comm_swaps.c). */
#ifndef MINIMD_COMM_H
#define MINIMD_COMM_H

#include "minimd.h"

PORTA_EXTERN_C_BEGIN

/** The process grid of `nranks` ranks over a box of lengths prd, and this rank's place. */
void minimd_comm_grid(minimd_comm *c, const double prd[3], int nranks, int rank);
/** The swaps for neighbour cut-off `cutneigh` (ranks reached per side, slabs, image shifts). */
int minimd_comm_setup(minimd_comm *c, double cutneigh);
void minimd_comm_free(minimd_comm *c);

/** The re-neighbouring of step `step` (collective): the owned atoms wrapped into the box and
 *  moved to their owners, the count checked, when `sort` sorted by bin, the ghosts made and
 *  the swaps' plans built. The first call (step 0) takes the host's path, then chooses the
 *  implementation of the later ones and the swaps' transport, and prepares both. */
int minimd_comm_reneighbor(minimd *m, int64_t step, int sort);

/** Ghost positions from their owners, every swap on `exec`. */
int minimd_comm_forward(minimd_comm *c, porta_exec exec, porta_view_vec3 x);
/** The ghost positions set going: the swaps with this rank itself up to the first with
 *  another (c->first_remote) on `exec`, then the others, as far as they go without the host
 *  waiting (queued: all; driven from the host: the first is started and left in flight).
 *  Work queued next on `exec` that reads no ghost past the leading ones
 *  (c->leading_ghosts) overlaps them. */
int minimd_comm_forward_begin(minimd_comm *c, porta_exec exec, porta_view_vec3 x);
/** The ghost positions in place on `exec`: the swap left in flight finished and the swaps
 *  after it run. */
int minimd_comm_forward_end(minimd_comm *c, porta_exec exec, porta_view_vec3 x);
/** Ghost forces added into their owners, in reverse swap order. */
int minimd_comm_reverse(minimd_comm *c, porta_exec exec, porta_view_vec3 f);
/** One double per atom to the ghosts. */
int minimd_comm_forward_scalar(minimd_comm *c, porta_exec exec, porta_view_f64 v);

/** The check a re-neighbouring makes, on the host copy of the positions (a->hx) and without
 *  moving them: for a run that ends before its next re-neighbouring.
 *  PORTA_ERROR_INVALID_ARGUMENT naming the step and the first atom that blew up or left the
 *  box by more than a box length. */
int minimd_comm_check_positions(const minimd_comm *c, const minimd_atoms *a, int64_t step);

PORTA_EXTERN_C_END

#endif /* MINIMD_COMM_H */
