/** @file exchange_private.h
 *  The exchange plan's state, shared by exchange.c (lists), exchange_run.c (the exchange) and
 *  the transports (transport/: how the values travel), and the transport helpers the channels
 *  (channel.c) share with the plans. Internal to the exchange library: not
 *  installed, not exported, and included by no file outside core/exchange/src (the test
 *  build.private_headers holds this). */
#ifndef PORTA_EXCHANGE_PRIVATE_H
#define PORTA_EXCHANGE_PRIVATE_H

#include "porta/exchange.h"

#include "exchange_peer.h"

/** How a plan's messages travel (porta_exchange_transport names them). */
typedef enum porta_exchange_mode {
  PORTA_EXCHANGE_HOST = 0,     /**< host back end: buffers in host memory */
  PORTA_EXCHANGE_PINNED = 1,   /**< GPU: pinned, mapped host buffers the kernels reach */
  PORTA_EXCHANGE_CUDA_MPI = 2, /**< GPU and a CUDA-aware MPI: device buffers straight to MPI */
  PORTA_EXCHANGE_IPC = 3,      /**< GPU: neighbours' device buffers mapped (CUDA IPC) */
  PORTA_EXCHANGE_NCCL = 4,     /**< GPU: queued exchanges (exchange_device.c), device buffers
                                    sent by NCCL (the plan's own mode stays for its host ones) */
  PORTA_EXCHANGE_GPU_PEER = 5  /**< GPU: queued exchanges straight into the neighbours' mapped
                                    memory (exchange_peer.h) */
} porta_exchange_mode;

/** A host-driven transport's table, and a queued one's (transport/transport.h). */
typedef struct porta_exchange_transport_ops porta_exchange_transport_ops;
typedef struct porta_exchange_queued_ops porta_exchange_queued_ops;

/** A neighbour whose receive buffers this rank writes directly (IPC mode). */
typedef struct porta_exchange_peer {
  int on;                     /**< both sides mapped each other's receive buffers */
  void *base[2];              /**< the neighbour's two receive buffers, mapped here */
  porta_ipc_handle handle[2]; /**< their handles (a change means new buffers) */
  int64_t displ;              /**< where this rank's values start in them, in values */
  int token;                  /**< the neighbour's "your values are in place" message */
} porta_exchange_peer;

struct porta_exchange {
  char label[PORTA_LABEL_MAX];
  MPI_Comm comm;
  porta_exec exec;
  int tag, max_fields, words, word_bytes;
  size_t value_size;
  int n;                                                      /**< neighbours */
  int *rank;                                                  /**< [n] */
  int64_t *send_count, *send_displ, *recv_count, *recv_displ; /**< [n], in values */
  int64_t send_total, recv_total;
  int64_t max_offset;                            /**< largest offset in either list (-1: none) */
  porta_view_i64 send_index, recv_index;         /**< on the execution space */
  const porta_exchange_transport_ops *transport; /**< how its values travel (transport/) */
  /** The pack writes send_buf and the unpack reads recv_buf[exchange % 2]: memory MPI reaches
   *  (HOST, PINNED, CUDA_MPI); in IPC mode send_buf is device memory and the receive buffers
   *  are ipc_recv, with host_send / host_recv staging the neighbours without IPC. */
  porta_view_u8 send_buf, recv_buf[2];
  void *ipc_recv[2];
  porta_ipc_handle ipc_handle[2];
  int64_t ipc_bytes;
  void *ipc_old[2]; /**< replaced buffers, freed once the neighbours mapped the new ones */
  porta_view_u8 host_send, host_recv[2];
  porta_exchange_peer *peer; /**< [n] (IPC mode) */
  /** Queued exchanges (exchange_device.c): device buffers for max_fields fields, and the
   *  device communicator they were prepared for (NULL: not prepared) */
  porta_view_u8 queue_send, queue_recv;
  uint64_t queue_comm;                        /**< its id (0: none) */
  struct porta_device_comm *queue_dc;         /**< it, for the _on calls (with queue_comm) */
  const porta_exchange_queued_ops *queue_ops; /**< the queued transport serving the plan */
  /** Queued exchanges by the peer transport (exchange_peer.c) instead of NCCL's buffers: this
   *  rank's inbox, the neighbours' mapped ([n], by entry), the links and counters on the device */
  void *qpeer_inbox, **qpeer_mapped;
  porta_ipc_handle qpeer_handle, *qpeer_theirs; /**< the inbox's; [n] the mapped ones' */
  int64_t qpeer_buffer_bytes;
  int qpeer_tagged; /**< its messages' words carry their run (exchange_peer.h), no flags */
  porta_peer_link *qpeer_links;
  porta_peer_state *qpeer_state;
  int npeers_on, token_out;
  MPI_Request *req; /**< [transport->requests n] */
  int nreq, nfields, active;
  int accumulate;                               /**< unpack adds doubles */
  porta_view fields[PORTA_EXCHANGE_MAX_FIELDS]; /**< the exchange in progress */
  int64_t exchanges, messages, bytes;
};

