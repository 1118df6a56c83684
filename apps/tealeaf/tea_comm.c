/** @file tea_comm.c
 *  MPI side of TeaLeaf: halo exchange (apps/common app_halo2d, then the numerics' reflective
 *  physical boundaries) and global sums.
 *
 *  Reproducible sums. tea_allreduce_sum receives each rank's partial sums, already reduced by
 *  the numerics' kernels over the rank's own cells. In reproducible mode the partials of all
 *  ranks are gathered and added *exactly* (app_exact_sum: Shewchuk's algorithm, correctly
 *  rounded), so the global value does not depend on the order of ranks or on MPI's reduction
 *  tree. It is bitwise independent of the number of ranks only if the partials are: with
 *  Porta's deterministic reductions a partial is a fixed tree over the rank's cells, so a
 *  different decomposition rounds differently at the level of ~1 ulp of the partials. Exact
 *  rank-count independence needs the kernels themselves to accumulate exactly (a long /
 *  binned accumulator as the reducer) - not done here. Default mode uses MPI_Allreduce. */
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
}

int tea_comm_create(tea_chunk *c, const app_decomp *d, int reproducible, app_timers *timers) {
  struct tea_comm *m = (struct tea_comm *)calloc(1, sizeof *m);
  if (!m) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_comm_create", "comm", "calloc");
  m->d = *d;
  m->reproducible = reproducible;
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

int tea_allreduce_sum(tea_chunk *c, double *values, int n) {
  struct tea_comm *m = c->comm;
  if (!m) return PORTA_SUCCESS; /* no communicator: a single rank */
  app_timer_start(m->timers, m->t_reduce);
  int rc = app_allreduce_sum(m->d.comm, values, n, m->reproducible);
  app_timer_stop(m->timers, m->t_reduce);
  m->reductions++;
  if (rc != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "tea_allreduce_sum", "comm",
                       "MPI reduction of %d values failed (%d)", n, rc);
  return PORTA_SUCCESS;
}
