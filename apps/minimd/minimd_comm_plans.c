/** @file minimd_comm_plans.c
 *  The swaps' exchange plans (core/exchange/include/porta/exchange.h): per swap with another
 *  rank, positions forward (the receiver adds the image shift), forces back in reverse order
 *  with Newton's third law across ghosts (plans that add), and EAM's F'(rho) forward; built
 *  from the host's send lists at the first re-neighbouring, updated in place from the lists
 *  on the execution space where the atoms are re-neighboured there. The swaps with this rank
 *  itself need no plan: their send lists go to the execution space, for one kernel each. */
#include <stdlib.h>
#include <string.h>

#include "porta/exchange.h"
#include "minimd_comm_private.h"
#include "minimd_kernels.h"

/** Build one swap's plan, or give the one in *out the swap's new lists; `reverse` turns the
 *  directions round (ghost values back to the atoms they copy). */
static int swap_plan(const minimd_swap *w, porta_exec exec, size_t value_size, int reverse, int tag,
                     porta_exchange **out) {
  int64_t *recv = (int64_t *)malloc((size_t)(w->nrecv > 0 ? w->nrecv : 1) * sizeof(int64_t));
  if (!recv) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm", "plan", "no memory");
  for (int64_t q = 0; q < w->nrecv; ++q) recv[q] = w->firstrecv + q;
  const int64_t *sidx = reverse ? recv : w->sendlist, *ridx = reverse ? w->sendlist : recv;
  const int64_t ns = reverse ? w->nrecv : w->nsend, nr = reverse ? w->nsend : w->nrecv;
  const int to = reverse ? w->recvproc : w->sendproc, from = reverse ? w->sendproc : w->recvproc;
  int ranks[2];
  int64_t scount[2], rcount[2];
  porta_exchange_lists l;
  l.ranks = ranks;
  l.send_count = scount;
  l.recv_count = rcount;
  l.send_index = sidx;
  l.recv_index = ridx;
  if (to == from) {
    l.nneighbours = 1;
    ranks[0] = to;
    scount[0] = ns;
    rcount[0] = nr;
  } else {
    l.nneighbours = 2;
    ranks[0] = to;
    scount[0] = ns;
    rcount[0] = 0;
    ranks[1] = from;
    scount[1] = 0;
    rcount[1] = nr;
  }
  const int update = *out != NULL;
  int rc = update ? porta_exchange_update(*out, &l)
                  : porta_exchange_create(out, reverse ? "minimd_reverse" : "minimd_forward",
                                          MPI_COMM_WORLD, &l, value_size, 1, exec, tag);
  if (rc == PORTA_SUCCESS && reverse && !update) rc = porta_exchange_set_accumulate(*out, 1);
  free(recv);
  return rc;
}

/** A swap's send list (the host's) on the execution space, in a list kept when long enough. */
static int list_to_device(minimd_swap *w, porta_exec exec) {
  const int64_t n = w->nsend > 0 ? w->nsend : 1;
  if (!w->list_d.data || porta_extent(w->list_d, 0) < n) {
    porta_view_i64_release(&w->list_d);
    porta_view_options opt = {porta_exec_memory_space(exec), PORTA_LAYOUT_DEFAULT,
                              PORTA_VIEW_UNINITIALIZED, NULL};
    PORTA_CHECK(porta_view_i64_create(&w->list_d, "minimd_sendlist", 1, &n, &opt));
  }
  if (w->nsend == 0) return PORTA_SUCCESS;
  porta_view_options hopt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, 0, NULL};
  porta_view_i64 h;
  PORTA_CHECK(porta_view_i64_wrap(&h, w->sendlist, "minimd_sendlist_host", 1, &n, &hopt));
  porta_view_i64 d;
  memset(&d, 0, sizeof d);
  porta_slice sl = porta_slice_range(0, n);
  int rc = porta_view_i64_subview(&d, &w->list_d, &sl);
  if (rc == PORTA_SUCCESS) rc = porta_deep_copy(d, h);
  porta_view_i64_release(&d);
  porta_view_i64_release(&h);
  return rc;
}

