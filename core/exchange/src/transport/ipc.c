/** @file ipc.c
 *  Exchange plans between GPUs of one node through mapped device memory (CUDA IPC), for an
 *  MPI that cannot take device buffers.
 *
 *  Each rank receives into two device buffers of its own and gives their handles to its
 *  neighbours, which map them. An exchange then packs on the device and copies each
 *  neighbour's values straight into that neighbour's buffer (a peer copy over NVLink or PCIe),
 *  fences, and sends the neighbour a one-int message saying the values are in place; MPI
 *  carries no data. Buffers alternate between exchanges, and every neighbour of an IPC pair
 *  sends such a message at every exchange, after the fence that also covers its unpack of
 *  the exchange before: so when a rank writes buffer e % 2 at exchange e, the neighbour has
 *  finished reading it at exchange e - 2. A neighbour that cannot be mapped (another node, a
 *  failed mapping) is reached through pinned host staging by MPI; a plan with no neighbour
 *  mapped takes the pinned transport instead. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../exchange_kernels.h"
#include "transport.h"

int porta_exchange_ipc_reserve_(porta_exchange *x, int64_t bytes) {
  if (x->ipc_recv[0] && x->ipc_bytes >= bytes) return PORTA_SUCCESS;
  const int64_t len = bytes + bytes / 4 + 256; /* room to grow, as the other buffers */
  for (int b = 0; b < 2; ++b) {
    porta_ipc_free(x->ipc_old[b]); /* (none in flight: updates hand-shake before returning) */
    x->ipc_old[b] = x->ipc_recv[b];
    x->ipc_recv[b] = NULL;
  }
  for (int b = 0; b < 2; ++b)
    PORTA_CHECK(porta_ipc_alloc((size_t)len, &x->ipc_recv[b], &x->ipc_handle[b]));
  x->ipc_bytes = len;
  return PORTA_SUCCESS;
}

typedef struct offer {
  int32_t want, pad;
  uint64_t node;
  int64_t displ;
  porta_ipc_handle handle[2];
} offer;

static void unmap(porta_exchange_peer *p) {
  for (int b = 0; b < 2; ++b) {
    porta_ipc_close(p->base[b]);
    p->base[b] = NULL;
  }
}

int porta_exchange_ipc_handshake_(porta_exchange *x, int first) {
  int me = -1, rc = PORTA_SUCCESS;
  MPI_Comm_rank(x->comm, &me);
  const size_t nn = (size_t)(x->n > 0 ? x->n : 1);
  int *part = (int *)calloc(nn, sizeof(int));
  int *ok = (int *)calloc(2 * nn, sizeof(int));
  offer *mine = (offer *)calloc(2 * nn, sizeof(offer));
  if (!part || !ok || !mine) {
    free(part);
    free(ok);
    free(mine);
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_exchange_ipc", x->label, "no memory");
  }
  offer *theirs = mine + nn;
  int *their_ok = ok + nn;
  const uint64_t node = porta_exchange_node_id_();
  const int want = x->ipc_recv[0] != NULL;
  for (int k = 0; k < x->n; ++k) {
    part[k] = x->rank[k] != me && (first || x->peer[k].on);
    mine[k].want = want;
    mine[k].node = node;
    mine[k].displ = x->recv_displ[k];
    for (int b = 0; b < 2; ++b) mine[k].handle[b] = x->ipc_handle[b];
  }
  rc = porta_exchange_swap_(x, "porta_exchange_ipc", "handles", part, mine, theirs,
                            (int)sizeof(offer));
  /* map what the neighbours offer; a failure only means this pair goes through the host */
  for (int k = 0; k < x->n && rc == PORTA_SUCCESS; ++k) {
    if (!part[k]) continue;
    porta_exchange_peer *p = &x->peer[k];
    ok[k] = want && theirs[k].want && theirs[k].node == node;
    if (ok[k] && (!p->base[0] || memcmp(p->handle, theirs[k].handle, sizeof p->handle))) {
      unmap(p);
      for (int b = 0; b < 2 && ok[k]; ++b)
        if (porta_ipc_open(&theirs[k].handle[b], &p->base[b]) != PORTA_SUCCESS) {
          porta_error_clear();
          ok[k] = 0;
        }
      memcpy(p->handle, theirs[k].handle, sizeof p->handle);
    }
    if (!ok[k]) unmap(p);
    p->displ = theirs[k].displ;
  }
  if (rc == PORTA_SUCCESS)
    rc = porta_exchange_swap_(x, "porta_exchange_ipc", "agreement", part, ok, their_ok, 4);
  x->npeers_on = 0;
  for (int k = 0; k < x->n && rc == PORTA_SUCCESS; ++k) {
    porta_exchange_peer *p = &x->peer[k];
    const int was_on = p->on;
    p->on = part[k] && ok[k] && their_ok[k];
    if (!p->on) unmap(p);
    if (!first && was_on && !p->on)
      rc = porta_error(PORTA_ERROR_BACKEND, "porta_exchange_update", x->label,
                       "neighbour %d (rank %d) could not map the new receive buffers", k,
                       x->rank[k]);
    x->npeers_on += p->on;
  }
  /* every neighbour has mapped the new buffers (and let go of the old ones) */
  for (int b = 0; b < 2 && rc == PORTA_SUCCESS; ++b) {
    porta_ipc_free(x->ipc_old[b]);
    x->ipc_old[b] = NULL;
  }
  free(part);
  free(ok);
  free(mine);
  return rc;
}

