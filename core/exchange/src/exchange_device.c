/** @file exchange_device.c
 *  Sums and exchange plans queued on a GPU (porta/exchange_device.h): the device communicator,
 *  which sets up the queued transports of the list (transport/list.c: the peer transport, NCCL)
 *  that can serve its ranks, and hands each sum and each prepared plan to the first that takes
 *  it. Without NCCL in the build every rank refuses the communicator alike. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exchange_private.h"
#include "transport/transport.h"

/** Why a rank cannot take part (exchanged between the ranks as a code). */
enum { CAN = 0, NO_NCCL = 1, NOT_A_GPU = 2, MIXING = 3, SHARED_GPU = 4 };

int porta_device_comm_built(void) { return porta_exchange_nccl_built_(); }

/** This rank's own reason, if any. */
static int local_reason(porta_exec exec) {
  if (!porta_exchange_nccl_built_()) return NO_NCCL;
  if (!porta_exec_query(exec).on_device) return NOT_A_GPU;
  const char *mix = getenv("NCCL_GRAPH_MIXING_SUPPORT");
  if (mix && strcmp(mix, "0") != 0) return MIXING;
  return CAN;
}

typedef struct where {
  uint64_t node;
  int32_t device, reason;
} where;

/** What the ranks agree on: the first rank that cannot take part and why, or two ranks on
 *  one GPU (reason SHARED_GPU, `rank` and `other`, on GPU `device`). */
typedef struct verdict {
  int reason, rank, other, device;
  int one_node; /**< every rank on this node */
} verdict;

/** Every rank's node, GPU and reason, gathered: the verdict (CAN: all can). */
static int agree(MPI_Comm comm, porta_exec exec, int nranks, verdict *v) {
  where me = {porta_exchange_node_id_(), porta_device_id(), local_reason(exec)};
  where *all = (where *)malloc((size_t)nranks * sizeof *all);
  if (!all) /* not an agreed refusal: the caller stops (the other ranks wait in the gather) */
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_device_comm_create", NULL,
                       "no memory for %d ranks", nranks);
  const int rc = MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, comm);
  if (rc != MPI_SUCCESS) {
    free(all);
    return porta_exchange_mpi_error_("porta_device_comm_create", NULL, "MPI_Allgather failed", rc);
  }
  memset(v, 0, sizeof *v);
  v->one_node = 1;
  for (int r = 0; r < nranks; ++r) v->one_node &= all[r].node == me.node;
  for (int r = 0; r < nranks && v->reason == CAN; ++r)
    if (all[r].reason != CAN) {
      v->reason = all[r].reason;
      v->rank = r;
    }
  for (int r = 0; r < nranks && v->reason == CAN; ++r)
    for (int q = r + 1; q < nranks && v->reason == CAN; ++q)
      if (all[r].node == all[q].node && all[r].device == all[q].device) {
        v->reason = SHARED_GPU;
        v->rank = r;
        v->other = q;
        v->device = all[r].device;
      }
  free(all);
  return PORTA_SUCCESS;
}

static int refuse(const verdict *v) {
  const char *op = "porta_device_comm_create";
  switch (v->reason) {
  case NO_NCCL:
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL,
                       "this build has no NCCL (it comes with the CUDA back end where NCCL is "
                       "found: PORTA_ENABLE_NCCL)");
  case NOT_A_GPU:
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "rank %d's execution space is not a GPU",
                       v->rank);
  case MIXING:
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL,
                       "rank %d has NCCL_GRAPH_MIXING_SUPPORT set to another value than 0: "
                       "NCCL's work in a CUDA graph then takes event nodes, which a recorded "
                       "loop cannot hold (unset it or set it to 0)",
                       v->rank);
  default:
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL,
                       "ranks %d and %d share GPU %d of one node (NCCL needs a GPU per rank)",
                       v->rank, v->other, v->device);
  }
}

/** Communicators made so far in this process: ranks make them in the same order, so the n-th
 *  is the same on every rank, which an address need not be. */
static uint64_t made_so_far = 0;

/** `rc`, a step of the creation on this rank, agreed over the ranks: on a failure anywhere the
 *  communicator is destroyed on every rank, and the others say which step failed elsewhere. */
static int agreed(porta_device_comm *dc, int rc, const char *step) {
  int fine = rc == PORTA_SUCCESS, all_fine = 0;
  if (MPI_Allreduce(&fine, &all_fine, 1, MPI_INT, MPI_MIN, dc->comm) != MPI_SUCCESS) all_fine = 0;
  if (all_fine) return PORTA_SUCCESS;
  porta_device_comm_destroy(dc);
  return rc != PORTA_SUCCESS ? rc
                             : porta_error(PORTA_ERROR_BACKEND, "porta_device_comm_create", NULL,
                                           "%s failed on another rank", step);
}

