/** @file minimd_comm.c
 *  The reference's decomposition and its communication, on the host at re-neighbouring and
 *  through exchange plans (core/exchange/include/porta/exchange.h) at every step:
 *
 *  - process grid: the factorisation px py pz = P with the least sub-domain surface (the
 *    first minimum in px, py order, as the reference), periodic in every dimension;
 *  - migration: owned atoms wrapped into the box, then per dimension with more than one rank
 *    the atoms outside [lo, hi) go to both neighbours, which keep those inside their slab;
 *  - borders: per dimension 2 * need swaps, alternately to the lower and the upper
 *    neighbour, of the atoms within the neighbour cut-off of the face (inclusive bounds);
 *    candidates are the owned atoms and the ghosts of earlier dimensions (later swap pairs of a
 *    dimension forward only the previous pair's ghosts). Ghost k of swap s is the copy of
 *    sendlist[k] on the sender, plus the periodic image shift when the swap crosses the box;
 *  - every step: positions forward along the swaps (one plan each, the receiver adds the
 *    shift), forces back in reverse order with Newton's third law across ghosts (plans that
 *    add), and EAM's F'(rho) forward.
 *  Each rank's host arrays hold its atoms during re-neighbouring only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange_channel.h"
#include "app_common.h"
#include "app_mpi.h"
#include "porta/exchange.h"
#include "porta/exchange_device.h"
#include "minimd_comm.h"
#include "minimd_kernels.h"

/* ---- decomposition ----------------------------------------------------------------------- */

void minimd_comm_grid(minimd_comm *c, const double prd[3], int nranks, int rank) {
  const double area[3] = {prd[0] * prd[1], prd[0] * prd[2], prd[1] * prd[2]};
  double best = 2.0 * (area[0] + area[1] + area[2]) + 1.0;
  int grid[3] = {1, 1, nranks};
  for (int ipx = 1; ipx <= nranks; ++ipx) {
    if (nranks % ipx) continue;
    const int nremain = nranks / ipx;
    for (int ipy = 1; ipy <= nremain; ++ipy) {
      if (nremain % ipy) continue;
      const int ipz = nremain / ipy;
      const double surf = area[0] / ipx / ipy + area[1] / ipx / ipz + area[2] / ipy / ipz;
      if (surf < best) {
        best = surf;
        grid[0] = ipx;
        grid[1] = ipy;
        grid[2] = ipz;
      }
    }
  }
  c->rank = rank;
  c->nranks = nranks;
  for (int d = 0; d < 3; ++d) {
    c->procgrid[d] = grid[d];
    c->prd[d] = prd[d];
  }
  /* row-major ranks, z fastest (MPI_Cart_create without reordering) */
  c->myloc[0] = rank / (grid[1] * grid[2]);
  c->myloc[1] = (rank / grid[2]) % grid[1];
  c->myloc[2] = rank % grid[2];
  for (int d = 0; d < 3; ++d) {
    for (int side = 0; side < 2; ++side) {
      int loc[3] = {c->myloc[0], c->myloc[1], c->myloc[2]};
      loc[d] = (loc[d] + (side ? 1 : -1) + grid[d]) % grid[d];
      c->procneigh[d][side] = (loc[0] * grid[1] + loc[1]) * grid[2] + loc[2];
    }
    c->lo[d] = c->myloc[d] * prd[d] / grid[d];
    c->hi[d] = (c->myloc[d] + 1) * prd[d] / grid[d];
  }
}

