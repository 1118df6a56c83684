/** @file minimd_reneighbor.c
 *  Re-neighbouring on the execution space: the host path's migration and borders
 *  (minimd_comm.c), with the atoms staying where the kernels run. Kernels select, pack and
 *  unpack the atoms (minimd_comm_kernels.c); only the messages pass through memory MPI reaches
 *  (on a GPU pinned host memory that the kernels read and write, as in the exchange plans),
 *  and the swaps' plans are updated in place, keeping their buffers.
 *
 *  - migration, per dimension with more than one rank: the atoms outside [lo, hi) are listed
 *    in index order and packed; the owned atoms at the tail fill the holes they leave; the
 *    message goes to both neighbours, which append the atoms inside their slab;
 *  - borders: per swap the candidates in the slab are listed (the send list) and either copied
 *    as ghosts (a swap with this rank itself) or packed, sent, and appended by the receiver
 *    with the image shift;
 *  - the atom count is checked after the migration, as on the host path.
 *
 *  Atom order differs from the host path's (holes are filled from the tail, nothing is
 *  sorted), which changes sums only in their rounding; --reproducible runs, whose lists are in
 *  global-id order, are bitwise the same on either path. */
#include <math.h>
#include <string.h>

#include "app_common.h"
#include "app_exchange.h"
#include "minimd_comm.h"
#include "minimd_kernels.h"
#include "minimd_setup.h"

/** Make *v hold at least n values (contents not kept). */
static int reserve_i64(porta_view_i64 *v, const char *label, int64_t n, porta_memory_space s) {
  if (v->data && porta_extent(*v, 0) >= n) return PORTA_SUCCESS;
  porta_view_i64_release(v);
  const int64_t len = n + n / 4 + 64;
  porta_view_options opt = {s, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNINITIALIZED, NULL};
  return porta_view_i64_create(v, label, 1, &len, &opt);
}

/** A message buffer of at least n doubles that the kernels and MPI both reach. */
static int reserve_buffer(porta_view_f64 *v, const char *label, int64_t n, porta_exec exec) {
  if (v->data && porta_extent(*v, 0) >= n) return PORTA_SUCCESS;
  porta_memory_space space;
  PORTA_CHECK(app_exchange_buffer_space(exec, &space));
  porta_view_f64_release(v);
  const int64_t len = n + n / 4 + 1024;
  porta_view_options opt = {space, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNINITIALIZED, NULL};
  return porta_view_f64_create(v, label, 1, &len, &opt);
}

/** Send `ns` doubles of c->sbuf to `to` and receive from `from` into c->rbuf (grown to fit);
 *  *nr doubles arrived. The sender's buffer must be packed (fenced) already. */
static int sendrecv(minimd_comm *c, porta_exec exec, int64_t ns, int to, int from, int tag,
                    int64_t *nr) {
  MPI_Status st;
  APP_MPI_CHECK(MPI_Sendrecv(&ns, 1, MPI_INT64_T, to, tag, nr, 1, MPI_INT64_T, from, tag,
                             MPI_COMM_WORLD, &st));
  if (ns > INT32_MAX || *nr > INT32_MAX)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd_comm", "message",
                       "a message of %lld doubles is too long for MPI",
                       (long long)(ns > *nr ? ns : *nr));
  PORTA_CHECK(reserve_buffer(&c->rbuf, "minimd_recv", *nr, exec));
  APP_MPI_CHECK(MPI_Sendrecv(c->sbuf.data, (int)ns, MPI_DOUBLE, to, tag + 1, c->rbuf.data, (int)*nr,
                             MPI_DOUBLE, from, tag + 1, MPI_COMM_WORLD, &st));
  return PORTA_SUCCESS;
}