void porta_exchange_ipc_release_(porta_exchange *x) {
  if (x->peer)
    for (int k = 0; k < x->n; ++k) unmap(&x->peer[k]);
  for (int b = 0; b < 2; ++b) {
    porta_ipc_free(x->ipc_recv[b]);
    porta_ipc_free(x->ipc_old[b]);
    x->ipc_recv[b] = x->ipc_old[b] = NULL;
  }
  x->ipc_bytes = 0;
}

static int usable(porta_exec exec, int host_reach, int mapped) {
  return !host_reach && mapped && porta_exchange_ipc_wanted_(exec);
}

/** The send buffer on the device (the pack's, when it cannot write into the neighbours'),
 *  the two receive buffers this rank's neighbours map, and host staging for the neighbours
 *  reached through MPI. */
static int reserve(porta_exchange *x, int64_t send_total, int64_t recv_total) {
  const int64_t vb = x->max_fields * (int64_t)x->value_size;
  PORTA_CHECK(porta_exchange_reserve_buffer_(&x->send_buf, "exchange_send", send_total * vb,
                                             porta_exec_memory_space(x->exec)));
  PORTA_CHECK(porta_exchange_ipc_reserve_(x, recv_total * vb));
  const porta_memory_space staging = porta_exec_query(x->exec).staging_space;
  PORTA_CHECK(porta_exchange_reserve_buffer_(&x->host_send, "exchange_send_host", send_total * vb,
                                             staging));
  for (int b = 0; b < 2; ++b)
    PORTA_CHECK(porta_exchange_reserve_buffer_(&x->host_recv[b], "exchange_recv_host",
                                               recv_total * vb, staging));
  return PORTA_SUCCESS;
}

static void release(porta_exchange *x) {
  porta_exchange_ipc_release_(x);
  porta_view_u8_release(&x->send_buf);
  porta_view_u8_release(&x->host_send);
  for (int b = 0; b < 2; ++b) porta_view_u8_release(&x->host_recv[b]);
}

/** The hand-shake; at the plan's creation, with no neighbour mapped, the pinned transport for
 *  all instead. */
static int connect(porta_exchange *x, int first) {
  PORTA_CHECK(porta_exchange_ipc_handshake_(x, first));
  if (!first || x->npeers_on > 0) return PORTA_SUCCESS;
  release(x);
  x->transport = &porta_exchange_pinned_transport;
  return x->transport->reserve(x, x->send_total, x->recv_total);
}

static unsigned char *recv_buffer(porta_exchange *x) {
  return (unsigned char *)x->ipc_recv[x->exchanges % 2];
}

/** Before the fence: receives (tokens from the mapped neighbours, values from the others into
 *  host staging) and the pack (straight into the neighbours' buffers when every sending
 *  neighbour is mapped, else into the send buffer, then each neighbour's values copied into
 *  its buffer or the staging). The fence is always needed: it also covers this rank's unpack
 *  of the last exchange, which the token promises. */
