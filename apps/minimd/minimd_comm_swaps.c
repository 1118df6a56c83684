/** @file minimd_comm_swaps.c
 *  The swaps of every step: positions forward along the swaps, forces back in reverse order,
 *  EAM's F' forward. A swap with this rank itself is one kernel (a pair of them one launch);
 *  the others move through their plans as the plans were prepared (porta_exchange_start_on:
 *  queued on the GPUs, or driven from the host), a choice made once (minimd_comm.c). */
#include "porta/exchange.h"
#include "porta/exchange_device.h"
#include "minimd_comm.h"
#include "minimd_comm_private.h"
#include "minimd_kernels.h"

/** The swap after s when s and it are the lower and upper swap of one dimension's pair (s
 *  even): they read the same candidates and write different ghosts, so they are independent
 *  (one launch when both are with this rank itself, messages in flight together otherwise).
 *  NULL otherwise. */
static minimd_swap *pair_of(minimd_comm *c, int s) {
  minimd_swap *w = &c->swaps[s];
  if (s % 2 != 0 || s + 1 >= c->nswap) return NULL;
  minimd_swap *w2 = &c->swaps[s + 1];
  return w2->dim == w->dim && w2->self == w->self ? w2 : NULL;
}

static int shift_ghosts(const minimd_swap *w, porta_exec exec, porta_view_vec3 x) {
  if (w->nrecv > 0 && (w->shift[0] != 0.0 || w->shift[1] != 0.0 || w->shift[2] != 0.0))
    return minimd_shift(exec, x, w->firstrecv, w->nrecv, w->shift);
  return PORTA_SUCCESS;
}

/** Swap w's forward plans (and its pair w2's) finished and their ghosts shifted. */
static int forward_finish(porta_exec exec, porta_view_vec3 x, minimd_swap *w, minimd_swap *w2) {
  porta_exchange *plans[2] = {w->forward, w2 ? w2->forward : NULL};
  PORTA_CHECK(porta_exchange_finish_on(plans, w2 ? 2 : 1));
  PORTA_CHECK(shift_ghosts(w, exec, x));
  return w2 ? shift_ghosts(w2, exec, x) : PORTA_SUCCESS;
}

/** Forward swaps s to end - 1 on `exec`; with `stop`, the first driven from the host is only
 *  started (and left in c->forward_pending, as 1 + its index). */
static int forward_from(minimd_comm *c, porta_exec exec, porta_view_vec3 x, int s, int end,
                        int stop) {
  porta_view f = PORTA_VIEW_ERASE(x);
  for (; s < end; ++s) {
    minimd_swap *w = &c->swaps[s], *w2 = pair_of(c, s);
    if (w->self) {
      const int64_t n2 = w2 ? w2->nsend : 0;
      if (w->nsend + n2 > 0)
        PORTA_CHECK(minimd_self_forward(exec, x, w->list_d, w->nsend, w->firstrecv, w->shift,
                                        w2 ? w2->list_d : w->list_d, n2, w2 ? w2->firstrecv : 0,
                                        w2 ? w2->shift : w->shift));
    } else {
      porta_exchange *plans[2] = {w->forward, w2 ? w2->forward : NULL};
      PORTA_CHECK(porta_exchange_start_on(plans, w2 ? 2 : 1, exec, &f, 1));
      if (stop && !porta_exchange_queued(w->forward)) {
        c->forward_pending = s + 1;
        return PORTA_SUCCESS;
      }
      PORTA_CHECK(forward_finish(exec, x, w, w2));
    }
    if (w2) ++s;
  }
  return PORTA_SUCCESS;
}

/** Whether the swaps with other ranks go on the instance beside the run's. */
static int beside(const minimd_comm *c) { return c->has_side && c->first_remote < c->nswap; }

