/** @file exchange_device.c
 *  Sums and exchange plans queued on a GPU through NCCL (porta/exchange_device.h). Without
 *  NCCL in the build (PORTA_EXCHANGE_HAVE_NCCL 0) every rank refuses the communicator alike
 *  and the rest is never reached. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exchange_private.h"

#if PORTA_EXCHANGE_HAVE_NCCL
#include <nccl.h>
#endif

struct porta_device_comm {
  uint64_t id; /**< this process's n-th communicator (plans remember which they are prepared for) */
  MPI_Comm comm;
  int rank, nranks;
  porta_peer_comm *peer; /**< the peer transport (exchange_peer.h), NULL: NCCL's alone */
#if PORTA_EXCHANGE_HAVE_NCCL
  ncclComm_t nccl;
#endif
};

/** Why a rank cannot take part (exchanged between the ranks as a code). */
enum { CAN = 0, NO_NCCL = 1, NOT_A_GPU = 2, MIXING = 3, SHARED_GPU = 4 };

int porta_device_comm_built(void) { return PORTA_EXCHANGE_HAVE_NCCL; }

/** This rank's own reason, if any. */
static int local_reason(porta_exec exec) {
  if (!PORTA_EXCHANGE_HAVE_NCCL) return NO_NCCL;
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

#if PORTA_EXCHANGE_HAVE_NCCL
/** Communicators made so far in this process: ranks make them in the same order, so the n-th
 *  is the same on every rank, which an address need not be. */
static uint64_t made_so_far = 0;

static int nccl_fail(const char *op, const char *label, const char *what, ncclResult_t r) {
  return porta_error(PORTA_ERROR_BACKEND, op, label, "%s: NCCL error %d: %s", what, (int)r,
                     ncclGetErrorString(r));
}

/** The NCCL communicator: an id from rank 0, then every rank's init; fails on all ranks when
 *  it fails on one. */
static int nccl_create(porta_device_comm *dc) {
  const char *op = "porta_device_comm_create";
  /* before NCCL's first call, which reads its configuration files (local_reason refused
     another value in the environment) */
  setenv("NCCL_GRAPH_MIXING_SUPPORT", "0", 0);
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  int ok = 1;
  if (dc->rank == 0) ok = ncclGetUniqueId(&id) == ncclSuccess;
  int rc = MPI_Bcast(&ok, 1, MPI_INT, 0, dc->comm);
  if (rc == MPI_SUCCESS && ok) rc = MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, dc->comm);
  if (rc != MPI_SUCCESS) return porta_exchange_mpi_error_(op, NULL, "MPI_Bcast failed", rc);
  if (!ok) return porta_error(PORTA_ERROR_BACKEND, op, NULL, "ncclGetUniqueId failed on rank 0");
  const ncclResult_t r = ncclCommInitRank(&dc->nccl, dc->nranks, id, dc->rank);
  int mine = r == ncclSuccess, all = 0;
  rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, dc->comm);
  if (rc != MPI_SUCCESS) all = 0;
  if (!all) {
    if (mine) ncclCommAbort(dc->nccl);
    return r != ncclSuccess ? nccl_fail(op, NULL, "ncclCommInitRank", r)
                            : porta_error(PORTA_ERROR_BACKEND, op, NULL,
                                          "ncclCommInitRank failed on another rank");
  }
  return PORTA_SUCCESS;
}
#endif

static int send_receive(porta_exchange *x, porta_device_comm *dc, void *q, int64_t vb,
                        const char *op);

#if PORTA_EXCHANGE_HAVE_NCCL
/** One sum now, waited for: NCCL connects its ranks at a communicator's first collective (about
 *  2 s on 2 H200s), which belongs to the set-up, not to the first timed solve. */
static int warm_sum(porta_device_comm *dc, porta_exec exec) {
  porta_view_f64 one;
  PORTA_CHECK(porta_view_f64_create1(&one, "device_comm_warm_up", 1));
  int rc = porta_device_comm_sum(dc, exec, one.data, 1);
  if (rc == PORTA_SUCCESS) rc = porta_exec_fence(exec, "porta_device_comm_create");
  porta_view_f64_release(&one);
  return rc;
}
#endif

#if PORTA_EXCHANGE_HAVE_NCCL
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
#endif

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
#if PORTA_EXCHANGE_HAVE_NCCL
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
  rc = nccl_create(dc);
  if (rc != PORTA_SUCCESS) {
    free(dc);
    return rc;
  }
  /* the first sum, agreed: a rank where it failed must not leave the others using NCCL */
  rc = warm_sum(dc, exec);
  PORTA_CHECK(agreed(dc, rc, "the first NCCL sum"));
  /* the peer transport where every rank can map the others' memory, warmed like NCCL */
  rc = porta_peer_comm_create_(comm, rank, nranks, v.one_node, &dc->peer);
  if (rc == PORTA_SUCCESS && dc->peer) rc = warm_sum(dc, exec);
  PORTA_CHECK(agreed(dc, rc, "the first peer sum"));
  dc->id = ++made_so_far;
  *out = dc;
  return PORTA_SUCCESS;
#else
  return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "this build has no NCCL"); /* not reached */
#endif
}

void porta_device_comm_destroy(porta_device_comm *dc) {
  if (!dc) return;
  porta_peer_comm_release_(dc->peer);
#if PORTA_EXCHANGE_HAVE_NCCL
  ncclCommDestroy(dc->nccl);
#endif
  free(dc);
}