/** The owned atoms that left [lo, hi) along d go to both neighbours, which keep theirs. */
static int migrate(minimd *m, int d) {
  minimd_comm *c = &m->comm;
  minimd_atoms *at = &m->atoms;
  const porta_memory_space space = porta_exec_memory_space(m->exec);
  const int64_t n = at->nlocal;
  PORTA_CHECK(reserve_i64(&c->leave, "minimd_leave", n, space));
  PORTA_CHECK(reserve_i64(&c->movers, "minimd_movers", n, space));
  int64_t nsend = 0, nstay = 0;
  PORTA_CHECK(minimd_select(m->exec, at, 0, n, d, MINIMD_SELECT_OUTSIDE, c->lo[d], c->hi[d],
                            c->leave, &nsend));
  PORTA_CHECK(reserve_buffer(&c->sbuf, "minimd_send", nsend * MINIMD_MIGRATE_DOUBLES, m->exec));
  if (nsend > 0) {
    PORTA_CHECK(minimd_pack(m->exec, at, c->leave, nsend, 1, c->sbuf));
    /* the atoms that stay among the last nsend fill the holes below n - nsend: as many as
       there are leavers there, which come first in the ascending list */
    PORTA_CHECK(minimd_select(m->exec, at, n - nsend, nsend, d, MINIMD_SELECT_INSIDE, c->lo[d],
                              c->hi[d], c->movers, &nstay));
    if (nstay > 0) PORTA_CHECK(minimd_move(m->exec, at, c->movers, c->leave, nstay));
  }
  at->nlocal = n - nsend;
  PORTA_CHECK(porta_exec_fence(m->exec, "minimd_migrate_pack"));
  const int ntimes = c->procgrid[d] > 2 ? 2 : 1; /* one message when both are the same rank */
  for (int side = 0; side < ntimes; ++side) {
    int64_t nr = 0, kept = 0;
    PORTA_CHECK(sendrecv(c, m->exec, nsend * MINIMD_MIGRATE_DOUBLES, c->procneigh[d][side],
                         c->procneigh[d][1 - side], 40 + 2 * side, &nr));
    const int64_t natoms = nr / MINIMD_MIGRATE_DOUBLES;
    PORTA_CHECK(minimd_atoms_reserve(m, at->nlocal + natoms));
    PORTA_CHECK(minimd_unpack(m->exec, at, c->rbuf, natoms, 1, d, c->lo[d], c->hi[d], at->nlocal,
                              NULL, &kept));
    at->nlocal += kept; /* (the scan blocks: the next message may land in the buffer) */
  }
  return PORTA_SUCCESS;
}

/** One swap: its send list from the candidates [nfirst, nlast), its ghosts appended. */
static int border(minimd *m, minimd_swap *w, int64_t nfirst, int64_t nlast) {
  minimd_comm *c = &m->comm;
  minimd_atoms *at = &m->atoms;
  const porta_memory_space space = porta_exec_memory_space(m->exec);
  int64_t count = 0;
  PORTA_CHECK(reserve_i64(&w->list_d, "minimd_sendlist", nlast - nfirst, space));
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
  PORTA_CHECK(reserve_buffer(&c->sbuf, "minimd_send", count * MINIMD_GHOST_DOUBLES, m->exec));
  if (count > 0) PORTA_CHECK(minimd_pack(m->exec, at, w->list_d, count, 0, c->sbuf));
  PORTA_CHECK(porta_exec_fence(m->exec, "minimd_border_pack"));
  int64_t nr = 0, kept = 0;
  PORTA_CHECK(
      sendrecv(c, m->exec, count * MINIMD_GHOST_DOUBLES, w->sendproc, w->recvproc, 60, &nr));
  w->nrecv = nr / MINIMD_GHOST_DOUBLES;
  PORTA_CHECK(minimd_atoms_reserve(m, w->firstrecv + w->nrecv));
  /* (the scan blocks, so the buffer is free for the next swap's message) */
  return minimd_unpack(m->exec, at, c->rbuf, w->nrecv, 0, -1, 0.0, 0.0, w->firstrecv, w->shift,
                       &kept);
}

int minimd_reneighbor_device(minimd *m, int64_t step) {
  minimd_comm *c = &m->comm;
  minimd_atoms *at = &m->atoms;
  PORTA_CHECK(minimd_wrap(m->exec, at, c->prd));
  for (int d = 0; d < 3; ++d)
    if (c->procgrid[d] > 1) PORTA_CHECK(migrate(m, d));
  if (c->nranks > 1) PORTA_CHECK(minimd_comm_check_count(c, at, step));
  /* the ghosts, swap after swap as minimd_comm_borders makes them */
  at->nghost = 0;
  int64_t nfirst = 0, nlast = 0;
  int s = 0;
  for (int d = 0; d < 3; ++d) {
    nlast = 0;
    for (int k = 0; k < 2 * c->need[d]; ++k, ++s) {
      minimd_swap *w = &c->swaps[s];
      minimd_swap_candidates(k, at->nlocal + at->nghost, &nfirst, &nlast);
      PORTA_CHECK(border(m, w, nfirst, nlast));
      at->nghost += w->nrecv;
    }
  }
  if (at->nghost > c->max_ghosts) c->max_ghosts = at->nghost;
  return minimd_comm_plans(c, m->exec, m->neigh.half && m->neigh.newton,
                           m->prm.force == MINIMD_FORCE_EAM, 1);
}
