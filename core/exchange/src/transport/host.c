/** @file host.c
 *  Host memory: a host back end's plans, whose buffers MPI reaches as they are. */
#include "transport.h"

static int usable(porta_exec exec, int host_reach, int mapped) {
  (void)exec;
  (void)mapped;
  return host_reach;
}

static int reserve(porta_exchange *x, int64_t send_total, int64_t recv_total) {
  porta_memory_space space;
  PORTA_CHECK(porta_exchange_buffer_space(x->exec, &space));
  return porta_exchange_buffered_reserve_(x, send_total, recv_total, space);
}

const porta_exchange_transport_ops porta_exchange_host_transport =
    PORTA_EXCHANGE_BUFFERED_TRANSPORT("host", PORTA_EXCHANGE_HOST, usable, reserve,
                                      porta_exchange_connect_none_, 0);
