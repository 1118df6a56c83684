/** @file nccl.c
 *  NCCL as a queued transport: an NCCL communicator over the device communicator's ranks, sums
 *  by ncclAllReduce, and a plan's exchange as its pack kernel into a device buffer, one
 *  ncclSend and ncclRecv per neighbour in one group, its unpack kernel. Every device
 *  communicator has it (it is what the GPU machines have and what a CUDA graph can capture);
 *  without NCCL in the build none is made, and nothing here is reached. */
#include <stdlib.h>
#include <string.h>

#include "transport.h"

#if PORTA_EXCHANGE_HAVE_NCCL
#include <nccl.h>

int porta_exchange_nccl_built_(void) { return 1; }

static ncclComm_t comm_of(const porta_device_comm *dc) { return (ncclComm_t)dc->nccl; }

static int fail(const char *op, const char *label, const char *what, ncclResult_t r) {
  return porta_error(PORTA_ERROR_BACKEND, op, label, "%s: NCCL error %d: %s", what, (int)r,
                     ncclGetErrorString(r));
}

static int sum(porta_device_comm *dc, void *queue, double *values, int count) {
  const ncclResult_t r = ncclAllReduce(values, values, (size_t)count, ncclDouble, ncclSum,
                                       comm_of(dc), (cudaStream_t)queue);
  return r == ncclSuccess ? PORTA_SUCCESS : fail("porta_device_comm_sum", NULL, "ncclAllReduce", r);
}

/** The NCCL communicator: an id from rank 0, then every rank's init; fails on all ranks when
 *  it fails on one. */
static int init(porta_device_comm *dc) {
  const char *op = "porta_device_comm_create";
  /* before NCCL's first call, which reads its configuration files (the communicator refused
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
  ncclComm_t c = NULL;
  const ncclResult_t r = ncclCommInitRank(&c, dc->nranks, id, dc->rank);
  int mine = r == ncclSuccess, all = 0;
  rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, dc->comm);
  if (rc != MPI_SUCCESS) all = 0;
  if (!all) {
    if (mine) ncclCommAbort(c);
    return r != ncclSuccess ? fail(op, NULL, "ncclCommInitRank", r)
                            : porta_error(PORTA_ERROR_BACKEND, op, NULL,
                                          "ncclCommInitRank failed on another rank");
  }
  dc->nccl = c;
  return PORTA_SUCCESS;
}

static int create(porta_device_comm *dc, porta_exec exec, int one_node, int *on) {
  (void)exec;
  (void)one_node;
  *on = 0;
  PORTA_CHECK(init(dc));
  *on = 1;
  return PORTA_SUCCESS;
}

static void release(porta_device_comm *dc) {
  if (dc->nccl) ncclCommDestroy(comm_of(dc));
  dc->nccl = NULL;
}

/** One NCCL send and receive per neighbour of values of `vb` bytes, from and into the plan's
 *  queue buffers, queued on `q`. */
static int send_receive(porta_exchange *x, porta_device_comm *dc, void *q, int64_t vb,
                        const char *op) {
  ncclResult_t r = ncclGroupStart();
  for (int k = 0; k < x->n && r == ncclSuccess; ++k) {
    if (x->send_count[k] > 0)
      r = ncclSend(x->queue_send.data + x->send_displ[k] * vb, (size_t)(x->send_count[k] * vb),
                   ncclUint8, x->rank[k], comm_of(dc), (cudaStream_t)q);
    if (r == ncclSuccess && x->recv_count[k] > 0)
      r = ncclRecv(x->queue_recv.data + x->recv_displ[k] * vb, (size_t)(x->recv_count[k] * vb),
                   ncclUint8, x->rank[k], comm_of(dc), (cudaStream_t)q);
  }
  const ncclResult_t e = ncclGroupEnd();
  if (r == ncclSuccess) r = e;
  return r == ncclSuccess ? PORTA_SUCCESS : fail(op, x->label, "ncclSend/ncclRecv", r);
}
#else
int porta_exchange_nccl_built_(void) { return 0; }

static int refused(const char *op) {
  return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "this build has no NCCL");
}
static int sum(porta_device_comm *dc, void *queue, double *values, int count) {
  (void)dc, (void)queue, (void)values, (void)count;
  return refused("porta_device_comm_sum");
}
static int create(porta_device_comm *dc, porta_exec exec, int one_node, int *on) {
  (void)dc, (void)exec, (void)one_node;
  *on = 0;
  return refused("porta_device_comm_create");
}
static void release(porta_device_comm *dc) { dc->nccl = NULL; }
static int send_receive(porta_exchange *x, porta_device_comm *dc, void *q, int64_t vb,
                        const char *op) {
  (void)x, (void)dc, (void)q, (void)vb;
  return refused(op);
}
#endif

static int end_sum(porta_device_comm *dc, porta_reduce_end *end, int *fused) {
  (void)dc; /* a sum of its own after the reduction */
  (void)end;
  *fused = 0;
  return PORTA_SUCCESS;
}

static int serves(const porta_exchange *x) {
  (void)x;
  return 1;
}

/** The queue buffers for the plan's totals of max_fields fields, grown as needed. */
static int reserve(porta_exchange *x) {
  const porta_memory_space space = porta_exec_memory_space(x->exec);
  const int64_t vb = (int64_t)x->value_size * x->max_fields;
  PORTA_CHECK(porta_exchange_reserve_buffer_(&x->queue_send, "exchange_queue_send",
                                             x->send_total * vb, space));
  return porta_exchange_reserve_buffer_(&x->queue_recv, "exchange_queue_recv", x->recv_total * vb,
                                        space);
}

/** The buffers, and the messages of an exchange of max_fields fields now (the buffers'
 *  contents, not unpacked), waited for: NCCL connects two ranks at their first send and
 *  receive. */
static int prepare(porta_exchange *x, porta_device_comm *dc) {
  const char *op = "porta_exchange_prepare_queue";
  PORTA_CHECK(reserve(x));
  void *q;
  PORTA_CHECK(porta_exec_native_queue(x->exec, &q));
  PORTA_CHECK(send_receive(x, dc, q, (int64_t)x->value_size * x->max_fields, op));
  return porta_exec_fence(x->exec, op);
}

static int queue(porta_exchange *x, porta_device_comm *dc, porta_exec exec, void *q,
                 const porta_view *fields, int nfields) {
  PORTA_CHECK(porta_exchange_copy_(x, exec, fields, nfields, 1, x->queue_send.data));
  PORTA_CHECK(send_receive(x, dc, q, (int64_t)x->value_size * nfields, "porta_exchange_queue"));
  return porta_exchange_copy_(x, exec, fields, nfields, 0, x->queue_recv.data);
}

static void plan_release(porta_exchange *x) {
  porta_view_u8_release(&x->queue_send);
  porta_view_u8_release(&x->queue_recv);
}

const porta_exchange_queued_ops porta_exchange_nccl_queued = {
    PORTA_EXCHANGE_NCCL, create, release, 1 << 30, sum, end_sum, serves, prepare, reserve, queue,
    plan_release};
