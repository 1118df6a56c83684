/** @file exchange_peer.c
 *  The peer transport's set-up (exchange_peer.h): a device communicator's sum inboxes, mapped
 *  by every rank, and a plan's exchange inbox, mapped by its neighbours; and the queued
 *  operations' arguments. */
#include <stdlib.h>
#include <string.h>

#include "exchange_private.h"

/** PORTA_DEVICE_COMM: "nccl" never takes the peer transport, "peer" requires it, anything else
 *  ("auto", unset) takes it where every rank can. */
static int peer_choice(void) {
  const char *e = getenv("PORTA_DEVICE_COMM");
  if (e && !strcmp(e, "nccl")) return 0;
  if (e && !strcmp(e, "peer")) return 2;
  return 1;
}

void porta_peer_comm_release_(porta_peer_comm *p) {
  if (!p) return;
  for (int r = 0; r < p->nranks; ++r)
    if (r != p->rank) porta_ipc_close(p->sum.inbox[r]);
  porta_ipc_free(p->own);
  porta_peer_free_(p->sum.state);
  free(p);
}

/** Every rank's sum inbox mapped here, or a reason (agreed over `comm` by the caller). */
static int map_sum_inboxes(porta_peer_comm *p, MPI_Comm comm) {
  porta_ipc_handle mine;
  /* two buffers of every rank's values, each double two 64-bit words (reduce_end.h) */
  const size_t bytes = 2 * (size_t)p->nranks * PORTA_PEER_SUM_MAX * 16;
  PORTA_CHECK(porta_ipc_alloc(bytes, &p->own, &mine));
  PORTA_CHECK(porta_peer_zero_(p->own, bytes));
  PORTA_CHECK(porta_peer_alloc_(sizeof(porta_peer_state), (void **)&p->sum.state));
  porta_ipc_handle *all = (porta_ipc_handle *)malloc((size_t)p->nranks * sizeof *all);
  if (!all)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_device_comm_create", NULL, "no memory");
  int rc = MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, comm);
  if (rc != MPI_SUCCESS) {
    free(all);
    return porta_exchange_mpi_error_("porta_device_comm_create", NULL, "MPI_Allgather failed", rc);
  }
  rc = PORTA_SUCCESS;
  for (int r = 0; r < p->nranks && rc == PORTA_SUCCESS; ++r)
    rc = r == p->rank ? (p->sum.inbox[r] = (unsigned char *)p->own, PORTA_SUCCESS)
                      : porta_ipc_open(&all[r], (void **)&p->sum.inbox[r]);
  free(all);
  return rc;
}

int porta_peer_comm_create_(MPI_Comm comm, int rank, int nranks, int one_node,
                            porta_peer_comm **out) {
  *out = NULL;
  const int want = peer_choice();
  int can =
      want && one_node && porta_peer_built_() && porta_ipc_available() && nranks <= PORTA_PEER_MAX;
  porta_peer_comm *p = NULL;
  if (can) {
    p = (porta_peer_comm *)calloc(1, sizeof *p);
    can = p != NULL;
  }
  if (p) {
    p->rank = p->sum.rank = rank;
    p->nranks = p->sum.nranks = nranks;
    if (map_sum_inboxes(p, comm) != PORTA_SUCCESS) {
      porta_error_clear(); /* no peer transport: NCCL serves */
      can = 0;
    }
  }
  int all = 0;
  const int rc = MPI_Allreduce(&can, &all, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS || !all) {
    porta_peer_comm_release_(p);
    if (rc != MPI_SUCCESS)
      return porta_exchange_mpi_error_("porta_device_comm_create", NULL, "MPI_Allreduce failed",
                                       rc);
    if (want == 2)
      return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_device_comm_create", NULL,
                         "PORTA_DEVICE_COMM=peer, but %s",
                         !one_node                 ? "the ranks are on more than one node"
                         : nranks > PORTA_PEER_MAX ? "there are more ranks than it serves"
                                                   : "some rank cannot map the others' GPU memory");
    return PORTA_SUCCESS;
  }
  *out = p;
  return PORTA_SUCCESS;
}

int porta_peer_comm_sum_(porta_peer_comm *p, void *queue, double *values, int count) {
  porta_peer_sum_args a = p->sum;
  a.values = values;
  a.count = count;
  return porta_peer_sum_queue_(&a, queue);
}

