/** @file minimd_comm_device.c
 *  Re-neighbouring on the execution space: the host path's migration and borders
 *  (minimd_comm_host.c), with the atoms staying where the kernels run. Kernels select, pack and
 *  unpack the atoms (minimd_comm_kernels.c) in the buffers of a porta_channel, which moves the
 *  messages (between the GPUs of one node by CUDA IPC), and the swaps' plans are updated in
 *  place, keeping their buffers.
 *
 *  - migration, per dimension with more than one rank: the atoms outside [lo, hi) are listed
 *    in index order and packed; the owned atoms at the tail fill the holes they leave; the
 *    message goes to both neighbours, which append the atoms inside their slab;
 *  - borders: per swap the candidates in the slab are listed (the send list) and either copied
 *    as ghosts (a swap with this rank itself) or packed, sent, and appended by the receiver
 *    with the image shift;
 *  - the atom count is checked after the migration, as on the host path;
 *  - at the steps --sort says, the owned atoms are sorted by bin (minimd_sort_device), as the
 *    host path sorts them: without it the atoms that fill the holes, and those appended, stay
 *    far in memory from their neighbours in space, and the force kernel slows down with every
 *    migration (LJ -s 100 per GPU, 2 GPUs: 3.7 % in 100 steps, docs/minimd.md).
 *
 *  Atom order differs from the host path's (holes are filled from the tail before the sort),
 *  which changes sums only in their rounding; --reproducible runs, whose lists are in
 *  global-id order, are bitwise the same on either path. */
#include <math.h>
#include <string.h>

#include "app_common.h"
#include "porta/exchange_channel.h"
#include "minimd_comm.h"
#include "minimd_comm_private.h"
#include "minimd_kernels.h"
#include "minimd_setup.h"

/** The channel of the re-neighbouring messages (made at the first). */
static int channel(minimd *m, porta_channel **ch) {
  if (!m->comm.chan)
    PORTA_CHECK(
        porta_channel_create(&m->comm.chan, "minimd_reneighbor", MPI_COMM_WORLD, m->exec, 40));
  *ch = m->comm.chan;
  return PORTA_SUCCESS;
}

/** The owned atoms that left [lo, hi) along d go to both neighbours, which keep theirs. */
static int migrate(minimd *m, int d) {
  minimd_comm *c = &m->comm;
  minimd_atoms *at = &m->atoms;
  const porta_memory_space space = porta_exec_memory_space(m->exec);
  const int64_t n = at->nlocal;
  porta_channel *ch;
  PORTA_CHECK(channel(m, &ch));
  PORTA_CHECK(minimd_reserve_i64(&c->leave, "minimd_leave", n, space));
  PORTA_CHECK(minimd_reserve_i64(&c->movers, "minimd_movers", n, space));
  int64_t nsend = 0, nstay = 0;
  PORTA_CHECK(minimd_select(m->exec, at, 0, n, d, MINIMD_SELECT_OUTSIDE, c->lo[d], c->hi[d],
                            c->leave, &nsend));
  porta_view_f64 sbuf, rbuf;
  PORTA_CHECK(porta_channel_send_buffer(ch, nsend * MINIMD_MIGRATE_DOUBLES, &sbuf));
  if (nsend > 0) {
    PORTA_CHECK(minimd_pack(m->exec, at, c->leave, nsend, 1, sbuf));
    /* the atoms that stay among the last nsend fill the holes below n - nsend: as many as
       there are leavers there, which come first in the ascending list */
    PORTA_CHECK(minimd_select(m->exec, at, n - nsend, nsend, d, MINIMD_SELECT_INSIDE, c->lo[d],
                              c->hi[d], c->movers, &nstay));
    if (nstay > 0) PORTA_CHECK(minimd_move(m->exec, at, c->movers, c->leave, nstay));
  }
  at->nlocal = n - nsend;
  const int ntimes = c->procgrid[d] > 2 ? 2 : 1; /* one message when both are the same rank */
  for (int side = 0; side < ntimes; ++side) {
    int64_t nr = 0, kept = 0;
    PORTA_CHECK(porta_channel_sendrecv(ch, nsend * MINIMD_MIGRATE_DOUBLES, c->procneigh[d][side],
                                       c->procneigh[d][1 - side], &rbuf, &nr));
    const int64_t natoms = nr / MINIMD_MIGRATE_DOUBLES;
    PORTA_CHECK(minimd_atoms_reserve(m, at->nlocal + natoms));
    PORTA_CHECK(minimd_unpack(m->exec, at, rbuf, natoms, 1, d, c->lo[d], c->hi[d], at->nlocal, NULL,
                              &kept));
    at->nlocal += kept;
  }
  return PORTA_SUCCESS;
}