/** An MPI failure (code rc) as a Porta error of `op` naming `label`: "what: MPI's text"
 *  (exchange_mpi.c, as porta_exchange_fail_, porta_exchange_swap_ and
 *  porta_exchange_node_id_). */
int porta_exchange_mpi_error_(const char *op, const char *label, const char *what, int rc);
/** An MPI failure as a Porta error naming the plan. */
int porta_exchange_fail_(porta_exchange *x, const char *op, const char *what, int mpi_rc);

/** The checks of an exchange's start (`op` names it in messages): none in progress, at most
 *  max_fields fields, each of value_size-byte values spanning every offset of the plan.
 *  Nothing changes when one fails. */
int porta_exchange_check_fields_(const porta_exchange *x, const char *op, const porta_view *fields,
                                 int nfields);
/** A buffer of at least `bytes` on `space`, kept when it is large enough (exchange.c). */
int porta_exchange_reserve_buffer_(porta_view_u8 *v, const char *label, int64_t bytes,
                                   porta_memory_space space);
/** The plan's pack straight into `nseg` (at most PORTA_EXCHANGE_MAX_SEGMENTS) buffers: the
 *  values from send position first[s] on go to seg[s] (exchange_run.c). */
int porta_exchange_pack_segments_(porta_exchange *x, const porta_view *fields, int nfields,
                                  int nseg, const int64_t *first, unsigned char *const *seg);
/** The plan's pack into `buf` (to_buffer) or unpack from it, on `exec` (exchange_run.c). */
int porta_exchange_copy_(porta_exchange *x, porta_exec exec, const porta_view *fields, int nfields,
                         int to_buffer, void *buf);

/** One message of `bytes` from out[k] to each neighbour entry k and into in[k] from it (entries
 *  with part[k] 0 left out; part NULL: every entry, this rank's own too), all waited for: entry
 *  k's message pairs with the neighbour's entry for this rank of the same order. Collective
 *  over the entries' ranks; `op` and `what` name a failure (exchange_mpi.c). */
int porta_exchange_swap_(porta_exchange *x, const char *op, const char *what, const int *part,
                         const void *out, void *in, int bytes);
/** IPC mode (transport/ipc.c): receive buffers of `bytes` each, grown as needed (new
 *  buffers get new handles; the old ones wait in ipc_old). */
int porta_exchange_ipc_reserve_(porta_exchange *x, int64_t bytes);
/** Agree with every neighbour on IPC and map their buffers (`first`: at creation, every
 *  neighbour but this rank itself takes part; later, after an update, the neighbours that are
 *  on). Collective over the plan's neighbours. */
