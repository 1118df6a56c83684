/** @file split_transport.c
 *  A test-only host-driven transport, "test-split": host memory, every neighbour's message sent
 *  as two MPI messages (its first half of the values, then the rest), and the receives posted
 *  likewise. It is this file and one line of core/exchange/src/transport/list.c (compiled in
 *  only with PORTA_EXCHANGE_TEST_TRANSPORT, in the library variant the test
 *  exchange.transport_split links): what a new transport takes. PORTA_EXCHANGE_TRANSPORT=
 *  test-split chooses it on a host back end. */
#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"

static int usable(porta_exec exec, int host_reach, int mapped) {
  (void)exec;
  (void)mapped;
  const char *e = getenv("PORTA_EXCHANGE_TRANSPORT");
  return host_reach && e && !strcmp(e, "test-split");
}

static int reserve(porta_exchange *x, int64_t send_total, int64_t recv_total) {
  porta_memory_space space;
  PORTA_CHECK(porta_exchange_buffer_space(x->exec, &space));
  return porta_exchange_buffered_reserve_(x, send_total, recv_total, space);
}

/** The first half of `count` values (the second message takes the rest). */
static int64_t half(int64_t count) { return count / 2; }

/** Two messages of `vb`-byte values from (send) or into (receive) `buf` for each neighbour's
 *  `count` values at `displ`. */
static int split(porta_exchange *x, int sending, unsigned char *buf, int64_t vb) {
  for (int k = 0; k < x->n; ++k) {
    const int64_t count = sending ? x->send_count[k] : x->recv_count[k];
    const int64_t displ = sending ? x->send_displ[k] : x->recv_displ[k];
    if (count == 0) continue;
    const int64_t part[2] = {half(count), count - half(count)};
    for (int p = 0; p < 2; ++p) {
      unsigned char *at = buf + (displ + (p ? part[0] : 0)) * vb;
      const int bytes = (int)(part[p] * vb), tag = x->tag + p * 1000;
      const int rc =
          sending ? MPI_Isend(at, bytes, MPI_BYTE, x->rank[k], tag, x->comm, &x->req[x->nreq++])
                  : MPI_Irecv(at, bytes, MPI_BYTE, x->rank[k], tag, x->comm, &x->req[x->nreq++]);
      if (rc != MPI_SUCCESS)
        return porta_exchange_fail_(x, "porta_exchange_start", "a split message failed", rc);
    }
    if (sending) {
      x->messages += 1;
      x->bytes += count * vb;
    }
  }
  return PORTA_SUCCESS;
}

static int post(porta_exchange *x, const porta_view *fields, int nfields, int64_t vb, int *fence) {
  if (x->send_total == 0 && x->recv_total > 0)
    PORTA_CHECK(porta_exec_fence(x->exec, "porta_exchange_recv"));
  PORTA_CHECK(split(x, 0, porta_exchange_buffered_recv_buffer_(x), vb));
  PORTA_CHECK(porta_exchange_copy_(x, x->exec, fields, nfields, 1, x->send_buf.data));
  *fence = x->send_total > 0;
  return PORTA_SUCCESS;
}

static int send(porta_exchange *x, int64_t vb) { return split(x, 1, x->send_buf.data, vb); }

const porta_exchange_transport_ops porta_exchange_test_transport = {
    "test-split",
    PORTA_EXCHANGE_HOST,
    4, /* two messages each way */
    usable,
    reserve,
    porta_exchange_connect_none_,
    post,
    send,
    porta_exchange_buffered_land_,
    porta_exchange_buffered_recv_buffer_,
    porta_exchange_buffered_release_,
    0, /* its messages are not staged */
    NULL,
    NULL};