int minimd_comm_setup(minimd_comm *c, double cutneigh) {
  c->cutneigh = cutneigh;
  c->nswap = 0;
  for (int d = 0; d < 3; ++d) {
    c->need[d] = (int)(cutneigh * c->procgrid[d] / c->prd[d] + 1);
    c->nswap += 2 * c->need[d];
  }
  c->swaps = (minimd_swap *)calloc((size_t)c->nswap, sizeof *c->swaps);
  if (!c->swaps)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm_setup", "swaps", "no memory");
  int s = 0;
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 2 * c->need[d]; ++k, ++s) {
      minimd_swap *w = &c->swaps[s];
      w->dim = d;
      const int down = k % 2 == 0;
      w->sendproc = c->procneigh[d][down ? 0 : 1];
      w->recvproc = c->procneigh[d][down ? 1 : 0];
      w->self = w->sendproc == c->rank && w->recvproc == c->rank;
      if (down) {
        w->slablo = k < 2 ? -HUGE_VAL : 0.5 * (c->lo[d] + c->hi[d]);
        w->slabhi = c->lo[d] + cutneigh;
        /* what I receive comes from my upper neighbour: shifted down by the box when I am
           the last rank of this dimension (the sender then sits at the box's lower face) */
        w->shift[d] = c->myloc[d] == c->procgrid[d] - 1 ? c->prd[d] : 0.0;
      } else {
        w->slablo = c->hi[d] - cutneigh;
        w->slabhi = k < 2 ? HUGE_VAL : 0.5 * (c->lo[d] + c->hi[d]);
        w->shift[d] = c->myloc[d] == 0 ? -c->prd[d] : 0.0;
      }
    }
  return PORTA_SUCCESS;
}

static void swap_plans_free(minimd_swap *w) {
  porta_exchange_destroy(w->forward);
  porta_exchange_destroy(w->reverse);
  porta_exchange_destroy(w->forward_scalar);
  w->forward = w->reverse = w->forward_scalar = NULL;
}

void minimd_comm_free(minimd_comm *c) {
  for (int s = 0; s < c->nswap; ++s) {
    swap_plans_free(&c->swaps[s]);
    porta_view_i64_release(&c->swaps[s].list_d);
    free(c->swaps[s].sendlist);
  }
  free(c->swaps);
  c->swaps = NULL;
  porta_view_i64_release(&c->ghost_index);
  porta_channel_destroy(c->chan);
  c->chan = NULL;
  if (c->has_side) porta_exec_destroy_instance(c->side);
  c->has_side = 0;
  porta_device_comm_destroy(c->device); /* after the plans it served */
  c->device = NULL;
  porta_view_i64_release(&c->leave);
  porta_view_i64_release(&c->movers);
}

/* ---- host arrays ------------------------------------------------------------------------- */

int minimd_host_reserve(minimd_atoms *a, int64_t n) {
  if (n <= a->hcap) return PORTA_SUCCESS;
  int64_t cap = a->hcap > 0 ? a->hcap : 1024;
  while (cap < n) cap += cap / 2 + 1;
  double *x = (double *)realloc(a->hx, (size_t)cap * 3 * sizeof(double));
  if (x) a->hx = x;
  double *v = x ? (double *)realloc(a->hv, (size_t)cap * 3 * sizeof(double)) : NULL;
  if (v) a->hv = v;
  int32_t *t = v ? (int32_t *)realloc(a->htype, (size_t)cap * sizeof(int32_t)) : NULL;
  if (t) a->htype = t;
  int64_t *id = t ? (int64_t *)realloc(a->hid, (size_t)cap * sizeof(int64_t)) : NULL;
  if (id) a->hid = id;
  if (!id)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "atoms",
                       "no host memory for %lld atoms", (long long)cap);
  a->hcap = cap;
  return PORTA_SUCCESS;
}

static void copy_atom(minimd_atoms *a, int64_t to, int64_t from) {
  for (int k = 0; k < 3; ++k) {
    a->hx[3 * to + k] = a->hx[3 * from + k];
    a->hv[3 * to + k] = a->hv[3 * from + k];
  }
  a->htype[to] = a->htype[from];
  a->hid[to] = a->hid[from];
}

/* ---- migration --------------------------------------------------------------------------- */

#define ATOM_DOUBLES 8 /* x, v, type, id travel as doubles (ids below 2^53: checked at setup) */

static void pack_atom(const minimd_atoms *a, int64_t i, double *buf) {
  for (int k = 0; k < 3; ++k) {
    buf[k] = a->hx[3 * i + k];
    buf[3 + k] = a->hv[3 * i + k];
  }
  buf[6] = (double)a->htype[i];
  buf[7] = (double)a->hid[i];
}