/** One sum by transport t now, waited for: NCCL connects its ranks at a communicator's first
 *  collective (about 2 s on 2 H200s), which belongs to the set-up, not to the first timed
 *  solve. */
static int warm_sum(porta_device_comm *dc, porta_exec exec, const porta_exchange_queued_ops *t) {
  porta_view_f64 one;
  PORTA_CHECK(porta_view_f64_create1(&one, "device_comm_warm_up", 1));
  void *q;
  int rc = porta_exec_native_queue(exec, &q);
  if (rc == PORTA_SUCCESS) rc = t->sum(dc, q, one.data, 1);
  if (rc == PORTA_SUCCESS) rc = porta_exec_fence(exec, "porta_device_comm_create");
  porta_view_f64_release(&one);
  return rc;
}

int porta_device_comm_create(MPI_Comm comm, porta_exec exec, porta_device_comm **out) {
  const char *op = "porta_device_comm_create";
  if (!out) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "out is NULL");
  *out = NULL;
  if (comm == MPI_COMM_NULL)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "the communicator is MPI_COMM_NULL");
  int rank = 0, nranks = 0;
  verdict v = {CAN, 0, 0, 0, 0};
  int rc = MPI_Comm_rank(comm, &rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(comm, &nranks);
  if (rc != MPI_SUCCESS)
    return porta_exchange_mpi_error_(op, NULL, "MPI_Comm_rank or MPI_Comm_size failed", rc);
  PORTA_CHECK(agree(comm, exec, nranks, &v));
  if (v.reason != CAN) return refuse(&v);
  porta_device_comm *dc = (porta_device_comm *)calloc(1, sizeof *dc);
  int made = dc != NULL, all = 0;
  rc = MPI_Allreduce(&made, &all, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS || !all) {
    free(dc);
    return rc != MPI_SUCCESS ? porta_exchange_mpi_error_(op, NULL, "MPI_Allreduce failed", rc)
                             : porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, NULL, "calloc failed");
  }
  dc->comm = comm;
  dc->rank = rank;
  dc->nranks = nranks;
  /* every transport of the list that can serve the ranks, its first sum made, each agreed: a
     rank where one failed must not leave the others using it */
  for (int k = 0; k < porta_exchange_queued_count_; ++k) {
    const porta_exchange_queued_ops *t = porta_exchange_queued_list_[k];
    int on = 0;
    rc = t->create(dc, exec, v.one_node, &on);
    if (on) dc->ops[dc->nops++] = t; /* (released with dc when the agreement fails) */
    if (rc == PORTA_SUCCESS && on) rc = warm_sum(dc, exec, t);
    PORTA_CHECK(agreed(dc, rc, porta_exchange_mode_name_(t->mode)));
  }
  dc->id = ++made_so_far;
  *out = dc;
  return PORTA_SUCCESS;
}

void porta_device_comm_destroy(porta_device_comm *dc) {
  if (!dc) return;
  for (int k = 0; k < dc->nops; ++k) dc->ops[k]->release(dc);
  free(dc);
}

const char *porta_device_comm_transport(const porta_device_comm *dc) {
  return !dc || dc->nops == 0 ? "none" : porta_exchange_mode_name_(dc->ops[0]->mode);
}

int porta_device_comm_sum(porta_device_comm *dc, porta_exec exec, double *values, int count) {
  const char *op = "porta_device_comm_sum";
  if (!dc) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "no device communicator");
  if (count < 0 || (count > 0 && !values))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "%d values at %p", count,
                       (void *)values);
  if (count == 0) return PORTA_SUCCESS;
  void *q;
  PORTA_CHECK(porta_exec_native_queue(exec, &q));
  for (int k = 0; k < dc->nops; ++k)
    if (count <= dc->ops[k]->sum_max) return dc->ops[k]->sum(dc, q, values, count);
  return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "no transport sums %d values", count);
}

int porta_device_comm_end_sum(porta_device_comm *dc, porta_reduce_end *end, int *fused) {
  const char *op = "porta_device_comm_end_sum";
  if (!dc || !end || !fused)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "a device communicator, an end and a result are needed");
  *fused = dc->nranks == 1; /* nothing to add */
  if (*fused || dc->nops == 0) return PORTA_SUCCESS;
  return dc->ops[0]->end_sum(dc, end, fused);
}

