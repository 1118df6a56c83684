/** @file minimd_comm_host.c
 *  The re-neighbouring on the host, as the reference's: the owned atoms brought to the host
 *  arrays, wrapped into the box and migrated to their owners, sorted by bin when asked, the
 *  ghosts made swap after swap by host messages, the atoms back on the execution space and the
 *  swaps' plans built from the host's send lists. The first re-neighbouring of every run takes
 *  this path (it builds the plans the device's path updates). */
#include <math.h>
#include <stdlib.h>

#include "app_common.h"
#include "app_mpi.h"
#include "minimd_comm.h"
#include "minimd_comm_private.h"
#include "minimd_setup.h"

static void copy_atom(minimd_atoms *a, int64_t to, int64_t from) {
  for (int k = 0; k < 3; ++k) {
    a->hx[3 * to + k] = a->hx[3 * from + k];
    a->hv[3 * to + k] = a->hv[3 * from + k];
  }
  a->htype[to] = a->htype[from];
  a->hid[to] = a->hid[from];
}

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

/** The owned atoms wrapped into the box, and those that left this sub-domain sent to their new
 *  owners: per dimension with more than one rank, the atoms outside [lo, hi) go to both
 *  neighbours, which keep those inside their slab. */
static int migrate(minimd_comm *c, minimd_atoms *a, int64_t step) {
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

/** One swap: its send list from the candidates [nfirst, nlast) in its slab, and its ghosts
 *  appended to the host arrays. */
static int border(minimd_atoms *a, minimd_swap *w, int64_t nfirst, int64_t nlast) {
  w->nsend = 0;
  for (int64_t i = nfirst; i < nlast; ++i) {
    const double x = a->hx[3 * i + w->dim];
    if (x >= w->slablo && x <= w->slabhi) PORTA_CHECK(sendlist_push(w, i));
  }
  double *sbuf = (double *)malloc((size_t)(w->nsend > 0 ? w->nsend : 1) * 5 * sizeof(double));
  if (!sbuf) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm", "borders", "no memory");
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
  return PORTA_SUCCESS;
}

/** The ghosts, swap after swap. */
static int borders(minimd_comm *c, minimd_atoms *a) {
  a->nghost = 0;
  int64_t nfirst = 0, nlast = 0;
  for (int s = 0; s < c->nswap; ++s) {
    minimd_swap *w = &c->swaps[s];
    minimd_swap_candidates(w, a->nlocal + a->nghost, &nfirst, &nlast);
    PORTA_CHECK(border(a, w, nfirst, nlast));
    a->nghost += w->nrecv;
  }
  if (a->nghost > c->max_ghosts) c->max_ghosts = a->nghost;
  return PORTA_SUCCESS;
}

int minimd_comm_rebuild_host(minimd *m, int64_t step, int sort) {
  PORTA_CHECK(minimd_atoms_to_host(m));
  PORTA_CHECK(migrate(&m->comm, &m->atoms, step));
  if (sort) PORTA_CHECK(minimd_sort_host(m));
  PORTA_CHECK(borders(&m->comm, &m->atoms));
  PORTA_CHECK(minimd_atoms_to_device(m));
  return minimd_comm_plans(m, 0);
}
