/** @file app_exchange_ipc.c
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
 *  finished reading it at exchange e - 2.
 *
 *  Between two GPUs (not two processes sharing one) even the hosts stay out of it: after the
 *  copies a one-thread kernel sets a flag in the neighbour's memory ("exchange e's values are
 *  in place"), and the neighbour's stream waits for that flag before its unpack and then sets
 *  one back ("unpacked"), which the first waits for before it writes that buffer again. The
 *  hosts only queue work, so the GPU never idles on a fence or a message (APP_EXCHANGE_SYNC=host
 *  keeps the messages, for comparison). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "app_exchange_kernels.h"
#include "app_exchange_private.h"

static const char *transport_env(void) {
  const char *e = getenv("APP_EXCHANGE_TRANSPORT");
  return e && *e ? e : "auto";
}

int app_exchange_cuda_mpi_(porta_exec exec) {
  if (exec.backend != PORTA_BACKEND_CUDA) return 0;
  const char *e = transport_env();
  if (strcmp(e, "auto") != 0 && strcmp(e, "cuda-aware-mpi") != 0) return 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}

int app_exchange_ipc_wanted_(porta_exec exec) {
  if (exec.backend != PORTA_BACKEND_CUDA || !porta_ipc_available()) return 0;
  const char *e = transport_env();
  return !strcmp(e, "cuda-ipc") || (!strcmp(e, "auto") && !app_exchange_cuda_mpi_(exec));
}

int app_exchange_ipc_reserve_(app_exchange *x, int64_t bytes) {
  if (x->ipc_recv[0] && x->ipc_bytes >= bytes) return PORTA_SUCCESS;
  const int64_t len = (x->ipc_recv[0] ? bytes + bytes / 4 : bytes) + 256;
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

/** This node's name as a number (ranks of one node agree; IPC needs one node). */
static uint64_t node_id(void) {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < len; ++i) h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
  return h;
}

typedef struct offer {
  int32_t want, sync, slot, nflags;
  uint64_t node;
  int64_t displ;
  porta_ipc_handle handle[2], flags;
  char device[32];
} offer;

static void unmap(app_exchange_peer *p) {
  for (int b = 0; b < 2; ++b) {
    porta_ipc_close(p->base[b]);
    p->base[b] = NULL;
  }
  porta_ipc_close(p->flags_base);
  p->flags_base = NULL;
  p->flag_data = p->flag_ack = NULL;
  p->gpu_sync = 0;
}

/** GPU-side synchronisation wanted: APP_EXCHANGE_SYNC unset or "gpu". */
static int sync_wanted(const app_exchange *x) {
  const char *e = getenv("APP_EXCHANGE_SYNC");
  return x->n <= APP_EXCHANGE_SYNC_MAX && (!e || !*e || !strcmp(e, "gpu"));
}

/** Post one message per taking part neighbour each way and wait for all of them. */
static int swap_with_neighbours(app_exchange *x, const char *what, const int *part, void *out,
                                void *in, int bytes) {
  int nreq = 0;
  for (int k = 0; k < x->n; ++k) {
    if (!part[k]) continue;
    int rc = MPI_Irecv((char *)in + (size_t)k * (size_t)bytes, bytes, MPI_BYTE, x->rank[k], x->tag,
                       x->comm, &x->req[nreq++]);
    if (rc != MPI_SUCCESS) return app_exchange_fail_(x, "app_exchange_ipc", what, rc);
  }
  for (int k = 0; k < x->n; ++k) {
    if (!part[k]) continue;
    int rc = MPI_Isend((char *)out + (size_t)k * (size_t)bytes, bytes, MPI_BYTE, x->rank[k], x->tag,
                       x->comm, &x->req[nreq++]);
    if (rc != MPI_SUCCESS) return app_exchange_fail_(x, "app_exchange_ipc", what, rc);
  }
  int rc = MPI_Waitall(nreq, x->req, MPI_STATUSES_IGNORE);
  return rc == MPI_SUCCESS ? PORTA_SUCCESS : app_exchange_fail_(x, "app_exchange_ipc", what, rc);
}

