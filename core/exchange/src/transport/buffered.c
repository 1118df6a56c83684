/** @file buffered.c
 *  What the buffered transports share (host.c, pinned.c, cuda_mpi.c): the pack into a send
 *  buffer, one MPI message each way a neighbour, the unpack from one of two receive buffers
 *  that alternate between exchanges. They differ only in where the buffers are. */
#include "transport.h"

int porta_exchange_connect_none_(porta_exchange *x, int first) {
  (void)x;
  (void)first;
  return PORTA_SUCCESS;
}

int porta_exchange_buffered_reserve_(porta_exchange *x, int64_t send_total, int64_t recv_total,
                                     porta_memory_space space) {
  const int64_t vb = x->max_fields * (int64_t)x->value_size;
  PORTA_CHECK(
      porta_exchange_reserve_buffer_(&x->send_buf, "exchange_send", send_total * vb, space));
  for (int b = 0; b < 2; ++b)
    PORTA_CHECK(
        porta_exchange_reserve_buffer_(&x->recv_buf[b], "exchange_recv", recv_total * vb, space));
  return PORTA_SUCCESS;
}

unsigned char *porta_exchange_buffered_recv_buffer_(porta_exchange *x) {
  return x->recv_buf[x->exchanges % 2].data;
}

int porta_exchange_buffered_post_(porta_exchange *x, const porta_view *fields, int nfields,
                                  int64_t vb, int *fence) {
  unsigned char *rbuf = porta_exchange_buffered_recv_buffer_(x);
  /* The fence after packing covers the unpack of two exchanges ago, which read the buffer
   * the receives are about to fill; a plan that sends nothing must wait here instead. */
  if (x->send_total == 0 && x->recv_total > 0)
    PORTA_CHECK(porta_exec_fence(x->exec, "porta_exchange_recv"));
  for (int k = 0; k < x->n; ++k) {
    if (x->recv_count[k] == 0) continue;
    int rc = MPI_Irecv(rbuf + x->recv_displ[k] * vb, (int)(x->recv_count[k] * vb), MPI_BYTE,
                       x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    if (rc != MPI_SUCCESS)
      return porta_exchange_fail_(x, "porta_exchange_start", "MPI_Irecv failed", rc);
  }
  PORTA_CHECK(porta_exchange_copy_(x, x->exec, fields, nfields, 1, x->send_buf.data));
  *fence = x->send_total > 0;
  return PORTA_SUCCESS;
}

int porta_exchange_buffered_send_(porta_exchange *x, int64_t vb) {
  for (int k = 0; k < x->n; ++k) {
    if (x->send_count[k] == 0) continue;
    const int rc = MPI_Isend(x->send_buf.data + x->send_displ[k] * vb, (int)(x->send_count[k] * vb),
                             MPI_BYTE, x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    if (rc != MPI_SUCCESS)
      return porta_exchange_fail_(x, "porta_exchange_start", "MPI_Isend failed", rc);
    x->messages += 1;
    x->bytes += x->send_count[k] * vb;
  }
  return PORTA_SUCCESS;
}

int porta_exchange_buffered_land_(porta_exchange *x, int64_t vb) {
  (void)x; /* the messages arrived in the receive buffer */
  (void)vb;
  return PORTA_SUCCESS;
}

void porta_exchange_buffered_release_(porta_exchange *x) {
  porta_view_u8_release(&x->send_buf);
  for (int b = 0; b < 2; ++b) porta_view_u8_release(&x->recv_buf[b]);
}
