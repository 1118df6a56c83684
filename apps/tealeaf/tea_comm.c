/** @file tea_comm.c
 *  MPI side of TeaLeaf: halo exchange (apps/common porta_halo2d, then the numerics' reflective
 *  physical boundaries) and global sums (apps/common app_sum, c->sum).
 *
 *  Reproducible sums. In reproducible mode (--reproducible: c->reproducible) c->sum is exact:
 *  every reduction kernel of the numerics (an APP_SUM_KERNEL_MD2) accumulates its cells exactly
 *  into porta_xsum_f64 superaccumulators, and tea_allreduce_sum adds their integer limbs over
 *  the ranks with MPI_SUM (exact, so MPI's reduction order does not matter) and rounds once.
 *  Every global sum is therefore the correctly rounded exact sum over all cells, a function of
 *  the cell values alone: bitwise independent of the rank count, the thread count and the back
 *  end, and so are the fields computed from it. Default mode sums doubles with MPI_Allreduce
 *  and differs between decompositions in the last bits. */
#include "tea_comm.h"

#include <stdlib.h>
#include <string.h>

#include "app_env.h"

void tea_chunk_setup(tea_chunk *c, const porta_decomp *d, const tea_settings *s, porta_exec exec) {
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
  c->phys_left = porta_decomp_is_boundary(d, 0, PORTA_LOW);
  c->phys_right = porta_decomp_is_boundary(d, 0, PORTA_HIGH);
  c->phys_bottom = porta_decomp_is_boundary(d, 1, PORTA_LOW);
  c->phys_top = porta_decomp_is_boundary(d, 1, PORTA_HIGH);
  c->exec = exec;
  c->reproducible = s->reproducible;
}

/** Several ranks whose solves may run as recorded loops on GPUs (tea_loop_wanted's
 *  conditions but the ranks): the device communicator, and p's and u's exchanges prepared
 *  for it. Collective; where NCCL cannot serve (no NCCL in the build, ranks sharing a GPU)
 *  every rank alike keeps the host loop, and the reason goes to the report. */
static int device_comm(tea_chunk *c, struct tea_comm *m) {
  const bool gpu = porta_exec_query(c->exec).on_device;
  if (m->d.nranks < 2 || !app_env_flag("TEA_DEVICE_LOOP", gpu)) return PORTA_SUCCESS;
  PORTA_CHECK(
      app_device_comm_try(m->d.comm, c->exec, &m->device, m->device_note, sizeof m->device_note));
  return m->device ? porta_halo2d_prepare_queue(&m->halo, m->device, tea_field(c, TEA_FIELD_U))
                   : PORTA_SUCCESS;
}

int tea_comm_create(tea_chunk *c, const porta_decomp *d, app_timers *timers) {
  struct tea_comm *m = (struct tea_comm *)calloc(1, sizeof *m);
  if (!m) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_comm_create", "comm", "calloc");
  m->d = *d;
  m->timers = timers;
  m->t_halo = timers ? app_timer_id(timers, "MPI halo exchange") : -1;
  /* fields are (y, x): x is view dimension 1 */
  int rc = porta_halo2d_create(&m->halo, d, c->halo, 1, TEA_NUM_EXCHANGE_FIELDS, c->exec);
  /* a GPU with neighbours (more than one rank: the domain is not periodic): the exchange of
     CG's p, of Chebyshev's u and of PPCG's inner sd and rtemp can run beside the update of the
     inside cells (tea_step.c) on a stream of its own whose small kernels go first. Every rank must
     take the same path (the two halos' plans meet their neighbours' of the same kind only), and the
     edge and the inside need 3 x 3 cells on every rank. */
  int smallest = c->nx < c->ny ? c->nx : c->ny, all = smallest;
  if (d->comm != MPI_COMM_NULL &&
      MPI_Allreduce(&smallest, &all, 1, MPI_INT, MPI_MIN, d->comm) != MPI_SUCCESS &&
      rc == PORTA_SUCCESS)
    rc = porta_error(PORTA_ERROR_BACKEND, "tea_comm_create", "comm", "MPI_Allreduce failed");
  /* TEA_HALO_BESIDE=0: never, 1: on host back ends too (tests) */
  const int beside = app_env_flag("TEA_HALO_BESIDE", porta_exec_query(c->exec).async_instances);
  if (rc == PORTA_SUCCESS && d->nranks > 1 && all >= 3 && beside) {
    rc = porta_exec_create_instance_with_priority(c->exec.backend, PORTA_PRIORITY_HIGH, &m->beside);
    if (rc == PORTA_SUCCESS) {
      m->has_beside = 1;
      m->beside_cells = all;
      rc = porta_halo2d_create(&m->halo_beside, d, c->halo, 1, 2, m->beside);
      m->halo_beside.tag = m->halo.tag + 2 * c->halo; /* after the main halo's */
    }
  }
  /* the plans (buffers, IPC mappings) now, not in the first step's timed solve */
  if (rc == PORTA_SUCCESS) rc = porta_halo2d_prepare(&m->halo, tea_field(c, TEA_FIELD_U));
  if (rc == PORTA_SUCCESS && m->has_beside)
    rc = porta_halo2d_prepare(&m->halo_beside, tea_field(c, TEA_FIELD_U));
  if (rc == PORTA_SUCCESS) rc = app_sum_create(&c->sum, d->comm, c->reproducible, timers);
  /* what went before is this rank's alone (the buffers: an allocation may fail on some ranks
     only, under a memory limit); the device communicator is collective, so every rank goes on
     to it or none does */
  if (d->comm != MPI_COMM_NULL)
    rc = app_mpi_agree(rc, "tea_comm_create", "the halo exchanges could not be set up", d->comm);
  if (rc == PORTA_SUCCESS) rc = device_comm(c, m);
  if (rc != PORTA_SUCCESS) {
    porta_device_comm_destroy(m->device);
    porta_halo2d_destroy(&m->halo);
    if (m->has_beside) {
      porta_halo2d_destroy(&m->halo_beside);
      porta_exec_destroy_instance(m->beside);
    }
    free(m);
    return rc;
  }
  c->comm = m;
  return PORTA_SUCCESS;
}

