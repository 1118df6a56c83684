/** @file exchange_ipc.c
 *  Exchange plans between GPUs of one node through mapped device memory (CUDA IPC), for an
 *  MPI that cannot take device buffers, and the choice of transport.
 *
 *  Each rank receives into two device buffers of its own and gives their handles to its
 *  neighbours, which map them. An exchange then packs on the device and copies each
 *  neighbour's values straight into that neighbour's buffer (a peer copy over NVLink or PCIe),
 *  fences, and sends the neighbour a one-int message saying the values are in place; MPI
 *  carries no data. Buffers alternate between exchanges, and every neighbour of an IPC pair
 *  sends such a message at every exchange, after the fence that also covers its unpack of
 *  the exchange before: so when a rank writes buffer e % 2 at exchange e, the neighbour has
 *  finished reading it at exchange e - 2. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "exchange_private.h"

/** PORTA_EXCHANGE_TRANSPORT, else its former name APP_EXCHANGE_TRANSPORT (the apps' switch,
 *  which they check and agree on across ranks), else "auto". */
static const char *transport_env(void) {
  const char *e = getenv("PORTA_EXCHANGE_TRANSPORT");
  if (!e || !*e) e = getenv("APP_EXCHANGE_TRANSPORT");
  return e && *e ? e : "auto";
}

int porta_exchange_cuda_mpi_(porta_exec exec) {
  if (!porta_exec_query(exec).on_device) return 0;
  const char *e = transport_env();
  if (strcmp(e, "auto") != 0 && strcmp(e, "cuda-aware-mpi") != 0) return 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}

int porta_exchange_ipc_wanted_(porta_exec exec) {
  const porta_exec_traits t = porta_exec_query(exec);
  if (!t.on_device || !t.ipc || !porta_ipc_available()) return 0;
  const char *e = transport_env();
  return !strcmp(e, "cuda-ipc") || (!strcmp(e, "auto") && !porta_exchange_cuda_mpi_(exec));
}

porta_exchange_mode porta_exchange_choose_(porta_exec exec, int host_reach, int ipc) {
  if (host_reach) return PORTA_EXCHANGE_HOST;
  if (porta_exchange_cuda_mpi_(exec)) return PORTA_EXCHANGE_CUDA_MPI;
  return ipc && porta_exchange_ipc_wanted_(exec) ? PORTA_EXCHANGE_IPC : PORTA_EXCHANGE_PINNED;
}

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
