/** @file cuda_mpi.c
 *  Device buffers handed to a CUDA-aware MPI (Open MPI's run-time query says so, and
 *  PORTA_EXCHANGE_TRANSPORT does not forbid it). */
#include "transport.h"

static int usable(porta_exec exec, int host_reach, int mapped) {
  (void)mapped;
  return !host_reach && porta_exchange_cuda_mpi_(exec);
}

static int reserve(porta_exchange *x, int64_t send_total, int64_t recv_total) {
  return porta_exchange_buffered_reserve_(x, send_total, recv_total,
                                          porta_exec_memory_space(x->exec));
}

const porta_exchange_transport_ops porta_exchange_cuda_mpi_transport =
    PORTA_EXCHANGE_BUFFERED_TRANSPORT("cuda-aware-mpi", PORTA_EXCHANGE_CUDA_MPI, usable, reserve,
                                      porta_exchange_connect_none_, 0);