static int sendrecv_doubles(const double *sbuf, int64_t ns, int to, double **rbuf, int64_t *nr,
                            int from, int tag) {
  MPI_Status st;
  int64_t n = 0;
  APP_MPI_CHECK(MPI_Sendrecv(&ns, 1, MPI_INT64_T, to, tag, &n, 1, MPI_INT64_T, from, tag,
                             MPI_COMM_WORLD, &st));
  if (ns > INT32_MAX || n > INT32_MAX)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd_comm", "message",
                       "a message of %lld doubles is too long for MPI",
                       (long long)(ns > n ? ns : n));
  double *r = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  if (!r) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm", "message", "no memory");
  APP_MPI_CHECK(MPI_Sendrecv(sbuf, (int)ns, MPI_DOUBLE, to, tag + 1, r, (int)n, MPI_DOUBLE, from,
                             tag + 1, MPI_COMM_WORLD, &st));
  *rbuf = r;
  *nr = n;
  return PORTA_SUCCESS;
}

/** x wrapped into [0, prd) once; PORTA_ERROR_INVALID_ARGUMENT naming the step and the atom when
 *  it is not finite or farther out than one box length (it has left the simulation). */
static int wrap_position(double *x, double prd, int64_t step, int64_t id) {
  if (!isfinite(*x))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", "positions",
                       "step %lld: atom %lld has a non-finite position; the run blew up "
                       "(time step too large or a bad potential?)",
                       (long long)step, (long long)id + 1);
  if (*x < 0.0) *x += prd;
  if (*x >= prd) *x -= prd;
  if (*x < 0.0 || *x >= prd)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", "positions",
                       "step %lld: atom %lld moved more than a box length between "
                       "re-neighbourings; use a smaller time step",
                       (long long)step, (long long)id + 1);
  return PORTA_SUCCESS;
}

int minimd_comm_check_positions(const minimd_comm *c, const minimd_atoms *a, int64_t step) {
  for (int64_t i = 0; i < a->nlocal; ++i)
    for (int d = 0; d < 3; ++d) {
      double x = a->hx[3 * i + d];
      PORTA_CHECK(wrap_position(&x, c->prd[d], step, a->hid[i]));
    }
  return PORTA_SUCCESS;
}

int minimd_comm_exchange(minimd_comm *c, minimd_atoms *a, int64_t step) {
  /* wrap into the box; an atom farther out than one box length has left the simulation */
  for (int64_t i = 0; i < a->nlocal; ++i)
    for (int d = 0; d < 3; ++d)
      PORTA_CHECK(wrap_position(&a->hx[3 * i + d], c->prd[d], step, a->hid[i]));
  for (int d = 0; d < 3; ++d) {
    if (c->procgrid[d] == 1) continue;
    /* take out the atoms that left [lo, hi) */
    int64_t nsend = 0, cap = 64;
    double *sbuf = (double *)malloc((size_t)cap * ATOM_DOUBLES * sizeof(double));
    if (!sbuf)
      return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm", "exchange", "no memory");
    int64_t i = 0;
    while (i < a->nlocal) {
      const double x = a->hx[3 * i + d];
      if (x < c->lo[d] || x >= c->hi[d]) {
        if (nsend == cap) {
          cap *= 2;
          double *b = (double *)realloc(sbuf, (size_t)cap * ATOM_DOUBLES * sizeof(double));
          if (!b) {
            free(sbuf);
            return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm", "exchange", "no memory");
          }
          sbuf = b;
        }
        pack_atom(a, i, sbuf + nsend * ATOM_DOUBLES);
        ++nsend;
        copy_atom(a, i, a->nlocal - 1);
        a->nlocal -= 1;
      } else {
        ++i;
      }
    }
    /* to both neighbours (one message when they are the same rank) */
    const int ntimes = c->procgrid[d] > 2 ? 2 : 1;
    for (int side = 0; side < ntimes; ++side) {
      double *rbuf = NULL;
      int64_t nr = 0;
      int rc = sendrecv_doubles(sbuf, nsend * ATOM_DOUBLES, c->procneigh[d][side], &rbuf, &nr,
                                c->procneigh[d][1 - side], 40 + 2 * side);
      if (rc != PORTA_SUCCESS) {
        free(sbuf);
        return rc;
      }
      for (int64_t k = 0; k < nr / ATOM_DOUBLES; ++k) {
        const double *b = rbuf + k * ATOM_DOUBLES;
        if (b[d] < c->lo[d] || b[d] >= c->hi[d]) continue;
        rc = minimd_host_reserve(a, a->nlocal + 1);
        if (rc != PORTA_SUCCESS) {
          free(rbuf);
          free(sbuf);
          return rc;
        }
        const int64_t j = a->nlocal++;
        for (int q = 0; q < 3; ++q) {
          a->hx[3 * j + q] = b[q];
          a->hv[3 * j + q] = b[3 + q];
        }
        a->htype[j] = (int32_t)b[6];
        a->hid[j] = (int64_t)b[7];
      }
      free(rbuf);
    }
    free(sbuf);
  }
  return minimd_comm_check_count(c, a, step);
}

