/** @file tea_comm.c
 *  MPI side of TeaLeaf: halo exchange (apps/common app_halo2d, then the numerics' reflective
 *  physical boundaries) and global sums.
 *
 *  Reproducible sums. In reproducible mode (--reproducible: c->reproducible) every reduction
 *  kernel of the numerics accumulates its cells exactly into porta_xsum_f64 superaccumulators
 *  (porta/xsum.h) and leaves them in c->xsum[]; tea_allreduce_sum adds their integer limbs over
 *  the ranks with MPI_SUM (exact, so MPI's reduction order does not matter) and rounds once.
 *  Every global sum is therefore the correctly rounded exact sum over all cells, a function of
 *  the cell values alone: bitwise independent of the rank count, the thread count and the back
 *  end, and so are the fields computed from it. Default mode sums doubles with MPI_Allreduce
 *  (app_allreduce_sum) and differs between decompositions in the last bits. */
#include "tea_comm.h"

#include <stdlib.h>
#include <string.h>

void tea_chunk_setup(tea_chunk *c, const app_decomp *d, const tea_settings *s, porta_exec exec) {
  c->gx_cells = s->x_cells;
  c->gy_cells = s->y_cells;
  c->nx = (int)d->local[0];
  c->ny = (int)d->local[1];
  c->x_off = (int)d->offset[0];
  c->y_off = (int)d->offset[1];
  c->halo = s->halo_depth;
  c->xmin = s->xmin;
  c->ymin = s->ymin;
  c->dx = (s->xmax - s->xmin) / s->x_cells;
  c->dy = (s->ymax - s->ymin) / s->y_cells;
  c->phys_left = app_decomp_is_boundary(d, 0, APP_LOW);
  c->phys_right = app_decomp_is_boundary(d, 0, APP_HIGH);
  c->phys_bottom = app_decomp_is_boundary(d, 1, APP_LOW);
  c->phys_top = app_decomp_is_boundary(d, 1, APP_HIGH);
  c->exec = exec;
  c->reproducible = s->reproducible;
  c->xsum_pending = 0;
}

int tea_comm_create(tea_chunk *c, const app_decomp *d, app_timers *timers) {
  struct tea_comm *m = (struct tea_comm *)calloc(1, sizeof *m);
  if (!m) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_comm_create", "comm", "calloc");
  m->d = *d;
  m->timers = timers;
  m->t_halo = timers ? app_timer_id(timers, "MPI halo exchange") : -1;
  m->t_reduce = timers ? app_timer_id(timers, "MPI reductions") : -1;
  /* fields are (y, x): x is view dimension 1 */
  int rc = app_halo2d_create(&m->halo, d, c->halo, 1, TEA_NUM_EXCHANGE_FIELDS, c->exec);
  if (rc != PORTA_SUCCESS) {
    free(m);
    return rc;
  }
  c->comm = m;
  return PORTA_SUCCESS;
}

void tea_comm_destroy(tea_chunk *c) {
  if (!c->comm) return;
  app_halo2d_destroy(&c->comm->halo);
  free(c->comm);
  c->comm = NULL;
}

int tea_halo_exchange(tea_chunk *c, const int *fields, int nfields, int depth) {
  struct tea_comm *m = c->comm;
  porta_view_f64 views[TEA_NUM_EXCHANGE_FIELDS];
  if (nfields < 0 || nfields > TEA_NUM_EXCHANGE_FIELDS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_halo_exchange", "halo",
                       "%d fields (at most %d)", nfields, TEA_NUM_EXCHANGE_FIELDS);
  for (int i = 0; i < nfields; ++i) {
    porta_view_f64 *v = tea_field(c, fields[i]);
    if (!v)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_halo_exchange", "halo",
                         "unknown field id %d", fields[i]);
    views[i] = *v;
  }
  if (m) {
    app_timer_start(m->timers, m->t_halo);
    int rc = app_halo2d_exchange(&m->halo, views, nfields, depth);
    app_timer_stop(m->timers, m->t_halo);
    if (rc != PORTA_SUCCESS) return rc;
  }
  return tea_reflect_boundaries(c, fields, nfields, depth);
}

