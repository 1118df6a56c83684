/** @file channel.c
 *  Messages of any length between pairs of ranks (porta_channel.h).
 *
 *  One porta_channel_sendrecv is up to four rounds of MPI messages with `to` and `from`:
 *  1. the sizes: this rank tells `to` how much it sends and `from` how much room its buffer
 *     for `from` has (and both whether they can use CUDA IPC and on which node they are);
 *     since every rank fences before this round, "room" also means "free";
 *  2. only when a message does not fit an IPC buffer: the receiver allocates a larger one and
 *     sends its handle, the sender maps it;
 *  3. after 2, the sender's answer (mapped or not): the receiver frees the old buffer, and
 *     a pair whose mapping failed goes through the host from then on;
 *  4. the message, or over IPC a word sent after the copy into the receiver's buffer ended.
 *  Both ends of a pair decide alike from the same round-1 values whether a message goes by
 *  IPC and whether a new buffer is needed. */
#include "porta/exchange_channel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange_private.h"
#include "transport/transport.h"

/** What this rank knows about one rank it exchanged messages with. */
typedef struct channel_peer {
  int rank;
  int send_failed, recv_failed; /**< the pair's mapping failed: through the host */
  void *recv_buf;               /**< IPC: the buffer this peer writes into (ours) */
  porta_ipc_handle recv_handle;
  int64_t recv_cap;   /**< its doubles */
  void *mapped;       /**< IPC: the peer's buffer for our messages, mapped here */
  int64_t mapped_cap; /**< its doubles */
  void *old_recv_buf; /**< replaced, freed once the peer mapped the new one */
} channel_peer;

struct porta_channel {
  char label[PORTA_LABEL_MAX];
  MPI_Comm comm;
  porta_exec exec;
  int tag, me, ipc_able;
  uint64_t node;
  const porta_exchange_transport_ops *host_transport; /**< how a message goes when not by IPC */
  porta_view_f64 send_buf;                            /**< exec's memory */
  porta_view_f64 recv_buf;               /**< exec's memory (messages not received by IPC) */
  porta_view_f64 stage_send, stage_recv; /**< staging memory (a staged transport) */
  porta_memory_space staging;            /**< exec's staging space (pinned host on a GPU) */
  porta_view_f64 recv_view;              /**< what the last call returned */
  channel_peer *peer;
  int npeer, peer_cap;
  unsigned modes;
};

/** Round 1's message: sender to receiver the size, receiver to sender its room. */
typedef struct channel_hello {
  int64_t count;
  uint64_t node;
  int32_t ipc_able, pad;
} channel_hello;

/** Round 2's message: a new receive buffer. */
typedef struct channel_buffer {
  porta_ipc_handle handle;
  int64_t cap;
} channel_buffer;

/** An MPI call of the channel; `what` (a literal) names it in the error. */
#define CH_MPI(ch, what, call)                                                                     \
  do {                                                                                             \
    const int rc_ = (call);                                                                        \
    if (rc_ != MPI_SUCCESS)                                                                        \
      return porta_exchange_mpi_error_("porta_channel", (ch)->label, what " failed", rc_);         \
  } while (0)

int porta_channel_create(porta_channel **out, const char *label, MPI_Comm comm, porta_exec exec,
                         int tag) {
  *out = NULL;
  porta_channel *ch = (porta_channel *)calloc(1, sizeof *ch);
  if (!ch)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_channel_create", label, "no memory");
  snprintf(ch->label, sizeof ch->label, "%s", label ? label : "channel");
  ch->comm = comm;
  ch->exec = exec;
  ch->staging = porta_exec_query(exec).staging_space;
  ch->tag = tag;
  MPI_Comm_rank(comm, &ch->me);
  porta_memory_space space;
  int rc = porta_exchange_buffer_space(exec, &space);
  if (rc != PORTA_SUCCESS) {
    free(ch);
    return rc;
  }
  const int host_reach = space == porta_exec_memory_space(exec);
  /* the plans' choice without IPC: a channel maps its neighbours' memory per peer (ipc_able) */
  ch->host_transport = porta_exchange_transport_choose_(exec, host_reach, 0);
  ch->ipc_able = !host_reach && porta_exchange_ipc_wanted_(exec);
  ch->node = porta_exchange_node_id_();
  *out = ch;
  return PORTA_SUCCESS;
}