int minimd_comm_check_count(const minimd_comm *c, const minimd_atoms *a, int64_t step) {
  /* an atom that moved farther than a sub-domain was dropped by every rank: stop, do not go on
     with fewer atoms */
  int64_t total = 0;
  APP_MPI_CHECK(MPI_Allreduce(&a->nlocal, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  if (total != a->natoms)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", "exchange",
                       "step %lld: %lld atoms instead of %lld after the exchange: atoms moved "
                       "farther than a sub-domain (%g x %g x %g) between re-neighbourings; "
                       "re-neighbour more often, use a smaller time step or fewer ranks",
                       (long long)step, (long long)total, (long long)a->natoms, c->hi[0] - c->lo[0],
                       c->hi[1] - c->lo[1], c->hi[2] - c->lo[2]);
  return PORTA_SUCCESS;
}

/* ---- borders ----------------------------------------------------------------------------- */

static int sendlist_push(minimd_swap *w, int64_t i) {
  if (w->nsend == w->sendcap) {
    int64_t cap = w->sendcap > 0 ? 2 * w->sendcap : 1024;
    int64_t *l = (int64_t *)realloc(w->sendlist, (size_t)cap * sizeof *l);
    if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm", "sendlist", "no memory");
    w->sendlist = l;
    w->sendcap = cap;
  }
  w->sendlist[w->nsend++] = i;
  return PORTA_SUCCESS;
}

int minimd_comm_borders(minimd_comm *c, minimd_atoms *a) {
  a->nghost = 0;
  int64_t nfirst = 0, nlast = 0;
  int s = 0;
  for (int d = 0; d < 3; ++d) {
    nlast = 0;
    for (int k = 0; k < 2 * c->need[d]; ++k, ++s) {
      minimd_swap *w = &c->swaps[s];
      minimd_swap_candidates(k, a->nlocal + a->nghost, &nfirst, &nlast);
      w->nsend = 0;
      for (int64_t i = nfirst; i < nlast; ++i) {
        const double x = a->hx[3 * i + d];
        if (x >= w->slablo && x <= w->slabhi) PORTA_CHECK(sendlist_push(w, i));
      }
      double *sbuf = (double *)malloc((size_t)(w->nsend > 0 ? w->nsend : 1) * 5 * sizeof(double));
      if (!sbuf)
        return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm", "borders", "no memory");
      for (int64_t q = 0; q < w->nsend; ++q) {
        const int64_t i = w->sendlist[q];
        for (int e = 0; e < 3; ++e) sbuf[5 * q + e] = a->hx[3 * i + e];
        sbuf[5 * q + 3] = (double)a->htype[i];
        sbuf[5 * q + 4] = (double)a->hid[i];
      }
      double *rbuf = NULL;
      int64_t nr = 0;
      int rc = sendrecv_doubles(sbuf, 5 * w->nsend, w->sendproc, &rbuf, &nr, w->recvproc, 60);
      free(sbuf);
      if (rc != PORTA_SUCCESS) return rc;
      w->nrecv = nr / 5;
      w->firstrecv = a->nlocal + a->nghost;
      rc = minimd_host_reserve(a, w->firstrecv + w->nrecv);
      if (rc != PORTA_SUCCESS) {
        free(rbuf);
        return rc;
      }
      for (int64_t q = 0; q < w->nrecv; ++q) {
        const int64_t j = w->firstrecv + q;
        /* the receiver adds the image shift: the same sum the sender would form */
        for (int e = 0; e < 3; ++e) a->hx[3 * j + e] = rbuf[5 * q + e] + w->shift[e];
        a->htype[j] = (int32_t)rbuf[5 * q + 3];
        a->hid[j] = (int64_t)rbuf[5 * q + 4];
      }
      free(rbuf);
      a->nghost += w->nrecv;
    }
  }
  if (a->nghost > c->max_ghosts) c->max_ghosts = a->nghost;
  return PORTA_SUCCESS;
}

/* ---- plans ------------------------------------------------------------------------------- */

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

int minimd_comm_rehearse_update(minimd_comm *c, porta_exec exec, int reverse, int scalar) {
  for (int s = 0; s < c->nswap; ++s) PORTA_CHECK(list_to_device(&c->swaps[s], exec));
  return minimd_comm_plans(c, exec, reverse, scalar, 1);
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

int minimd_comm_plans(minimd_comm *c, porta_exec exec, int reverse, int scalar,
                      int lists_on_device) {
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

int minimd_comm_queue_swaps(minimd_comm *c, porta_exec exec, char *why, size_t size) {
  PORTA_CHECK(app_device_comm_try(MPI_COMM_WORLD, exec, &c->device, why, size));
  for (int s = 0; s < c->nswap && c->device; ++s) {
    minimd_swap *w = &c->swaps[s];
    porta_exchange *plans[3] = {w->forward, w->reverse, w->forward_scalar};
    for (int k = 0; k < 3; ++k)
      if (!w->self && plans[k]) PORTA_CHECK(porta_exchange_prepare_queue(plans[k], c->device));
  }
  if (c->device && porta_exec_query(exec).async_instances) {
    PORTA_CHECK(
        porta_exec_create_instance_with_priority(exec.backend, PORTA_PRIORITY_HIGH, &c->side));
    c->has_side = 1;
  }
  return PORTA_SUCCESS;
}

/** Swap w's plan `x` (and w2's, `x2`, when not NULL) queued on `exec`: the GPUs exchange the
 *  values with no wait on the host. */
static int queue_swaps(minimd_comm *c, porta_exec exec, porta_exchange *x, porta_exchange *x2,
                       porta_view *field) {
  PORTA_CHECK(porta_exchange_queue(x, c->device, exec, field, 1));
  return x2 ? porta_exchange_queue(x2, c->device, exec, field, 1) : PORTA_SUCCESS;
}

/* ---- every step -------------------------------------------------------------------------- */

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

/** Forward swaps s to end - 1; with `stop`, the first with another rank is only started (and
 *  left in c->forward_pending, as 1 + its index). */
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
    } else if (c->device) { /* queued: nothing to leave in flight */
      PORTA_CHECK(queue_swaps(c, exec, w->forward, w2 ? w2->forward : NULL, &f));
      PORTA_CHECK(shift_ghosts(w, exec, x));
      if (w2) PORTA_CHECK(shift_ghosts(w2, exec, x));
    } else {
      if (stop) c->forward_pending = s + 1;
      porta_exchange *plans[2] = {w->forward, w2 ? w2->forward : NULL};
      PORTA_CHECK(porta_exchange_start_together(plans, w2 ? 2 : 1, &f, 1));
      if (stop) return PORTA_SUCCESS;
      PORTA_CHECK(porta_exchange_finish(w->forward));
      if (w2) PORTA_CHECK(porta_exchange_finish(w2->forward));
      PORTA_CHECK(shift_ghosts(w, exec, x));
      if (w2) PORTA_CHECK(shift_ghosts(w2, exec, x));
    }
    if (w2) ++s;
  }
  return PORTA_SUCCESS;
}

