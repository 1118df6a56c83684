/** @file minimd_reneighbor.c
 *  Re-neighbouring on the execution space: the host path's migration and borders
 *  (minimd_comm.c), with the atoms staying where the kernels run. Kernels select, pack and
 *  unpack the atoms (minimd_comm_kernels.c) in records on the execution space, and exchange
 *  plans move the records (GPU to GPU where they can, app_exchange.h), so the atoms never visit
 *  the host. The swaps' plans, and those of the messages, are updated in place, keeping their
 *  buffers.
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
#include <stdlib.h>
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

/** Room for n records in *msg (a view of records of `rec` doubles on the execution space),
 *  keeping what it holds. */
static int reserve_records(porta_view *msg, int rec, int64_t n, porta_exec exec) {
  if (msg->data && porta_extent(*msg, 0) >= n) return PORTA_SUCCESS;
  const int64_t len = n + n / 4 + 1024;
  if (msg->data) return porta_view_resize(msg, 1, &len);
  porta_view_options opt = {porta_exec_memory_space(exec), PORTA_LAYOUT_DEFAULT,
                            PORTA_VIEW_UNINITIALIZED, NULL};
  return porta_view_create(msg, rec == MINIMD_MIGRATE_DOUBLES ? "minimd_migrate" : "minimd_ghosts",
                           PORTA_TYPE_USER, (size_t)rec * sizeof(double), 1, &len, &opt);
}

/** Records [first, first + n) of msg as doubles (what the pack and unpack kernels take). */
static porta_view_f64 records(const porta_view *msg, int rec, int64_t first, int64_t n) {
  porta_view_f64 v;
  const int64_t len = (n > 0 ? n : 1) * rec;
  porta_view_options opt = {(porta_memory_space)msg->m.space, PORTA_LAYOUT_DEFAULT,
                            PORTA_VIEW_UNMANAGED, NULL};
  if (porta_view_f64_wrap(&v, (double *)msg->data + first * rec, "minimd_records", 1, &len, &opt) !=
      PORTA_SUCCESS)
    memset(&v, 0, sizeof v);
  return v;
}

/** The `ns` records at the start of *msg go to rank `to`; the records from rank `from` land
 *  after them (*nr of them). The plan in *plan (made at the first message, updated after) moves
 *  them as any halo, GPU to GPU where it can. */
static int message(minimd *m, app_exchange **plan, porta_view *msg, int rec, int64_t ns, int to,
                   int from, int tag, int64_t *nr) {
  MPI_Status st;
  APP_MPI_CHECK(MPI_Sendrecv(&ns, 1, MPI_INT64_T, to, tag, nr, 1, MPI_INT64_T, from, tag,
                             MPI_COMM_WORLD, &st));
  PORTA_CHECK(reserve_records(msg, rec, ns + *nr, m->exec));
  int64_t *idx = (int64_t *)malloc((size_t)(ns + *nr + 1) * sizeof(int64_t));
  if (!idx) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm", "message", "no memory");
  for (int64_t i = 0; i < ns + *nr; ++i) idx[i] = i;
  int ranks[2] = {to, from};
  int64_t scount[2] = {ns, 0}, rcount[2] = {*nr, 0};
  app_exchange_lists l = {1, ranks, scount, idx, rcount, idx + ns};
  if (to != from) { /* one neighbour each way */
    l.nneighbours = 2;
    rcount[0] = 0;
    rcount[1] = *nr;
  }
  int rc = *plan ? app_exchange_update(*plan, &l)
                 : app_exchange_create(plan, "minimd_reneighbor", MPI_COMM_WORLD, &l,
                                       (size_t)rec * sizeof(double), 1, m->exec, tag + 1);
  free(idx);
  PORTA_CHECK(rc);
  return app_exchange_run(*plan, msg, 1);
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
  const int rec = MINIMD_MIGRATE_DOUBLES;
  PORTA_CHECK(reserve_records(&c->migrate_msg, rec, nsend, m->exec));
  if (nsend > 0) {
    PORTA_CHECK(
        minimd_pack(m->exec, at, c->leave, nsend, 1, records(&c->migrate_msg, rec, 0, nsend)));
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
    PORTA_CHECK(message(m, &c->migrate_plan[d][side], &c->migrate_msg, rec, nsend,
                        c->procneigh[d][side], c->procneigh[d][1 - side], 40 + 2 * side, &nr));
    PORTA_CHECK(minimd_atoms_reserve(m, at->nlocal + nr));
    PORTA_CHECK(minimd_unpack(m->exec, at, records(&c->migrate_msg, rec, nsend, nr), nr, 1, d,
                              c->lo[d], c->hi[d], at->nlocal, NULL, &kept));
    at->nlocal += kept;
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
  const int rec = MINIMD_GHOST_DOUBLES;
  PORTA_CHECK(reserve_records(&c->ghost_msg, rec, count, m->exec));
  if (count > 0)
    PORTA_CHECK(
        minimd_pack(m->exec, at, w->list_d, count, 0, records(&c->ghost_msg, rec, 0, count)));
  int64_t kept = 0;
  PORTA_CHECK(
      message(m, &w->border, &c->ghost_msg, rec, count, w->sendproc, w->recvproc, 60, &w->nrecv));
  PORTA_CHECK(minimd_atoms_reserve(m, w->firstrecv + w->nrecv));
  return minimd_unpack(m->exec, at, records(&c->ghost_msg, rec, count, w->nrecv), w->nrecv, 0, -1,
                       0.0, 0.0, w->firstrecv, w->shift, &kept);
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
      if (k % 2 == 0) {
        nfirst = nlast;
        nlast = at->nlocal + at->nghost;
      }
      w->self = w->sendproc == c->rank && w->recvproc == c->rank;
      PORTA_CHECK(border(m, w, nfirst, nlast));
      at->nghost += w->nrecv;
    }
  }
  if (at->nghost > c->max_ghosts) c->max_ghosts = at->nghost;
  return minimd_comm_plans(c, m->exec, m->neigh.half && m->neigh.newton,
                           m->prm.force == MINIMD_FORCE_EAM, 1);
}