int porta_exchange_ipc_handshake_(porta_exchange *x, int first);
/** Unmap the neighbours' buffers and free this rank's. */
void porta_exchange_ipc_release_(porta_exchange *x);
/** Whether this process should try IPC: a GPU back end, no CUDA-aware MPI, and
 *  APP_EXCHANGE_TRANSPORT unset, "auto" or "cuda-ipc". */
int porta_exchange_ipc_wanted_(porta_exec exec);
/** A CUDA-aware MPI (Open MPI's run-time query) and APP_EXCHANGE_TRANSPORT not forbidding it. */
int porta_exchange_cuda_mpi_(porta_exec exec);
/** The one choice of transport, for plans and channels (transport/list.c): the first of the
 *  list that is usable, i.e. host memory where MPI reaches the execution's memory
 *  (`host_reach`), else device buffers to a CUDA-aware MPI, else the neighbours' mapped memory
 *  where `mapped` allows it and porta_exchange_ipc_wanted_ says so, else pinned host memory. */
const porta_exchange_transport_ops *porta_exchange_transport_choose_(porta_exec exec,
                                                                     int host_reach, int mapped);
/** This node's name as a number (ranks of one node agree; IPC needs one node). */
uint64_t porta_exchange_node_id_(void);
/** Record that messages went by `mode` (for porta_exchange_transports_used; channel.c
 *  records its messages too). */
void porta_exchange_note_mode_(porta_exchange_mode mode);
/** "host", "pinned-host", "cuda-aware-mpi", "cuda-ipc" or "nccl". */
const char *porta_exchange_mode_name_(porta_exchange_mode mode);
/** The modes set in the bit mask `modes`, joined by '+' ("none" when empty). */
void porta_exchange_mode_names_(unsigned modes, char *buf, size_t size);

struct porta_peer_comm;

/** A device communicator (porta/exchange_device.h): its ranks and the queued transports it
 *  has set up, in the order it prefers them (transport/list.c). */
struct porta_device_comm {
  uint64_t id; /**< this process's n-th communicator (plans remember which they are prepared for) */
  MPI_Comm comm;
  int rank, nranks;
  const porta_exchange_queued_ops *ops[2]; /**< the transports set up, preferred first */
  int nops;
  struct porta_peer_comm *peer; /**< the peer transport's state (transport/peer.c), or NULL */
  void *nccl;                   /**< NCCL's communicator (transport/nccl.c), or NULL */
};

/** A device communicator's peer transport (exchange_peer.c): every rank's sum inbox mapped. */
typedef struct porta_peer_comm {
  int rank, nranks;
  void *own;               /**< this rank's inbox */
  porta_peer_sum_args sum; /**< the inboxes and the counter; values and count per sum */
} porta_peer_comm;

/** Collective over `comm`: the peer transport where every rank can take it (`one_node`: all
 *  ranks on this node), else *out NULL (an error when PORTA_DEVICE_COMM=peer asked for it). */
int porta_peer_comm_create_(MPI_Comm comm, int rank, int nranks, int one_node,
                            porta_peer_comm **out);
void porta_peer_comm_release_(porta_peer_comm *p);
/** Queue a sum of count (at most PORTA_PEER_SUM_MAX) doubles at `values` on `queue`. */
int porta_peer_comm_sum_(porta_peer_comm *p, void *queue, double *values, int count);
/** Collective over the plan's neighbours: its inbox, mapped by them, and theirs here. */
int porta_peer_plan_prepare_(porta_exchange *x);
/** After an update of a prepared plan's lists (collective over its neighbours, which update
 *  theirs): the links to the new counts, the inbox kept where the new receives fit (else a
 *  larger one, which the neighbours map instead), the run counters kept. */
int porta_peer_plan_refresh_(porta_exchange *x);
void porta_peer_plan_release_(porta_exchange *x);
/** Queue the plan's exchange of `fields` on `queue` (one kernel). */
int porta_peer_plan_queue_(porta_exchange *x, void *queue, const porta_view *fields, int nfields);

#endif /* PORTA_EXCHANGE_PRIVATE_H */