/** What a rank tells the neighbour of one of its list entries. */
typedef struct peer_offer {
  porta_ipc_handle handle;
  int64_t at, count;    /**< the entry's receive displacement and count, in values */
  int64_t buffer_bytes; /**< each of the rank's two receive buffers */
  int32_t slot, rank;
  int32_t tagged, pad; /**< the rank reads tagged words (PORTA_PEER_EXCHANGE, peer_words) */
} peer_offer;

/** How this process's plans send their words, from PORTA_PEER_EXCHANGE: "tagged" (the default,
 *  unset or empty) sends each 64-bit word as two that carry the run, as the sums do, so a
 *  reader needs no system fence and no flags; "flags" sends plain words and raises a flag after
 *  a system fence. Every rank must choose alike: link_up refuses a pair that differs. */
static int peer_words(porta_exchange *x, const char *op) {
  const char *v = getenv("PORTA_PEER_EXCHANGE");
  if (!v || !*v || !strcmp(v, "tagged"))
    x->qpeer_tagged = 1;
  else if (!strcmp(v, "flags"))
    x->qpeer_tagged = 0;
  else
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                       "PORTA_PEER_EXCHANGE='%s': expected 'tagged' (the default) or 'flags'", v);
  return PORTA_SUCCESS;
}

/** Entry k's mapping is the first of its rank's (the one to close). */
static int first_of_rank(const porta_exchange *x, int k) {
  for (int j = 0; j < k; ++j)
    if (x->rank[j] == x->rank[k]) return 0;
  return 1;
}

/** Close the mappings of every entry whose neighbour offers another inbox (all of them when
 *  `theirs` is NULL); this rank's own inbox is not a mapping. */
static void unmap_changed(porta_exchange *x, const peer_offer *theirs) {
  for (int k = 0; k < x->n; ++k) {
    void *m = x->qpeer_mapped[k];
    if (!m || m == x->qpeer_inbox) continue;
    if (theirs && !memcmp(&x->qpeer_theirs[k], &theirs[k].handle, sizeof theirs[k].handle))
      continue;
    if (first_of_rank(x, k)) porta_ipc_close(m);
    for (int j = k; j < x->n; ++j) /* every entry of that rank lets go of it */
      if (x->qpeer_mapped[j] == m) x->qpeer_mapped[j] = NULL;
  }
}

void porta_peer_plan_release_(porta_exchange *x) {
  if (x->qpeer_mapped) unmap_changed(x, NULL);
  free(x->qpeer_mapped);
  free(x->qpeer_theirs);
  porta_ipc_free(x->qpeer_inbox);
  porta_peer_free_(x->qpeer_links);
  porta_peer_free_(x->qpeer_state);
  x->qpeer_mapped = NULL;
  x->qpeer_theirs = NULL;
  x->qpeer_inbox = NULL;
  x->qpeer_links = NULL;
  x->qpeer_state = NULL;
  x->qpeer_buffer_bytes = 0;
}

/** Map neighbour entry k's inbox where it is not mapped (once per neighbour rank; this rank's
 *  own is not mapped). */
static int map_inbox(porta_exchange *x, int k, int me, const peer_offer *theirs) {
  x->qpeer_theirs[k] = theirs[k].handle;
  if (x->qpeer_mapped[k]) return PORTA_SUCCESS;
  if (x->rank[k] == me) {
    x->qpeer_mapped[k] = x->qpeer_inbox;
    return PORTA_SUCCESS;
  }
  for (int j = 0; j < k; ++j)
    if (x->rank[j] == x->rank[k] && x->qpeer_mapped[j]) {
      x->qpeer_mapped[k] = x->qpeer_mapped[j];
      return PORTA_SUCCESS;
    }
  return porta_ipc_open(&theirs[k].handle, &x->qpeer_mapped[k]);
}

/** An inbox whose two buffers hold the receives of max_fields fields: the one there is kept
 *  when they fit, else a new one a quarter larger than needed (room for updates), the old one
 *  left in *old (the neighbours still have it mapped) and this rank's own entries unmapped. */