/** PORTA_SUCCESS, or the error of `op` called while a started swap is in flight. */
static int none_in_flight(const minimd_comm *c, const char *op) {
  if (!c->forward_pending) return PORTA_SUCCESS;
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, "comm",
                     "swap %d is still in flight (minimd_comm_forward_end finishes it)",
                     c->forward_pending - 1);
}

int minimd_comm_forward_begin(minimd_comm *c, porta_exec exec, porta_view_vec3 x) {
  PORTA_CHECK(none_in_flight(c, "minimd_comm_forward_begin"));
  return forward_from(c, exec, x, 0, c->nswap, 1);
}

int minimd_comm_forward_end(minimd_comm *c, porta_exec exec, porta_view_vec3 x) {
  const int s = c->forward_pending - 1;
  if (s < 0) return PORTA_SUCCESS;
  minimd_swap *w = &c->swaps[s], *w2 = pair_of(c, s);
  PORTA_CHECK(porta_exchange_finish(w->forward));
  if (w2) PORTA_CHECK(porta_exchange_finish(w2->forward));
  c->forward_pending = 0;
  PORTA_CHECK(shift_ghosts(w, exec, x));
  if (w2) PORTA_CHECK(shift_ghosts(w2, exec, x));
  return forward_from(c, exec, x, s + (w2 ? 2 : 1), c->nswap, 0);
}