int porta_exchange_prepare_queue(porta_exchange *x, porta_device_comm *dc) {
  const char *op = "porta_exchange_prepare_queue";
  if (!x || !dc)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "a plan and a device communicator are needed");
  if (x->queue_comm == dc->id) return PORTA_SUCCESS;
  int same = MPI_UNEQUAL;
  const int rc = MPI_Comm_compare(x->comm, dc->comm, &same);
  if (rc != MPI_SUCCESS) return porta_exchange_fail_(x, op, "MPI_Comm_compare failed", rc);
  if (same != MPI_IDENT && same != MPI_CONGRUENT)
    return porta_error(PORTA_ERROR_INCOMPATIBLE, op, x->label,
                       "the device communicator's ranks are not the plan's communicator's");
  if (!porta_exec_query(x->exec).on_device)
    return porta_error(PORTA_ERROR_INCOMPATIBLE, op, x->label,
                       "the plan packs on the %s back end, not on a GPU",
                       porta_backend_name(x->exec.backend));
  if (x->queue_ops) x->queue_ops->plan_release(x);
  x->queue_ops = NULL;
  x->queue_comm = 0;
  const porta_exchange_queued_ops *t = NULL;
  for (int k = 0; k < dc->nops && !t; ++k)
    if (dc->ops[k]->serves(x)) t = dc->ops[k];
  if (!t)
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, x->label,
                       "no queued transport of the device communicator serves the plan");
  x->queue_ops = t;
  PORTA_CHECK(t->prepare(x, dc));
  x->queue_comm = dc->id;
  x->queue_dc = dc;
  return PORTA_SUCCESS;
}

int porta_exchange_queue(porta_exchange *x, porta_device_comm *dc, porta_exec exec,
                         const porta_view *fields, int nfields) {
  const char *op = "porta_exchange_queue";
  if (!x || !dc)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "a plan and a device communicator are needed");
  if (x->queue_comm != dc->id)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                       "the plan is not prepared for this device communicator "
                       "(porta_exchange_prepare_queue)");
  PORTA_CHECK(porta_exchange_check_fields_(x, op, fields, nfields));
  if (nfields == 0) return PORTA_SUCCESS;
  void *q;
  PORTA_CHECK(porta_exec_native_queue(exec, &q));
  porta_exchange_note_mode_(x->queue_ops->mode);
  return x->queue_ops->queue(x, dc, exec, q, fields, nfields);
}

int porta_exchange_queued(const porta_exchange *x) { return x && x->queue_comm != 0; }

int porta_exchange_run_on(porta_exchange *x, porta_exec exec, const porta_view *fields,
                          int nfields) {
  if (!x)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exchange_run_on", NULL, "no plan");
  if (porta_exchange_queued(x)) return porta_exchange_queue(x, x->queue_dc, exec, fields, nfields);
  return porta_exchange_run(x, fields, nfields);
}

int porta_exchange_start_on(porta_exchange *const *plans, int nplans, porta_exec exec,
                            const porta_view *fields, int nfields) {
  const char *op = "porta_exchange_start_on";
  if (!plans || nplans < 1) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "no plans");
  int queued = 0;
  for (int k = 0; k < nplans; ++k) {
    if (!plans[k]) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "plan %d is NULL", k);
    queued += porta_exchange_queued(plans[k]);
  }
  if (queued == 0) return porta_exchange_start_together(plans, nplans, fields, nfields);
  if (queued < nplans)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, plans[0]->label,
                       "%d of the %d plans are queued on a GPU and the others driven from the "
                       "host: start them apart",
                       queued, nplans);
  /* every check before any plan is queued: a refusal leaves none queued */
  for (int k = 0; k < nplans; ++k) {
    PORTA_CHECK(porta_exchange_check_fields_(plans[k], op, fields, nfields));
    for (int j = 0; j < k; ++j)
      if (plans[j] == plans[k])
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, plans[k]->label,
                           "plan %d is plan %d again", k, j);
  }
  for (int k = 0; k < nplans; ++k)
    PORTA_CHECK(porta_exchange_queue(plans[k], plans[k]->queue_dc, exec, fields, nfields));
  return PORTA_SUCCESS;
}

int porta_exchange_finish_on(porta_exchange *const *plans, int nplans) {
  for (int k = 0; k < nplans; ++k)
    if (!porta_exchange_queued(plans[k])) PORTA_CHECK(porta_exchange_finish(plans[k]));
  return PORTA_SUCCESS;
}