void tea_comm_destroy(tea_chunk *c) {
  if (c->sum) app_sum_destroy(c->sum);
  c->sum = NULL;
  if (!c->comm) return;
  porta_halo2d_destroy(&c->comm->halo);
  if (c->comm->has_beside) {
    porta_halo2d_destroy(&c->comm->halo_beside);
    porta_exec_destroy_instance(c->comm->beside);
  }
  porta_device_comm_destroy(c->comm->device);
  free(c->comm);
  c->comm = NULL;
}

int tea_halo_exchange(tea_chunk *c, const int *fields, int nfields, int depth) {
  PORTA_CHECK(tea_halo_exchange_neighbours(c, fields, nfields, depth));
  return tea_reflect_boundaries(c, fields, nfields, depth);
}

int tea_halo_beside(const tea_chunk *c, porta_exec *side) {
  return tea_halo_beside_depth(c, 1, side);
}

int tea_halo_beside_depth(const tea_chunk *c, int depth, porta_exec *side) {
  if (!c->comm || !c->comm->has_beside || c->comm->queueing ||
      c->comm->beside_cells < 2 * depth + 1)
    return 0;
  *side = c->comm->beside;
  return 1;
}

/** Views of the listed field ids. */
static int field_views(tea_chunk *c, const int *fields, int nfields, porta_view_f64 *views) {
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
  return PORTA_SUCCESS;
}

int tea_halo_exchange_beside(tea_chunk *c, const int *fields, int nfields, int depth) {
  struct tea_comm *m = c->comm;
  if (!m || !m->has_beside)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_halo_exchange_beside", "halo",
                       "no instance beside the chunk's (see tea_halo_beside)");
  porta_view_f64 views[TEA_NUM_EXCHANGE_FIELDS];
  PORTA_CHECK(field_views(c, fields, nfields, views));
  app_timer_start(m->timers, m->t_halo);
  int rc = porta_halo2d_exchange(&m->halo_beside, views, nfields, depth);
  if (rc == PORTA_SUCCESS) rc = porta_exec_fence(m->beside, "tea_halo_exchange_beside");
  app_timer_stop(m->timers, m->t_halo);
  return rc;
}

int tea_halo_exchange_neighbours(tea_chunk *c, const int *fields, int nfields, int depth) {
  struct tea_comm *m = c->comm;
  porta_view_f64 views[TEA_NUM_EXCHANGE_FIELDS];
  PORTA_CHECK(field_views(c, fields, nfields, views));
  if (m && m->d.nranks > 1 && m->queueing) /* in a loop's body: queued on its space */
    return porta_halo2d_queue(&m->halo, m->device, c->exec, views, nfields, depth);
  if (m && m->d.nranks > 1) { /* one rank has no neighbour (and a loop's body must not wait) */
    app_timer_start(m->timers, m->t_halo);
    int rc = porta_halo2d_exchange(&m->halo, views, nfields, depth);
    app_timer_stop(m->timers, m->t_halo);
    if (rc != PORTA_SUCCESS) return rc;
  }
  return PORTA_SUCCESS;
}

