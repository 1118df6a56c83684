/** @file peer.c
 *  The peer transport as a queued transport: one kernel a sum or exchange, straight into the
 *  mapped memory of the other GPUs of one node (../exchange_peer.c sets it up, exchange_peer.h
 *  holds its kernels). A device communicator takes it where every rank can (PORTA_DEVICE_COMM:
 *  "nccl" never, "peer" requires it); sums of up to PORTA_PEER_SUM_MAX doubles and plans of
 *  8-byte words go by it, the rest by NCCL. */
#include "transport.h"

static int sum(porta_device_comm *dc, void *queue, double *values, int count) {
  return porta_peer_comm_sum_(dc->peer, queue, values, count);
}

static int create(porta_device_comm *dc, porta_exec exec, int one_node, int *on) {
  (void)exec;
  PORTA_CHECK(porta_peer_comm_create_(dc->comm, dc->rank, dc->nranks, one_node, &dc->peer));
  *on = dc->peer != NULL; /* (agreed over the ranks) */
  return PORTA_SUCCESS;
}

static void release(porta_device_comm *dc) {
  porta_peer_comm_release_(dc->peer);
  dc->peer = NULL;
}

/** The reduction's end adds every rank's value from the mapped inboxes, with no kernel of its
 *  own, where the ranks fit in it. */
static int end_sum(porta_device_comm *dc, porta_reduce_end *end, int *fused) {
  const porta_peer_comm *p = dc->peer;
  *fused = 0;
  if (p->nranks > PORTA_REDUCE_END_RANKS) return PORTA_SUCCESS;
  end->nranks = p->nranks;
  end->rank = p->rank;
  for (int r = 0; r < p->nranks; ++r) end->inbox[r] = p->sum.inbox[r];
  end->runs = &p->sum.state->runs;
  *fused = 1;
  return PORTA_SUCCESS;
}

static int serves(const porta_exchange *x) { return x->word_bytes == 8; }

/** The plan's inbox, mapped by its neighbours, and a first exchange of no field, which proves
 *  the pairs. */
static int prepare(porta_exchange *x, porta_device_comm *dc) {
  (void)dc;
  PORTA_CHECK(porta_peer_plan_prepare_(x));
  void *q;
  PORTA_CHECK(porta_exec_native_queue(x->exec, &q));
  PORTA_CHECK(porta_peer_plan_queue_(x, q, NULL, 0));
  return porta_exec_fence(x->exec, "porta_exchange_prepare_queue");
}

static int queue(porta_exchange *x, porta_device_comm *dc, porta_exec exec, void *q,
                 const porta_view *fields, int nfields) {
  (void)dc;
  (void)exec;
  return porta_peer_plan_queue_(x, q, fields, nfields);
}

const porta_exchange_queued_ops porta_exchange_peer_queued = {PORTA_EXCHANGE_GPU_PEER,
                                                              create,
                                                              release,
                                                              PORTA_PEER_SUM_MAX,
                                                              sum,
                                                              end_sum,
                                                              serves,
                                                              prepare,
                                                              porta_peer_plan_refresh_,
                                                              queue,
                                                              porta_peer_plan_release_};