const char *porta_device_comm_transport(const porta_device_comm *dc) {
  return !dc ? "none" : dc->peer ? "gpu-peer" : "nccl";
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
  if (dc->peer && count <= PORTA_PEER_SUM_MAX)
    return porta_peer_comm_sum_(dc->peer, q, values, count);
#if PORTA_EXCHANGE_HAVE_NCCL
  const ncclResult_t r =
      ncclAllReduce(values, values, (size_t)count, ncclDouble, ncclSum, dc->nccl, (cudaStream_t)q);
  if (r != ncclSuccess) return nccl_fail(op, NULL, "ncclAllReduce", r);
  return PORTA_SUCCESS;
#else
  return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "this build has no NCCL");
#endif
}

int porta_device_comm_end_sum(porta_device_comm *dc, porta_reduce_end *end, int *fused) {
  const char *op = "porta_device_comm_end_sum";
  if (!dc || !end || !fused)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "a device communicator, an end and a result are needed");
  *fused = 0;
  const porta_peer_comm *p = dc->peer;
  if (dc->nranks == 1) {
    *fused = 1;
    return PORTA_SUCCESS;
  }
  if (!p || p->nranks > PORTA_REDUCE_END_RANKS) return PORTA_SUCCESS;
  end->nranks = p->nranks;
  end->rank = p->rank;
  for (int r = 0; r < p->nranks; ++r) end->inbox[r] = p->sum.inbox[r];
  end->runs = &p->sum.state->runs;
  *fused = 1;
  return PORTA_SUCCESS;
}

/** A buffer of `bytes` (at least 1) in `exec`'s memory. */
static int device_buffer(porta_view_u8 *v, const char *label, int64_t bytes, porta_exec exec) {
  const int64_t len = bytes > 0 ? bytes : 1;
  porta_view_options opt = {porta_exec_memory_space(exec), PORTA_LAYOUT_DEFAULT, 0, NULL};
  return porta_view_u8_create(v, label, 1, &len, &opt);
}

/** The messages of an exchange of max_fields fields now (the buffers' contents, not unpacked),
 *  waited for: NCCL connects two ranks at their first send and receive. */
static int warm_exchange(porta_exchange *x, porta_device_comm *dc, int64_t vb) {
  void *q;
  PORTA_CHECK(porta_exec_native_queue(x->exec, &q));
  PORTA_CHECK(send_receive(x, dc, q, vb, "porta_exchange_prepare_queue"));
  return porta_exec_fence(x->exec, "porta_exchange_prepare_queue");
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
  const int64_t vb = (int64_t)x->value_size * x->max_fields;
  porta_view_u8_release(&x->queue_send);
  porta_view_u8_release(&x->queue_recv);
  porta_peer_plan_release_(x);
  x->queue_comm = 0;
  if (dc->peer && x->word_bytes == 8) {
    /* straight into the neighbours' memory; a first exchange of no field proves the pairs */
    PORTA_CHECK(porta_peer_plan_prepare_(x));
    x->queue_comm = dc->id;
    x->queue_dc = dc;
    void *q;
    PORTA_CHECK(porta_exec_native_queue(x->exec, &q));
    PORTA_CHECK(porta_peer_plan_queue_(x, q, NULL, 0));
    return porta_exec_fence(x->exec, op);
  }
  PORTA_CHECK(device_buffer(&x->queue_send, "exchange_queue_send", x->send_total * vb, x->exec));
  PORTA_CHECK(device_buffer(&x->queue_recv, "exchange_queue_recv", x->recv_total * vb, x->exec));
  x->queue_comm = dc->id;
  x->queue_dc = dc;
  return warm_exchange(x, dc, vb);
}

/** One NCCL send and receive per neighbour of values of `vb` bytes, from and into the queue's
 *  buffers, queued on `q`. */
static int send_receive(porta_exchange *x, porta_device_comm *dc, void *q, int64_t vb,
                        const char *op) {
#if PORTA_EXCHANGE_HAVE_NCCL
  ncclResult_t r = ncclGroupStart();
  for (int k = 0; k < x->n && r == ncclSuccess; ++k) {
    if (x->send_count[k] > 0)
      r = ncclSend(x->queue_send.data + x->send_displ[k] * vb, (size_t)(x->send_count[k] * vb),
                   ncclUint8, x->rank[k], dc->nccl, (cudaStream_t)q);
    if (r == ncclSuccess && x->recv_count[k] > 0)
      r = ncclRecv(x->queue_recv.data + x->recv_displ[k] * vb, (size_t)(x->recv_count[k] * vb),
                   ncclUint8, x->rank[k], dc->nccl, (cudaStream_t)q);
  }
  const ncclResult_t e = ncclGroupEnd();
  if (r == ncclSuccess) r = e;
  if (r != ncclSuccess) return nccl_fail(op, x->label, "ncclSend/ncclRecv", r);
  return PORTA_SUCCESS;
#else
  (void)x, (void)dc, (void)q, (void)vb;
  return porta_error(PORTA_ERROR_UNSUPPORTED, op, x->label, "this build has no NCCL");
#endif
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
  if (x->qpeer_on) {
    porta_exchange_note_mode_(PORTA_EXCHANGE_GPU_PEER);
    return porta_peer_plan_queue_(x, q, fields, nfields);
  }
  PORTA_CHECK(porta_exchange_copy_(x, exec, fields, nfields, 1, x->queue_send.data));
  PORTA_CHECK(send_receive(x, dc, q, (int64_t)x->value_size * nfields, op));
  porta_exchange_note_mode_(PORTA_EXCHANGE_NCCL);
  return porta_exchange_copy_(x, exec, fields, nfields, 0, x->queue_recv.data);
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