int minimd_comm_first_remote(const minimd_comm *c) {
  int s = 0;
  while (s < c->nswap && c->swaps[s].self) ++s;
  return s;
}

int64_t minimd_comm_leading_ghosts(const minimd_comm *c) {
  int64_t n = 0;
  for (int s = 0; s < c->nswap && c->swaps[s].self; ++s) n += c->swaps[s].nrecv;
  return n;
}

/** Whether a range that starts or ends at swap k splits a pair (pair_of). */
static int splits_pair(minimd_comm *c, int k) {
  return k > 0 && k < c->nswap && pair_of(c, k - 1) == &c->swaps[k];
}

int minimd_comm_forward_range(minimd_comm *c, porta_exec exec, porta_view_vec3 x, int first,
                              int last) {
  PORTA_CHECK(none_in_flight(c, "minimd_comm_forward_range"));
  if (first < 0 || last > c->nswap || first > last || splits_pair(c, first) || splits_pair(c, last))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd_comm_forward_range", "swaps",
                       "swaps %d to %d of %d (a range splits no pair)", first, last - 1, c->nswap);
  return forward_from(c, exec, x, first, last, 0);
}

int minimd_comm_forward(minimd_comm *c, porta_exec exec, porta_view_vec3 x) {
  PORTA_CHECK(minimd_comm_forward_begin(c, exec, x));
  return minimd_comm_forward_end(c, exec, x);
}

int minimd_comm_reverse(minimd_comm *c, porta_exec exec, porta_view_vec3 f) {
  porta_view g = PORTA_VIEW_ERASE(f);
  for (int s = c->nswap - 1; s >= 0; --s) {
    minimd_swap *w = &c->swaps[s];
    minimd_swap *lower = s % 2 == 1 && pair_of(c, s - 1) == w ? &c->swaps[s - 1] : NULL;
    if (w->self) {
      if (w->nsend > 0)
        PORTA_CHECK(minimd_self_reverse(exec, f, w->list_d, w->nsend, w->firstrecv));
    } else if (c->device) { /* queued: the adds in the same order as the host's */
      PORTA_CHECK(queue_swaps(c, exec, w->reverse, lower ? lower->reverse : NULL, &g));
      if (lower) --s;
    } else if (lower) { /* (the adds in the same order as one swap after the other) */
      porta_exchange *plans[2] = {w->reverse, lower->reverse};
      PORTA_CHECK(porta_exchange_run_together(plans, 2, &g, 1));
      --s;
    } else {
      PORTA_CHECK(porta_exchange_run(w->reverse, &g, 1));
    }
  }
  return PORTA_SUCCESS;
}

int minimd_comm_forward_scalar(minimd_comm *c, porta_exec exec, porta_view_f64 v) {
  porta_view g = PORTA_VIEW_ERASE(v);
  for (int s = 0; s < c->nswap; ++s) {
    minimd_swap *w = &c->swaps[s], *w2 = pair_of(c, s);
    if (w->self) {
      if (w->nsend > 0) PORTA_CHECK(minimd_self_scalar(exec, v, w->list_d, w->nsend, w->firstrecv));
    } else if (c->device) {
      PORTA_CHECK(queue_swaps(c, exec, w->forward_scalar, w2 ? w2->forward_scalar : NULL, &g));
      if (w2) ++s;
    } else if (w2) {
      porta_exchange *plans[2] = {w->forward_scalar, w2->forward_scalar};
      PORTA_CHECK(porta_exchange_run_together(plans, 2, &g, 1));
      ++s;
    } else {
      PORTA_CHECK(porta_exchange_run(w->forward_scalar, &g, 1));
    }
  }
  return PORTA_SUCCESS;
}