int minimd_comm_rehearse_update(minimd *m) {
  minimd_comm *c = &m->comm;
  for (int s = 0; s < c->nswap; ++s) PORTA_CHECK(list_to_device(&c->swaps[s], m->exec));
  return minimd_comm_plans(m, 1);
}

int minimd_reserve_i64(porta_view_i64 *v, const char *label, int64_t n, porta_memory_space s) {
  if (v->data && porta_extent(*v, 0) >= n) return PORTA_SUCCESS;
  porta_view_i64_release(v);
  const int64_t len = n + n / 4 + 64;
  porta_view_options opt = {s, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNINITIALIZED, NULL};
  return porta_view_i64_create(v, label, 1, &len, &opt);
}

/** A swap's plan given its new lists where the kernels made them: the send list w->list_d and
 *  the ghosts' offsets (c->ghost_index), never through the host. */
static int swap_plan_device(minimd_comm *c, const minimd_swap *w, int reverse, porta_exchange *x) {
  const int64_t ns = reverse ? w->nrecv : w->nsend, nr = reverse ? w->nsend : w->nrecv;
  const int to = reverse ? w->recvproc : w->sendproc, from = reverse ? w->sendproc : w->recvproc;
  const porta_view_i64 sidx = reverse ? c->ghost_index : w->list_d;
  const porta_view_i64 ridx = reverse ? w->list_d : c->ghost_index;
  int ranks[2] = {to, from};
  int64_t scount[2] = {ns, 0}, rcount[2] = {nr, 0};
  if (to != from) { /* the first neighbour only sends, the second only receives */
    rcount[0] = 0;
    rcount[1] = nr;
  }
  return porta_exchange_update_device(x, ranks, scount, sidx, rcount, ridx);
}

/** The first swap with another rank, and the ghosts the swaps before it make. */
static void leading_swaps(minimd_comm *c) {
  c->first_remote = 0;
  c->leading_ghosts = 0;
  while (c->first_remote < c->nswap && c->swaps[c->first_remote].self)
    c->leading_ghosts += c->swaps[c->first_remote++].nrecv;
}

int minimd_comm_plans(minimd *m, int lists_on_device) {
  minimd_comm *c = &m->comm;
  const porta_exec exec = m->exec;
  const int reverse = m->neigh.half && m->neigh.newton, scalar = m->prm.force == MINIMD_FORCE_EAM;
  leading_swaps(c);
  for (int s = 0; s < c->nswap; ++s) {
    minimd_swap *w = &c->swaps[s];
    if (w->self) { /* no messages: one kernel per swap (nsend == nrecv) */
      if (!lists_on_device) PORTA_CHECK(list_to_device(w, exec));
      continue;
    }
    if (lists_on_device) {
      /* the plans exist: the first re-neighbouring (step 0) takes the host path */
      if (!w->forward || (reverse && !w->reverse) || (scalar && !w->forward_scalar))
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd_comm_plans", "swap",
                           "swap %d has no plans to update (the host path builds them)", s);
      /* the ghosts' offsets once for the swap's plans, which copy them */
      PORTA_CHECK(minimd_reserve_i64(&c->ghost_index, "minimd_ghost_index",
                                     w->nrecv > 0 ? w->nrecv : 1, porta_exec_memory_space(exec)));
      if (w->nrecv > 0) PORTA_CHECK(minimd_iota(exec, c->ghost_index, w->firstrecv, w->nrecv));
      PORTA_CHECK(swap_plan_device(c, w, 0, w->forward));
      if (reverse) PORTA_CHECK(swap_plan_device(c, w, 1, w->reverse));
      if (scalar) PORTA_CHECK(swap_plan_device(c, w, 0, w->forward_scalar));
      continue;
    }
    PORTA_CHECK(swap_plan(w, exec, sizeof(minimd_vec3), 0, 100 + s, &w->forward));
    if (reverse) PORTA_CHECK(swap_plan(w, exec, sizeof(minimd_vec3), 1, 200 + s, &w->reverse));
    if (scalar) PORTA_CHECK(swap_plan(w, exec, sizeof(double), 0, 300 + s, &w->forward_scalar));
  }
  return PORTA_SUCCESS;
}