bool tea_has_neighbours(const tea_chunk *c) { return c->comm && c->comm->d.nranks > 1; }

const struct porta_device_comm *tea_loop_device_comm(const tea_chunk *c) {
  return c->comm ? c->comm->device : NULL;
}

const char *tea_loop_transport(const tea_chunk *c) {
  return c->comm ? porta_device_comm_transport(c->comm->device) : "none";
}

const char *tea_loop_queue_note(const tea_chunk *c) { return c->comm ? c->comm->device_note : ""; }

void tea_set_queueing(tea_chunk *c, bool on) {
  if (c->comm) c->comm->queueing = on && c->comm->device;
}

int tea_halo_exchange_faces(tea_chunk *c, porta_exec exec, int field) {
  if (!tea_has_neighbours(c)) return PORTA_SUCCESS;
  struct tea_comm *m = c->comm;
  if (!m->queueing) /* from the host */
    return m->has_beside && exec.backend == m->beside.backend && exec.instance == m->beside.instance
               ? tea_halo_exchange_beside(c, &field, 1, 1)
               : tea_halo_exchange_neighbours(c, &field, 1, 1);
  porta_view_f64 view;
  PORTA_CHECK(field_views(c, &field, 1, &view));
  return porta_halo2d_queue_faces(&m->halo, m->device, exec, &view, 1);
}

int tea_side(const tea_chunk *c, porta_exec *side) {
  const struct tea_comm *m = c->comm;
  if (!m || !m->queueing) return tea_halo_beside(c, side);
  if (!m->has_beside || !m->device || m->beside_cells < 3 || !app_env_flag("TEA_LOOP_OVERLAP", 1))
    return 0;
  *side = m->beside;
  return 1;
}

int tea_allreduce_sum(tea_chunk *c, double *values, int n) {
  if (c->sum) return app_sum_allreduce(c->sum, values, n);
  if (c->reproducible) /* the exact accumulators live in c->sum */
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_allreduce_sum", "comm",
                       "reproducible mode without a summation state (tea_comm_create)");
  return PORTA_SUCCESS; /* no communication state: a single rank */
}

/** With exact sums the answers must not depend on the ranks, but the block preconditioner's
 *  blocks start at each chunk's first row (the reference's): so the ranks along y split whole
 *  blocks, and the blocks lie where one rank has them. */
static void tea_split_blocks(const tea_settings *s, porta_decomp *d) {
  const int64_t blocks = (s->y_cells + TEA_JAC_BLOCK - 1) / TEA_JAC_BLOCK;
  if (blocks < d->dims[1])
    app_exit_all(APP_EXIT_BAD_INPUT,
                 "exact sums (the default except with several ranks on GPUs, --sums exact or "
                 "--reproducible) with tl_preconditioner_type jac_block: y_cells=%lld makes %lld "
                 "blocks of %d rows, fewer than the %d ranks along y (--sums ordinary lifts "
                 "this)",
                 (long long)s->y_cells, (long long)blocks, TEA_JAC_BLOCK, d->dims[1]);
  int64_t first = 0, count = 0;
  porta_split(blocks, d->dims[1], d->coords[1], &first, &count);
  const int64_t end = (first + count) * TEA_JAC_BLOCK;
  d->offset[1] = first * TEA_JAC_BLOCK;
  d->local[1] = (end < s->y_cells ? end : s->y_cells) - d->offset[1];
}

void tea_decompose(const tea_settings *s, porta_decomp *d) {
  const int64_t cells[2] = {s->x_cells, s->y_cells};
  if (porta_decomp_create(MPI_COMM_WORLD, 2, cells, NULL, d))
    app_exit_all(APP_EXIT_BAD_INPUT, "%s", porta_last_error_message());
  if (s->reproducible && s->preconditioner == TEA_PRECON_JAC_BLOCK && d->dims[1] > 1)
    tea_split_blocks(s, d);
  for (int dim = 0; dim < 2; ++dim)
    if (d->dims[dim] > 1 && cells[dim] / d->dims[dim] < s->halo_depth)
      app_exit_all(APP_EXIT_BAD_INPUT,
                   "%d ranks along %c leave some with %lld cells, fewer than halo_depth %d",
                   d->dims[dim], "xy"[dim], (long long)(cells[dim] / d->dims[dim]),
                   s -> halo_depth);
}