static int post(porta_exchange *x, const porta_view *fields, int nfields, int64_t vb, int *fence) {
  const int b = (int)(x->exchanges % 2);
  unsigned char *hrecv = x->host_recv[b].data;
  *fence = 1;
  for (int k = 0; k < x->n; ++k) {
    int rc = MPI_SUCCESS;
    if (x->peer[k].on)
      rc =
          MPI_Irecv(&x->peer[k].token, 1, MPI_INT, x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    else if (x->recv_count[k] > 0)
      rc = MPI_Irecv(hrecv + x->recv_displ[k] * vb, (int)(x->recv_count[k] * vb), MPI_BYTE,
                     x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    if (rc != MPI_SUCCESS)
      return porta_exchange_fail_(x, "porta_exchange_start", "MPI_Irecv failed", rc);
  }
  int direct = 1, nseg = 0;
  int64_t first[PORTA_EXCHANGE_MAX_SEGMENTS];
  unsigned char *seg[PORTA_EXCHANGE_MAX_SEGMENTS];
  for (int k = 0; k < x->n; ++k) {
    if (x->send_count[k] == 0) continue;
    direct = direct && x->peer[k].on && nseg < PORTA_EXCHANGE_MAX_SEGMENTS;
    if (!direct) break;
    first[nseg] = x->send_displ[k];
    seg[nseg++] = (unsigned char *)x->peer[k].base[b] + x->peer[k].displ * vb;
  }
  if (direct) return porta_exchange_pack_segments_(x, fields, nfields, nseg, first, seg);
  PORTA_CHECK(porta_exchange_copy_(x, x->exec, fields, nfields, 1, x->send_buf.data));
  for (int k = 0; k < x->n; ++k) {
    if (x->send_count[k] == 0) continue;
    const unsigned char *src = x->send_buf.data + x->send_displ[k] * vb;
    unsigned char *dst = x->peer[k].on ? (unsigned char *)x->peer[k].base[b] + x->peer[k].displ * vb
                                       : x->host_send.data + x->send_displ[k] * vb;
    PORTA_CHECK(porta_ipc_copy_async(x->exec, dst, src, (size_t)(x->send_count[k] * vb)));
  }
  return PORTA_SUCCESS;
}

/** After the fence: the tokens to the mapped neighbours and the staged values to the others. */
static int send(porta_exchange *x, int64_t vb) {
  x->token_out = (int)x->exchanges;
  for (int k = 0; k < x->n; ++k) {
    int rc = MPI_SUCCESS;
    if (x->peer[k].on)
      rc = MPI_Isend(&x->token_out, 1, MPI_INT, x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    else if (x->send_count[k] > 0)
      rc = MPI_Isend(x->host_send.data + x->send_displ[k] * vb, (int)(x->send_count[k] * vb),
                     MPI_BYTE, x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    if (rc != MPI_SUCCESS)
      return porta_exchange_fail_(x, "porta_exchange_start", "MPI_Isend failed", rc);
    if (x->send_count[k] > 0) {
      x->messages += 1;
      x->bytes += x->send_count[k] * vb;
    }
  }
  return PORTA_SUCCESS;
}

/** The staged values next to the mapped ones. */
static int land(porta_exchange *x, int64_t vb) {
  const int b = (int)(x->exchanges % 2);
  for (int k = 0; k < x->n; ++k)
    if (!x->peer[k].on && x->recv_count[k] > 0)
      PORTA_CHECK(porta_ipc_copy_async(x->exec, recv_buffer(x) + x->recv_displ[k] * vb,
                                       x->host_recv[b].data + x->recv_displ[k] * vb,
                                       (size_t)(x->recv_count[k] * vb)));
  return PORTA_SUCCESS;
}

/* a neighbour whose memory is not mapped gets pinned host messages */
static int partly_mapped(const porta_exchange *x) { return x->npeers_on < x->n; }

static const char *name_of(const porta_exchange *x) {
  return partly_mapped(x) ? "cuda-ipc+pinned-host" : "cuda-ipc";
}

static unsigned modes_of(const porta_exchange *x) {
  return 1u << PORTA_EXCHANGE_IPC | (partly_mapped(x) ? 1u << PORTA_EXCHANGE_PINNED : 0u);
}

const porta_exchange_transport_ops porta_exchange_ipc_transport = {
    "cuda-ipc", PORTA_EXCHANGE_IPC, 2,       usable, reserve, connect, post, send,
    land,       recv_buffer,        release, 0,      name_of, modes_of};