static int reserve_inbox(porta_exchange *x, const char *op, void **old) {
  *old = NULL;
  PORTA_CHECK(peer_words(x, op));
  const int64_t need =
      ((int64_t)x->value_size * x->max_fields * x->recv_total * (x->qpeer_tagged ? 2 : 1) + 255) /
      256 * 256;
  if (x->qpeer_inbox && need <= x->qpeer_buffer_bytes) return PORTA_SUCCESS;
  const int64_t bytes = (need + need / 4 + 255) / 256 * 256; /* room for updates to grow */
  const size_t inbox_bytes = PORTA_PEER_FLAG_BYTES + 2 * (size_t)bytes;
  void *inbox = NULL;
  porta_ipc_handle handle;
  PORTA_CHECK(porta_ipc_alloc(inbox_bytes, &inbox, &handle));
  const int rc = porta_peer_zero_(inbox, inbox_bytes);
  if (rc != PORTA_SUCCESS) {
    porta_ipc_free(inbox);
    return rc;
  }
  for (int k = 0; k < x->n; ++k)
    if (x->qpeer_mapped[k] == x->qpeer_inbox) x->qpeer_mapped[k] = NULL;
  *old = x->qpeer_inbox;
  x->qpeer_inbox = inbox;
  x->qpeer_handle = handle;
  x->qpeer_buffer_bytes = bytes;
  return PORTA_SUCCESS;
}

/** Whether every neighbour could map this rank's inbox, and this rank theirs (`ok`): agreed
 *  pairwise, so that a pair that could not fails on both sides now, not at its next step. */
static int agree_pairs(porta_exchange *x, const char *op, int ok, int rc) {
  const size_t nn = (size_t)(x->n > 0 ? x->n : 1);
  int *oks = (int *)calloc(2 * nn, sizeof(int));
  if (!oks)
    return rc != PORTA_SUCCESS ? rc
                               : porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, x->label, "no memory");
  int *in = oks + nn;
  for (int k = 0; k < x->n; ++k) oks[k] = ok;
  const int src = porta_exchange_swap_(x, op, "agreement", NULL, oks, in, (int)sizeof(int));
  for (int k = 0; k < x->n && src == PORTA_SUCCESS; ++k)
    if (!in[k] && rc == PORTA_SUCCESS)
      rc =
          porta_error(PORTA_ERROR_BACKEND, op, x->label,
                      "neighbour %d (rank %d) could not map this rank's GPU memory", k, x->rank[k]);
  if (src != PORTA_SUCCESS && rc == PORTA_SUCCESS) rc = src;
  free(oks);
  return rc;
}

/** The offers swapped with the neighbours (this rank's inbox, receive displacements and
 *  counts), their inboxes mapped where new, the links uploaded. A new inbox takes the flags of
 *  the one it replaces (`old`) once the neighbours have swapped, so done writing there: a
 *  writer to a one-way reader waits for the reader's finished runs, which would else restart
 *  at 0.
 *  After a failure here (`rc`) the swaps still take place, so the neighbours do not wait, and
 *  the pairs fail together. */
static int link_up(porta_exchange *x, const char *op, const void *old, int rc) {
  int me = -1;
  MPI_Comm_rank(x->comm, &me);
  const size_t nn = (size_t)(x->n > 0 ? x->n : 1);
  peer_offer *mine = (peer_offer *)calloc(2 * nn, sizeof *mine);
  porta_peer_link *links = (porta_peer_link *)calloc(nn, sizeof *links);
  if (!mine || !links) {
    free(mine);
    free(links);
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, x->label, "no memory"); /* (a hang) */
  }
  peer_offer *theirs = mine + nn;
  for (int k = 0; k < x->n && rc == PORTA_SUCCESS; ++k) {
    mine[k].handle = x->qpeer_handle;
    mine[k].at = x->recv_displ[k];
    mine[k].count = x->recv_count[k];
    mine[k].buffer_bytes = x->qpeer_buffer_bytes;
    mine[k].slot = k;
    mine[k].rank = me;
    mine[k].tagged = x->qpeer_tagged;
  }
  const int src =
      porta_exchange_swap_(x, op, "offers", NULL, mine, theirs, (int)sizeof(peer_offer));
  if (rc == PORTA_SUCCESS) rc = src;
  if (rc == PORTA_SUCCESS) unmap_changed(x, theirs);
  for (int k = 0; k < x->n && rc == PORTA_SUCCESS; ++k) {
    if (theirs[k].count != x->send_count[k])
      rc = porta_error(PORTA_ERROR_INCOMPATIBLE, op, x->label,
                       "neighbour %d (rank %d) receives %lld values from this rank, which sends "
                       "%lld",
                       k, x->rank[k], (long long)theirs[k].count, (long long)x->send_count[k]);
    if (rc == PORTA_SUCCESS && theirs[k].tagged != x->qpeer_tagged)
      rc = porta_error(PORTA_ERROR_INCOMPATIBLE, op, x->label,
                       "neighbour %d (rank %d) has PORTA_PEER_EXCHANGE=%s, this rank %s: set it "
                       "alike on every rank",
                       k, x->rank[k], theirs[k].tagged ? "tagged" : "flags",
                       x->qpeer_tagged ? "tagged" : "flags");
    if (rc == PORTA_SUCCESS) rc = map_inbox(x, k, me, theirs);
    links[k].inbox = (unsigned char *)x->qpeer_mapped[k];
    links[k].at = theirs[k].at;
    links[k].first = x->send_displ[k];
    links[k].count = x->send_count[k];
    links[k].slot = theirs[k].slot;
    links[k].buffer_bytes = theirs[k].buffer_bytes;
    links[k].one_way = x->send_count[k] > 0 && x->recv_count[k] == 0;
  }
  if (rc == PORTA_SUCCESS && old) rc = porta_peer_copy_(x->qpeer_inbox, old, PORTA_PEER_FLAG_BYTES);
  rc = agree_pairs(x, op, rc == PORTA_SUCCESS, rc);
  if (rc == PORTA_SUCCESS && x->n > 0)
    rc = porta_peer_upload_(x->qpeer_links, links, (size_t)x->n * sizeof *links);
  free(mine);
  free(links);
  return rc;
}