/** PORTA_SUCCESS, or the error of `op` called while a started swap is in flight. */
static int none_in_flight(const minimd_comm *c, const char *op) {
  if (!c->forward_pending) return PORTA_SUCCESS;
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, "comm",
                     "swap %d is still in flight (minimd_comm_forward_end finishes it)",
                     c->forward_pending - 1);
}

int minimd_comm_forward(minimd_comm *c, porta_exec exec, porta_view_vec3 x) {
  PORTA_CHECK(none_in_flight(c, "minimd_comm_forward"));
  return forward_from(c, exec, x, 0, c->nswap, 0);
}

int minimd_comm_forward_begin(minimd_comm *c, porta_exec exec, porta_view_vec3 x) {
  PORTA_CHECK(none_in_flight(c, "minimd_comm_forward_begin"));
  /* the leading swaps with this rank itself on the run's instance: what overlaps the others
     reads their ghosts */
  PORTA_CHECK(forward_from(c, exec, x, 0, c->first_remote, 0));
  if (!beside(c)) return forward_from(c, exec, x, c->first_remote, c->nswap, 1);
  PORTA_CHECK(porta_exec_wait(c->side, exec)); /* after this step's positions */
  return forward_from(c, c->side, x, c->first_remote, c->nswap, 1);
}

int minimd_comm_forward_end(minimd_comm *c, porta_exec exec, porta_view_vec3 x) {
  const porta_exec on = beside(c) ? c->side : exec;
  const int s = c->forward_pending - 1;
  if (s >= 0) {
    minimd_swap *w = &c->swaps[s], *w2 = pair_of(c, s);
    c->forward_pending = 0;
    PORTA_CHECK(forward_finish(on, x, w, w2));
    PORTA_CHECK(forward_from(c, on, x, s + (w2 ? 2 : 1), c->nswap, 0));
  }
  return beside(c) ? porta_exec_wait(exec, c->side) : PORTA_SUCCESS;
}

/** Swap w's plan `x` and, when not NULL, the one of its pair (`x2`) run on `exec`. */
static int run_plans(porta_exec exec, porta_exchange *x, porta_exchange *x2,
                     const porta_view *field) {
  porta_exchange *plans[2] = {x, x2};
  const int n = x2 ? 2 : 1;
  PORTA_CHECK(porta_exchange_start_on(plans, n, exec, field, 1));
  return porta_exchange_finish_on(plans, n);
}

int minimd_comm_reverse(minimd_comm *c, porta_exec exec, porta_view_vec3 f) {
  porta_view g = PORTA_VIEW_ERASE(f);
  for (int s = c->nswap - 1; s >= 0; --s) {
    minimd_swap *w = &c->swaps[s];
    minimd_swap *lower = s % 2 == 1 && pair_of(c, s - 1) == w ? &c->swaps[s - 1] : NULL;
    if (w->self) {
      if (w->nsend > 0)
        PORTA_CHECK(minimd_self_reverse(exec, f, w->list_d, w->nsend, w->firstrecv));
      continue;
    }
    /* a pair's adds in the same order as one swap after the other */
    PORTA_CHECK(run_plans(exec, w->reverse, lower ? lower->reverse : NULL, &g));
    if (lower) --s;
  }
  return PORTA_SUCCESS;
}

int minimd_comm_forward_scalar(minimd_comm *c, porta_exec exec, porta_view_f64 v) {
  porta_view g = PORTA_VIEW_ERASE(v);
  for (int s = 0; s < c->nswap; ++s) {
    minimd_swap *w = &c->swaps[s], *w2 = pair_of(c, s);
    if (w->self) {
      if (w->nsend > 0) PORTA_CHECK(minimd_self_scalar(exec, v, w->list_d, w->nsend, w->firstrecv));
      continue;
    }
    PORTA_CHECK(run_plans(exec, w->forward_scalar, w2 ? w2->forward_scalar : NULL, &g));
    if (w2) ++s;
  }
  return PORTA_SUCCESS;
}