/** Reproducible mode: merge the exact accumulators c->xsum[0..n-1] over the ranks and round.
 *  Each is normalised (limbs in [0, 2^32), the top one small), so the integer MPI_SUM of up to
 *  2^31 ranks' limbs cannot overflow and does not depend on MPI's reduction order. The status
 *  bits travel as counts in one extra word per value (20 bits per flag). */
static int tea_allreduce_xsum(tea_chunk *c, double *values, int n) {
  enum { W = PORTA_XSUM_LIMBS + 1 };
  int64_t buf[TEA_MAX_XSUMS * W];
  if (c->xsum_pending != n || n < 1 || n > TEA_MAX_XSUMS) {
    int pending = c->xsum_pending;
    c->xsum_pending = 0;
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_allreduce_sum", "comm",
                       "reproducible mode: %d values to sum but %d exact accumulators pending", n,
                       pending);
  }
  for (int i = 0; i < n; ++i) {
    porta_xsum_f64_value v = c->xsum[i];
    const double local = porta_xsum_f64_round(&v);
    if (memcmp(&local, &values[i], sizeof local) != 0) { /* a stale accumulator: refuse */
      c->xsum_pending = 0;
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_allreduce_sum", "comm",
                         "reproducible mode: value %d (%.17g) is not the pending exact "
                         "accumulator's (%.17g): its kernel did not use porta_xsum_f64",
                         i, values[i], local);
    }
    porta_xsum_f64_normalize(&v);
    memcpy(&buf[i * W], v.limb, sizeof v.limb);
    buf[i * W + PORTA_XSUM_LIMBS] = (int64_t)((v.flags & PORTA_XSUM_INEXACT) != 0) +
                                    ((int64_t)((v.flags & PORTA_XSUM_OVERFLOW) != 0) << 20) +
                                    ((int64_t)((v.flags & PORTA_XSUM_NONFINITE) != 0) << 40);
  }
  int nranks = 1, rc = MPI_SUCCESS;
  if (c->comm) {
    MPI_Comm_size(c->comm->d.comm, &nranks);
    rc = MPI_Allreduce(MPI_IN_PLACE, buf, n * W, MPI_INT64_T, MPI_SUM, c->comm->d.comm);
  }
  c->xsum_pending = 0;
  if (rc != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "tea_allreduce_sum", "comm",
                       "MPI reduction of %d exact accumulators failed (%d)", n, rc);
  for (int i = 0; i < n; ++i) {
    porta_xsum_f64_value v;
    memcpy(v.limb, &buf[i * W], sizeof v.limb);
    const int64_t f = buf[i * W + PORTA_XSUM_LIMBS];
    v.flags = ((f & 0xFFFFF) ? PORTA_XSUM_INEXACT : 0) |
              (((f >> 20) & 0xFFFFF) ? PORTA_XSUM_OVERFLOW : 0) |
              ((f >> 40) ? PORTA_XSUM_NONFINITE : 0);
    v.count = nranks; /* each limb holds at most nranks normalised digits */
    values[i] = porta_xsum_f64_round(&v);
  }
  return PORTA_SUCCESS;
}

int tea_allreduce_sum(tea_chunk *c, double *values, int n) {
  struct tea_comm *m = c->comm;
  if (!m && !c->reproducible) return PORTA_SUCCESS; /* no communicator: a single rank */
  if (m) app_timer_start(m->timers, m->t_reduce);
  int rc = PORTA_SUCCESS;
  if (c->reproducible) {
    rc = tea_allreduce_xsum(c, values, n);
  } else {
    const int mrc = app_allreduce_sum(m->d.comm, values, n);
    if (mrc != MPI_SUCCESS)
      rc = porta_error(PORTA_ERROR_BACKEND, "tea_allreduce_sum", "comm",
                       "MPI reduction of %d values failed (%d)", n, mrc);
  }
  if (m) {
    app_timer_stop(m->timers, m->t_reduce);
    m->reductions++;
  }
  return rc;
}