void porta_channel_destroy(porta_channel *ch) {
  if (!ch) return;
  for (int k = 0; k < ch->npeer; ++k) {
    channel_peer *p = &ch->peer[k];
    porta_ipc_close(p->mapped);
    porta_ipc_free(p->recv_buf);
    porta_ipc_free(p->old_recv_buf);
  }
  free(ch->peer);
  porta_view_f64_release(&ch->send_buf);
  porta_view_f64_release(&ch->recv_buf);
  porta_view_f64_release(&ch->stage_send);
  porta_view_f64_release(&ch->stage_recv);
  porta_view_f64_release(&ch->recv_view);
  free(ch);
}

/** *v holds at least n doubles in `space` (contents not kept when it grows). */
static int reserve(porta_view_f64 *v, const char *label, int64_t n, porta_memory_space space) {
  if (v->data && porta_extent(*v, 0) >= n) return PORTA_SUCCESS;
  porta_view_f64_release(v);
  const int64_t len = n + n / 4 + 1024;
  porta_view_options opt = {space, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNINITIALIZED, NULL};
  return porta_view_f64_create(v, label, 1, &len, &opt);
}

int porta_channel_send_buffer(porta_channel *ch, int64_t n, porta_view_f64 *buf) {
  if (n < 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_channel_send_buffer", ch->label,
                       "a negative size %lld", (long long)n);
  PORTA_CHECK(reserve(&ch->send_buf, "channel_send", n, porta_exec_memory_space(ch->exec)));
  *buf = ch->send_buf;
  return PORTA_SUCCESS;
}

static int find_peer(porta_channel *ch, int rank, channel_peer **out) {
  for (int k = 0; k < ch->npeer; ++k)
    if (ch->peer[k].rank == rank) {
      *out = &ch->peer[k];
      return PORTA_SUCCESS;
    }
  if (ch->npeer == ch->peer_cap) {
    const int cap = ch->peer_cap ? 2 * ch->peer_cap : 8;
    channel_peer *p = (channel_peer *)realloc(ch->peer, (size_t)cap * sizeof *p);
    if (!p) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_channel", ch->label, "no memory");
    ch->peer = p;
    ch->peer_cap = cap;
  }
  channel_peer *p = &ch->peer[ch->npeer++];
  memset(p, 0, sizeof *p);
  p->rank = rank;
  *out = p;
  return PORTA_SUCCESS;
}

/** Rounds 2 and 3: a new receive buffer for `from` (grow_recv) and/or a new mapping of
 *  `to`'s (grow_send, the handle in round 2). */
