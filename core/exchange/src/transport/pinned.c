/** @file pinned.c
 *  Pinned, mapped host memory that a GPU's pack and unpack kernels reach and MPI sends: the
 *  transport of last resort on a GPU. */
#include "transport.h"

static int usable(porta_exec exec, int host_reach, int mapped) {
  (void)exec;
  (void)mapped;
  return !host_reach;
}

static int reserve(porta_exchange *x, int64_t send_total, int64_t recv_total) {
  porta_memory_space space;
  PORTA_CHECK(porta_exchange_buffer_space(x->exec, &space));
  return porta_exchange_buffered_reserve_(x, send_total, recv_total, space);
}

/** At the plan's creation, the answer to the neighbours' offers of mapped memory (none taken,
 *  none offered): every GPU rank takes part in that hand-shake, so that the pairs agree. */
static int connect(porta_exchange *x, int first) {
  return first ? porta_exchange_ipc_handshake_(x, 1) : PORTA_SUCCESS;
}

const porta_exchange_transport_ops porta_exchange_pinned_transport =
    PORTA_EXCHANGE_BUFFERED_TRANSPORT("pinned-host", PORTA_EXCHANGE_PINNED, usable, reserve,
                                      connect, 1);