/** One swap: its send list from the candidates [nfirst, nlast), its ghosts appended. */
static int border(minimd *m, minimd_swap *w, int64_t nfirst, int64_t nlast) {
  minimd_atoms *at = &m->atoms;
  const porta_memory_space space = porta_exec_memory_space(m->exec);
  int64_t count = 0;
  PORTA_CHECK(minimd_reserve_i64(&w->list_d, "minimd_sendlist", nlast - nfirst, space));
  PORTA_CHECK(minimd_select(m->exec, at, nfirst, nlast - nfirst, w->dim, MINIMD_SELECT_SLAB,
                            w->slablo, w->slabhi, w->list_d, &count));
  w->nsend = count;
  w->firstrecv = at->nlocal + at->nghost;
  if (w->self) {
    PORTA_CHECK(minimd_atoms_reserve(m, w->firstrecv + count));
    PORTA_CHECK(minimd_ghosts(m->exec, at, w->list_d, count, w->firstrecv, w->shift));
    w->nrecv = count;
    return PORTA_SUCCESS;
  }
  porta_channel *ch;
  porta_view_f64 sbuf, rbuf;
  PORTA_CHECK(channel(m, &ch));
  PORTA_CHECK(porta_channel_send_buffer(ch, count * MINIMD_GHOST_DOUBLES, &sbuf));
  if (count > 0) PORTA_CHECK(minimd_pack(m->exec, at, w->list_d, count, 0, sbuf));
  int64_t nr = 0, kept = 0;
  PORTA_CHECK(porta_channel_sendrecv(ch, count * MINIMD_GHOST_DOUBLES, w->sendproc, w->recvproc,
                                     &rbuf, &nr));
  w->nrecv = nr / MINIMD_GHOST_DOUBLES;
  PORTA_CHECK(minimd_atoms_reserve(m, w->firstrecv + w->nrecv));
  return minimd_unpack(m->exec, at, rbuf, w->nrecv, 0, -1, 0.0, 0.0, w->firstrecv, w->shift, &kept);
}

int minimd_comm_rebuild_device_prepare(minimd *m) {
  minimd_comm *c = &m->comm;
  const minimd_atoms *at = &m->atoms;
  const porta_memory_space space = porta_exec_memory_space(m->exec);
  porta_channel *ch;
  PORTA_CHECK(channel(m, &ch));
  /* the lists and buffers the kernels fill, at today's sizes (each reserve adds room): made
     in the first timed re-neighbouring they cost a few ms of allocations on 4 GPUs */
  PORTA_CHECK(minimd_reserve_i64(&c->leave, "minimd_leave", at->nlocal, space));
  PORTA_CHECK(minimd_reserve_i64(&c->movers, "minimd_movers", at->nlocal, space));
  if (m->prm.sort_every != 0) PORTA_CHECK(minimd_sort_reserve(m, at->nlocal)); /* (< 0: as neigh) */
  int64_t nghost = 0, nfirst = 0, nlast = 0, most_recv = 1;
  for (int s = 0; s < c->nswap; ++s) {
    minimd_swap *w = &c->swaps[s];
    minimd_swap_candidates(w, at->nlocal + nghost, &nfirst, &nlast);
    /* (a self swap's list, in use every step, is refilled by the rehearsal below) */
    PORTA_CHECK(minimd_reserve_i64(&w->list_d, "minimd_sendlist", nlast - nfirst, space));
    nghost += w->nrecv;
    if (w->self) continue;
    if (w->nrecv > most_recv) most_recv = w->nrecv;
    /* a quarter more ghosts than now: the slabs' populations drift between re-neighbourings */
    const int64_t n = (w->nsend + w->nsend / 4) * MINIMD_GHOST_DOUBLES;
    PORTA_CHECK(porta_channel_reserve(ch, n, w->sendproc, w->recvproc));
  }
  PORTA_CHECK(minimd_reserve_i64(&c->ghost_index, "minimd_ghost_index", most_recv, space));
  return minimd_comm_rehearse_update(m);
}

int minimd_comm_rebuild_device(minimd *m, int64_t step, int sort) {
  minimd_comm *c = &m->comm;
  minimd_atoms *at = &m->atoms;
  PORTA_CHECK(minimd_wrap(m->exec, at, c->prd));
  for (int d = 0; d < 3; ++d)
    if (c->procgrid[d] > 1) PORTA_CHECK(migrate(m, d));
  if (c->nranks > 1) PORTA_CHECK(minimd_comm_check_count(c, at, step));
  if (sort) PORTA_CHECK(minimd_sort_device(m));
  /* the ghosts, swap after swap as the host's path makes them */
  at->nghost = 0;
  int64_t nfirst = 0, nlast = 0;
  for (int s = 0; s < c->nswap; ++s) {
    minimd_swap *w = &c->swaps[s];
    minimd_swap_candidates(w, at->nlocal + at->nghost, &nfirst, &nlast);
    PORTA_CHECK(border(m, w, nfirst, nlast));
    at->nghost += w->nrecv;
  }
  if (at->nghost > c->max_ghosts) c->max_ghosts = at->nghost;
  return minimd_comm_plans(m, 1);
}