static int replace_buffers(porta_channel *ch, channel_peer *pt, channel_peer *pf, int grow_recv,
                           int grow_send, int64_t nr) {
  MPI_Request req[2];
  int nreq = 0;
  channel_buffer mine, theirs;
  memset(&mine, 0, sizeof mine);
  if (grow_recv) {
    const int64_t cap = nr + nr / 4 + 1024;
    porta_ipc_free(pf->old_recv_buf);
    pf->old_recv_buf = pf->recv_buf;
    pf->recv_buf = NULL;
    /* a failed allocation still answers (cap -1), so the sender does not wait for ever: the
       pair then goes through the host */
    if (porta_ipc_alloc((size_t)cap * sizeof(double), &pf->recv_buf, &pf->recv_handle) ==
        PORTA_SUCCESS) {
      pf->recv_cap = cap;
      mine.handle = pf->recv_handle;
      mine.cap = cap;
    } else {
      porta_error_clear();
      pf->recv_buf = NULL;
      pf->recv_cap = 0;
      mine.cap = -1;
    }
    CH_MPI(ch, "MPI_Isend (buffer)",
           MPI_Isend(&mine, (int)sizeof mine, MPI_BYTE, pf->rank, ch->tag + 2, ch->comm,
                     &req[nreq++]));
  }
  if (grow_send)
    CH_MPI(ch, "MPI_Irecv (buffer)",
           MPI_Irecv(&theirs, (int)sizeof theirs, MPI_BYTE, pt->rank, ch->tag + 2, ch->comm,
                     &req[nreq++]));
  CH_MPI(ch, "MPI_Waitall (buffer)", MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  int mapped_ok = 0, their_ok = 0;
  nreq = 0;
  if (grow_send) {
    porta_ipc_close(pt->mapped);
    pt->mapped = NULL;
    pt->mapped_cap = 0;
    if (theirs.cap >= 0 && porta_ipc_open(&theirs.handle, &pt->mapped) == PORTA_SUCCESS) {
      mapped_ok = 1;
      pt->mapped_cap = theirs.cap;
    } else {
      porta_error_clear();
      pt->mapped = NULL;
      pt->send_failed = 1;
    }
    CH_MPI(ch, "MPI_Isend (mapped)",
           MPI_Isend(&mapped_ok, 1, MPI_INT, pt->rank, ch->tag + 3, ch->comm, &req[nreq++]));
  }
  if (grow_recv)
    CH_MPI(ch, "MPI_Irecv (mapped)",
           MPI_Irecv(&their_ok, 1, MPI_INT, pf->rank, ch->tag + 3, ch->comm, &req[nreq++]));
  CH_MPI(ch, "MPI_Waitall (mapped)", MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  if (grow_recv) {
    porta_ipc_free(pf->old_recv_buf); /* the sender let go of it before mapping the new one */
    pf->old_recv_buf = NULL;
    if (!their_ok) { /* the pair goes through the host from now on */
      pf->recv_failed = 1;
      porta_ipc_free(pf->recv_buf);
      pf->recv_buf = NULL;
      pf->recv_cap = 0;
    }
  }
  return PORTA_SUCCESS;
}

/** *v: an unmanaged view of n doubles at p in exec's memory. */
static int wrap(porta_channel *ch, void *p, int64_t n, porta_view_f64 *v) {
  porta_view_f64_release(v);
  const int64_t len = n > 0 ? n : 0;
  porta_view_options opt = {porta_exec_memory_space(ch->exec), PORTA_LAYOUT_DEFAULT,
                            PORTA_VIEW_UNMANAGED, NULL};
  return porta_view_f64_wrap(v, (double *)p, "channel_recv", 1, &len, &opt);
}

/** The longest message, in doubles (MPI counts bytes in an int). */
#define CHANNEL_MAX_DOUBLES ((int64_t)(INT32_MAX / 8))

/** The error of a message of n doubles, too long for MPI. */
static int too_long(porta_channel *ch, const char *op, int64_t n) {
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, ch->label,
                     "a message of %lld doubles is too long for MPI (at most %lld)", (long long)n,
                     (long long)CHANNEL_MAX_DOUBLES);
}

/** What rounds 1-3 settled for one call. */
typedef struct channel_pair {
  channel_peer *to, *from;
  int64_t n_in;        /**< doubles `from` sends */
  int ipc_out, ipc_in; /**< this call's messages go by IPC */
  int bad_out, bad_in; /**< a message too long for MPI: neither end moves it (both know) */
  int64_t bad_size;    /**< its size */
} channel_pair;

/** Rounds 1-3 for a call sending `ns` doubles to `to` and receiving from `from`. */
static int agree(porta_channel *ch, int64_t ns, int to, int from, channel_pair *p) {
  /* the pack is done, and so is every kernel that read this rank's last message */
  PORTA_CHECK(porta_exec_fence(ch->exec, "porta_channel"));
  channel_peer *pt, *pf;
  PORTA_CHECK(find_peer(ch, to, &pt));
  PORTA_CHECK(find_peer(ch, from, &pf)); /* (pt may move when the table grows) */
  PORTA_CHECK(find_peer(ch, to, &pt));

  /* round 1 */
  channel_hello size_out = {ns, ch->node, ch->ipc_able, 0};
  channel_hello room_out = {pf->recv_cap, ch->node, ch->ipc_able, 0};
  channel_hello size_in, room_in; /* (MPI_PROC_NULL: nothing arrives, so zeros) */
  memset(&size_in, 0, sizeof size_in);
  memset(&room_in, 0, sizeof room_in);
  MPI_Request req[4];
  CH_MPI(ch, "MPI_Irecv (size)",
         MPI_Irecv(&size_in, (int)sizeof size_in, MPI_BYTE, from, ch->tag, ch->comm, &req[0]));
  CH_MPI(ch, "MPI_Irecv (room)",
         MPI_Irecv(&room_in, (int)sizeof room_in, MPI_BYTE, to, ch->tag + 1, ch->comm, &req[1]));
  CH_MPI(ch, "MPI_Isend (size)",
         MPI_Isend(&size_out, (int)sizeof size_out, MPI_BYTE, to, ch->tag, ch->comm, &req[2]));
  CH_MPI(
      ch, "MPI_Isend (room)",
      MPI_Isend(&room_out, (int)sizeof room_out, MPI_BYTE, from, ch->tag + 1, ch->comm, &req[3]));
  CH_MPI(ch, "MPI_Waitall (sizes)", MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
  const int64_t n_in = size_in.count;
  /* a message too long for MPI is refused by both its ends, which then skip it and return
     the error after the call's last round, so that no other pair is left waiting */
  p->bad_out = ns > CHANNEL_MAX_DOUBLES;
  p->bad_in = n_in > CHANNEL_MAX_DOUBLES || n_in < 0;
  p->bad_size = p->bad_out ? ns : n_in;

  /* rounds 2 and 3 */
  const int send_ipc = ch->ipc_able && room_in.ipc_able && room_in.node == ch->node &&
                       to != ch->me && !pt->send_failed;
  const int recv_ipc = ch->ipc_able && size_in.ipc_able && size_in.node == ch->node &&
                       from != ch->me && !pf->recv_failed;
  const int grow_send = send_ipc && !p->bad_out && ns > room_in.count;
  const int grow_recv = recv_ipc && !p->bad_in && n_in > pf->recv_cap;
  if (grow_send || grow_recv) PORTA_CHECK(replace_buffers(ch, pt, pf, grow_recv, grow_send, n_in));
  p->to = pt;
  p->from = pf;
  p->n_in = p->bad_in ? 0 : n_in;
  p->ipc_out = send_ipc && !pt->send_failed;
  p->ipc_in = recv_ipc && !pf->recv_failed;
  return PORTA_SUCCESS;
}

int porta_channel_reserve(porta_channel *ch, int64_t n, int to, int from) {
  if (n < 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_channel_reserve", ch->label,
                       "a negative size %lld", (long long)n);
  channel_pair p;
  PORTA_CHECK(agree(ch, n, to, from, &p));
  if (p.bad_out || p.bad_in) return too_long(ch, "porta_channel_reserve", p.bad_size);
  /* the buffers the other transports use, too */
  const porta_memory_space space = porta_exec_memory_space(ch->exec);
  PORTA_CHECK(reserve(&ch->send_buf, "channel_send", n, space));
  if (ch->host_transport->staged && !p.ipc_out)
    PORTA_CHECK(reserve(&ch->stage_send, "channel_stage_send", n, ch->staging));
  if (!p.ipc_in) {
    PORTA_CHECK(reserve(&ch->recv_buf, "channel_recv", p.n_in, space));
    if (ch->host_transport->staged)
      PORTA_CHECK(reserve(&ch->stage_recv, "channel_stage_recv", p.n_in, ch->staging));
  }
  return PORTA_SUCCESS;
}

int porta_channel_sendrecv(porta_channel *ch, int64_t ns, int to, int from, porta_view_f64 *recv,
                           int64_t *nr) {
  const char *op = "porta_channel_sendrecv";
  *nr = 0;
  if (ns < 0 || (ns > 0 && (!ch->send_buf.data || porta_extent(ch->send_buf, 0) < ns)))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, ch->label,
                       "%lld doubles to send, the send buffer holds %lld", (long long)ns,
                       (long long)(ch->send_buf.data ? porta_extent(ch->send_buf, 0) : 0));
  channel_pair p;
  PORTA_CHECK(agree(ch, ns, to, from, &p));
  channel_peer *pt = p.to, *pf = p.from;
  const int64_t n_in = p.n_in;
  const int by_ipc_out = p.ipc_out, by_ipc_in = p.ipc_in;
  MPI_Request req[2];

  /* round 4: first what can fail here (buffers, the copy out), then the messages, so that a
     failure leaves no request behind (the other ends then wait: the apps' fatal path aborts) */
  const int staged = ch->host_transport->staged;
  const porta_memory_space space = porta_exec_memory_space(ch->exec);
  if (!by_ipc_in && !p.bad_in) {
    PORTA_CHECK(reserve(&ch->recv_buf, "channel_recv", n_in, space));
    if (staged) PORTA_CHECK(reserve(&ch->stage_recv, "channel_stage_recv", n_in, ch->staging));
  }
  const double *src = ch->send_buf.data;
  if (!p.bad_out && by_ipc_out) {
    if (ns > pt->mapped_cap) /* (both ends sized the buffer from the same values) */
      return porta_error(PORTA_ERROR_BACKEND, op, ch->label,
                         "%lld doubles for a mapped buffer of %lld", (long long)ns,
                         (long long)pt->mapped_cap);
    if (ns > 0)
      PORTA_CHECK(porta_ipc_copy_async(ch->exec, pt->mapped, src, (size_t)ns * sizeof(double)));
    PORTA_CHECK(porta_exec_fence(ch->exec, "porta_channel_copy"));
  } else if (!p.bad_out && staged) {
    PORTA_CHECK(reserve(&ch->stage_send, "channel_stage_send", ns, ch->staging));
    if (ns > 0)
      PORTA_CHECK(
          porta_ipc_copy_async(ch->exec, ch->stage_send.data, src, (size_t)ns * sizeof(double)));
    PORTA_CHECK(porta_exec_fence(ch->exec, "porta_channel_stage"));
    src = ch->stage_send.data;
  }
  int token_in = 0, token_out = 1, nreq = 0;
  if (by_ipc_in && !p.bad_in)
    CH_MPI(ch, "MPI_Irecv (in place)",
           MPI_Irecv(&token_in, 1, MPI_INT, from, ch->tag + 4, ch->comm, &req[nreq++]));
  else if (!p.bad_in)
    CH_MPI(ch, "MPI_Irecv (message)",
           MPI_Irecv(staged ? ch->stage_recv.data : ch->recv_buf.data, (int)n_in, MPI_DOUBLE, from,
                     ch->tag + 4, ch->comm, &req[nreq++]));
  if (by_ipc_out && !p.bad_out)
    CH_MPI(ch, "MPI_Isend (in place)",
           MPI_Isend(&token_out, 1, MPI_INT, to, ch->tag + 4, ch->comm, &req[nreq++]));
  else if (!p.bad_out)
    CH_MPI(ch, "MPI_Isend (message)",
           MPI_Isend(src, (int)ns, MPI_DOUBLE, to, ch->tag + 4, ch->comm, &req[nreq++]));
  CH_MPI(ch, "MPI_Waitall (message)", MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  if (p.bad_out || p.bad_in) return too_long(ch, op, p.bad_size);
  const porta_exchange_mode used = by_ipc_out ? PORTA_EXCHANGE_IPC : ch->host_transport->mode;
  ch->modes |= 1u << used;
  porta_exchange_note_mode_(used);

  void *data = by_ipc_in ? pf->recv_buf : ch->recv_buf.data;
  if (!by_ipc_in && staged && n_in > 0)
    PORTA_CHECK(porta_ipc_copy_async(ch->exec, ch->recv_buf.data, ch->stage_recv.data,
                                     (size_t)n_in * sizeof(double)));
  PORTA_CHECK(wrap(ch, data, n_in, &ch->recv_view));
  *recv = ch->recv_view;
  *nr = n_in;
  return PORTA_SUCCESS;
}

void porta_channel_transports(const porta_channel *ch, char *buf, size_t size) {
  porta_exchange_mode_names_(ch->modes, buf, size);
}
