/** @file transport.h
 *  The ways a plan's values travel when the host drives its exchanges, one table each, as the
 *  core's back ends are: each transport is a file of this folder that fills one
 *  porta_exchange_transport_ops, and list.c lists them in the order the chooser tries them. A new
 *  transport is a file and a line there. The queued transports of porta/exchange_device.h
 *  (NCCL, peer) have a table of their own, listed alike. Internal to the exchange library. */
#ifndef PORTA_EXCHANGE_TRANSPORT_H
#define PORTA_EXCHANGE_TRANSPORT_H

#include "porta/reduce_end.h"

#include "../exchange_private.h"

/** One transport's operations on a plan. Every plan has one (x->transport), chosen at its
 *  creation by porta_exchange_transport_choose_. */
struct porta_exchange_transport_ops {
  const char *name;         /**< what porta_exchange_transport says */
  porta_exchange_mode mode; /**< its bit in the notes of the transports used */
  int requests;             /**< the most MPI requests it posts a neighbour in one exchange */
  /** Whether this process can take it for an execution space: `host_reach` says MPI reaches
   *  the space's memory; `mapped` that the caller can take the neighbours' mapped memory. */
  int (*usable)(porta_exec exec, int host_reach, int mapped);
  /** Buffers for send_total and recv_total values of the plan's max_fields fields, grown as
   *  needed (never shrunk). */
  int (*reserve)(porta_exchange *x, int64_t send_total, int64_t recv_total);
  /** The agreement with the neighbours after the lists are set (`first`: at the plan's
   *  creation, else after an update). Collective over the plan's neighbours. */
  int (*connect)(porta_exchange *x, int first);
  /** The start's first half: the receives posted and the fields packed, for `vb` bytes a
   *  value; *fence says whether the pack must be waited for before `send`. */
  int (*post)(porta_exchange *x, const porta_view *fields, int nfields, int64_t vb, int *fence);
  /** The start's second half, after the pack's fence: the messages. */
  int (*send)(porta_exchange *x, int64_t vb);
  /** After every message arrived: the received values put where the unpack reads them. */
  int (*land)(porta_exchange *x, int64_t vb);
  /** The buffer the current exchange receives into and unpacks from. */
  unsigned char *(*recv_buffer)(porta_exchange *x);
  /** Its buffers and mappings freed (the plan's lists kept). */
  void (*release)(porta_exchange *x);
  /* What a table may leave zero: */
  /** Its messages go through staging buffers in the execution's staging space (pinned host
   *  memory on a GPU), as a channel's do then. */
  int staged;
  /** What porta_exchange_transport says of plan x; NULL: `name`. */
  const char *(*name_of)(const porta_exchange *x);
  /** The bits of the transports plan x's messages use (the notes); NULL: its own. */
  unsigned (*modes_of)(const porta_exchange *x);
};

/** The transports, one file each: host memory (host.c), pinned host memory (pinned.c), device
 *  buffers to a CUDA-aware MPI (cuda_mpi.c), the neighbours' mapped device memory (ipc.c). */
extern const porta_exchange_transport_ops porta_exchange_host_transport;
extern const porta_exchange_transport_ops porta_exchange_pinned_transport;
extern const porta_exchange_transport_ops porta_exchange_cuda_mpi_transport;
extern const porta_exchange_transport_ops porta_exchange_ipc_transport;

/* ---- what the transports share (buffered.c): one MPI message a neighbour from buffers ---- */

/** The send buffer and the two receive buffers on `space`. */
int porta_exchange_buffered_reserve_(porta_exchange *x, int64_t send_total, int64_t recv_total,
                                     porta_memory_space space);
int porta_exchange_buffered_post_(porta_exchange *x, const porta_view *fields, int nfields,
                                  int64_t vb, int *fence);
int porta_exchange_buffered_send_(porta_exchange *x, int64_t vb);
int porta_exchange_buffered_land_(porta_exchange *x, int64_t vb);
unsigned char *porta_exchange_buffered_recv_buffer_(porta_exchange *x);
void porta_exchange_buffered_release_(porta_exchange *x);
/** No agreement needed. */
int porta_exchange_connect_none_(porta_exchange *x, int first);
/** The table of a buffered transport named `name` (its mode `mode`), which chooses with
 *  `usable`, places its buffers with `reserve`, agrees with its neighbours by `connect` and
 *  stages its messages or not (`staged`). */
#define PORTA_EXCHANGE_BUFFERED_TRANSPORT(name, mode, usable, reserve, connect, staged)            \
  {                                                                                                \
    name, mode, 2, usable, reserve, connect, porta_exchange_buffered_post_,                        \
        porta_exchange_buffered_send_, porta_exchange_buffered_land_,                              \
        porta_exchange_buffered_recv_buffer_, porta_exchange_buffered_release_, staged, NULL, NULL \
  }

/* ---- queued transports: sums and exchanges queued on a GPU (porta/exchange_device.h) ---- */

/** One queued transport's operations on a device communicator and on the plans prepared for
 *  it. A communicator sets up every transport of the list that can serve its ranks; a sum goes
 *  by the first that takes its count, a plan by the first that serves it. */
struct porta_exchange_queued_ops {
  porta_exchange_mode mode; /**< its name (porta_device_comm_transport) and note */
  /** Set itself up on dc: *on = 0 where it cannot serve every rank (agreed), an error where
   *  it was required and cannot, or failed. Collective over dc->comm. */
  int (*create)(porta_device_comm *dc, porta_exec exec, int one_node, int *on);
  void (*release)(porta_device_comm *dc);
  int sum_max; /**< the most doubles one of its sums takes */
  /** An in-place sum over the ranks of `count` doubles in device memory, queued. */
  int (*sum)(porta_device_comm *dc, void *queue, double *values, int count);
  /** A reduction's end that also sums over the ranks (*fused = 1), where it can. */
  int (*end_sum)(porta_device_comm *dc, porta_reduce_end *end, int *fused);
  /** Whether it can serve plan x. */
  int (*serves)(const porta_exchange *x);
  /** The plan's buffers and links, its messages made once and waited for. Collective over the
   *  plan's neighbours. */
  int (*prepare)(porta_exchange *x, porta_device_comm *dc);
  /** After an update of the plan's lists (collective over its neighbours, which update theirs). */
  int (*refresh)(porta_exchange *x);
  /** The plan's whole exchange of `fields` queued on `queue` (`exec`'s). */
  int (*queue)(porta_exchange *x, porta_device_comm *dc, porta_exec exec, void *queue,
               const porta_view *fields, int nfields);
  void (*plan_release)(porta_exchange *x);
};

/** NCCL (nccl.c), and the peer transport between the GPUs of one node (peer.c). */
extern const porta_exchange_queued_ops porta_exchange_nccl_queued;
extern const porta_exchange_queued_ops porta_exchange_peer_queued;
/** Whether this build has NCCL, which every device communicator needs (nccl.c). */
int porta_exchange_nccl_built_(void);
/** The queued transports in the order a communicator prefers them (list.c). */
extern const porta_exchange_queued_ops *const porta_exchange_queued_list_[];
extern const int porta_exchange_queued_count_;

#endif /* PORTA_EXCHANGE_TRANSPORT_H */