int app_exchange_ipc_handshake_(app_exchange *x, int first) {
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
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "app_exchange_ipc", x->label, "no memory");
  }
  offer *theirs = mine + nn;
  int *their_ok = ok + nn;
  const uint64_t node = node_id();
  const int want = x->ipc_recv[0] != NULL;
  if (want && !x->ipc_flags) {
    void *f = NULL;
    rc = porta_ipc_alloc((size_t)(2 * nn) * sizeof(int64_t), &f, &x->ipc_flags_handle);
    x->ipc_flags = (int64_t *)f;
  }
  char device[32];
  porta_ipc_device_key(device, sizeof device);
  for (int k = 0; k < x->n; ++k) {
    part[k] = x->rank[k] != me && (first || x->peer[k].on);
    mine[k].want = want && rc == PORTA_SUCCESS;
    mine[k].sync = sync_wanted(x);
    mine[k].slot = k;
    mine[k].nflags = x->n;
    mine[k].node = node;
    mine[k].displ = x->recv_displ[k];
    for (int b = 0; b < 2; ++b) mine[k].handle[b] = x->ipc_handle[b];
    mine[k].flags = x->ipc_flags_handle;
    memcpy(mine[k].device, device, sizeof device);
  }
  if (rc == PORTA_SUCCESS)
    rc = swap_with_neighbours(x, "handles", part, mine, theirs, (int)sizeof(offer));
  /* map what the neighbours offer; a failure only means this pair goes through the host */
  for (int k = 0; k < x->n && rc == PORTA_SUCCESS; ++k) {
    if (!part[k]) continue;
    app_exchange_peer *p = &x->peer[k];
    ok[k] = mine[k].want && theirs[k].want && theirs[k].node == node;
    if (ok[k] && (!p->base[0] || memcmp(p->handle, theirs[k].handle, sizeof p->handle))) {
      for (int b = 0; b < 2; ++b) {
        porta_ipc_close(p->base[b]);
        p->base[b] = NULL;
      }
      for (int b = 0; b < 2 && ok[k]; ++b)
        if (porta_ipc_open(&theirs[k].handle[b], &p->base[b]) != PORTA_SUCCESS) {
          porta_error_clear();
          ok[k] = 0;
        }
      memcpy(p->handle, theirs[k].handle, sizeof p->handle);
    }
    if (ok[k] && !p->flags_base &&
        porta_ipc_open(&theirs[k].flags, &p->flags_base) != PORTA_SUCCESS) {
      porta_error_clear();
      ok[k] = 0;
    }
    if (!ok[k]) unmap(p);
    p->displ = theirs[k].displ;
    /* bit 1: both want the GPUs to synchronise, and they are two GPUs (the flag kernels would
       spin on a GPU the neighbour shares) */
    if (ok[k] && mine[k].sync && theirs[k].sync && device[0] &&
        strncmp(device, theirs[k].device, sizeof device) != 0) {
      ok[k] |= 2;
      p->flag_data = (int64_t *)p->flags_base + theirs[k].slot;
      p->flag_ack = (int64_t *)p->flags_base + theirs[k].nflags + theirs[k].slot;
    }
  }
  if (rc == PORTA_SUCCESS) rc = swap_with_neighbours(x, "agreement", part, ok, their_ok, 4);
  x->npeers_on = x->npeers_sync = 0;
  for (int k = 0; k < x->n && rc == PORTA_SUCCESS; ++k) {
    app_exchange_peer *p = &x->peer[k];
    const int was_on = p->on;
    p->on = part[k] && (ok[k] & 1) && (their_ok[k] & 1);
    if (!p->on) unmap(p);
    if (part[k] && first) p->gpu_sync = p->on && (ok[k] & 2) && (their_ok[k] & 2);
    if (!first && was_on && !p->on)
      rc = porta_error(PORTA_ERROR_BACKEND, "app_exchange_update", x->label,
                       "neighbour %d (rank %d) could not map the new receive buffers", k,
                       x->rank[k]);
    x->npeers_on += p->on;
    x->npeers_sync += p->gpu_sync;
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

int app_exchange_ipc_sync_(app_exchange *x, int when, int64_t e) {
  if (x->npeers_sync == 0 || (when == 0 && e < 2)) return PORTA_SUCCESS;
  app_exchange_sync_args a;
  memset(&a, 0, sizeof a);
  /* 0: their "unpacked e - 2" here; 1: "e in place" there; 2: theirs here; 3: "unpacked e" */
  a.value = when == 0 ? e - 1 : e + 1;
  for (int k = 0; k < x->n; ++k) {
    if (!x->peer[k].gpu_sync) continue;
    a.flag[a.n++] = when == 0   ? x->ipc_flags + x->n + k
                    : when == 1 ? x->peer[k].flag_data
                    : when == 2 ? x->ipc_flags + k
                                : x->peer[k].flag_ack;
  }
  const int wait = when == 0 || when == 2;
  return porta_parallel_for(wait ? "app_exchange_wait" : "app_exchange_signal", x->exec,
                            porta_range(0, 1), wait ? &app_exchange_wait : &app_exchange_signal,
                            &a);
}

void app_exchange_ipc_release_(app_exchange *x) {
  if (x->peer)
    for (int k = 0; k < x->n; ++k) unmap(&x->peer[k]);
  for (int b = 0; b < 2; ++b) {
    porta_ipc_free(x->ipc_recv[b]);
    porta_ipc_free(x->ipc_old[b]);
    x->ipc_recv[b] = x->ipc_old[b] = NULL;
  }
  porta_ipc_free(x->ipc_flags);
  x->ipc_flags = NULL;
  x->ipc_bytes = 0;
  x->npeers_on = x->npeers_sync = 0;
}