int porta_peer_plan_prepare_(porta_exchange *x) {
  const char *op = "porta_exchange_prepare_queue";
  if (x->n > PORTA_PEER_MAX)
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, x->label, "%d neighbours (at most %d)", x->n,
                       PORTA_PEER_MAX);
  porta_peer_plan_release_(x);
  const size_t nn = (size_t)(x->n > 0 ? x->n : 1);
  x->qpeer_mapped = (void **)calloc(nn, sizeof(void *));
  x->qpeer_theirs = (porta_ipc_handle *)calloc(nn, sizeof(porta_ipc_handle));
  void *old = NULL;
  int rc = x->qpeer_mapped && x->qpeer_theirs
               ? PORTA_SUCCESS
               : porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, x->label, "no memory");
  if (rc == PORTA_SUCCESS) rc = reserve_inbox(x, op, &old);
  if (rc == PORTA_SUCCESS)
    rc = porta_peer_alloc_(sizeof(porta_peer_state), (void **)&x->qpeer_state);
  if (rc == PORTA_SUCCESS)
    rc = porta_peer_alloc_(nn * sizeof(porta_peer_link), (void **)&x->qpeer_links);
  rc = link_up(x, op, NULL, rc);
  if (rc != PORTA_SUCCESS) {
    porta_peer_plan_release_(x);
    return rc;
  }
  return PORTA_SUCCESS;
}

int porta_peer_plan_refresh_(porta_exchange *x) {
  const char *op = "porta_exchange_update";
  void *old = NULL;
  const int reserved = reserve_inbox(x, op, &old);
  int rc = link_up(x, op, old, reserved);
  /* the neighbours let go of the old inbox in link_up (a new handle is unmapped there) */
  porta_ipc_free(old);
  if (rc != PORTA_SUCCESS) porta_peer_plan_release_(x);
  return rc;
}

int porta_peer_plan_queue_(porta_exchange *x, void *queue, const porta_view *fields, int nfields) {
  porta_peer_exchange_args a;
  memset(&a, 0, sizeof a);
  for (int f = 0; f < nfields; ++f) a.field[f] = fields[f].data;
  a.nfields = nfields;
  a.words = (int)(x->value_size / 8);
  a.nlinks = a.nwriters = x->n;
  a.accumulate = x->accumulate;
  a.tagged = x->qpeer_tagged;
  for (int k = 0; k < x->n; ++k) a.one_way |= x->send_count[k] > 0 && x->recv_count[k] == 0;
  a.send_index = x->send_index.data;
  a.recv_index = x->recv_index.data;
  a.send_total = x->send_total;
  a.recv_total = x->recv_total;
  a.links = x->qpeer_links;
  a.inbox = (unsigned char *)x->qpeer_inbox;
  a.buffer_bytes = x->qpeer_buffer_bytes;
  a.state = x->qpeer_state;
  return porta_peer_exchange_queue_(&a, queue);
}
