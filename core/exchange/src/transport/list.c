/** @file list.c
 *  The host-driven transports, in the order the chooser tries them (a new transport is a file
 *  of this folder and a line here), and the environment's say in the choice
 *  (PORTA_EXCHANGE_TRANSPORT: auto, cuda-aware-mpi, cuda-ipc or pinned-host). */
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "transport.h"

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

/** The transports in the order they are tried: the first usable one serves. */
#ifdef PORTA_EXCHANGE_TEST_TRANSPORT
extern const porta_exchange_transport_ops porta_exchange_test_transport;
#endif
static const porta_exchange_transport_ops *const transports[] = {
#ifdef PORTA_EXCHANGE_TEST_TRANSPORT
    &porta_exchange_test_transport, /* (tests/exchange_transport/split_transport.c) */
#endif
    &porta_exchange_host_transport, &porta_exchange_cuda_mpi_transport,
    &porta_exchange_ipc_transport,  &porta_exchange_pinned_transport,
};

const porta_exchange_transport_ops *porta_exchange_transport_choose_(porta_exec exec,
                                                                     int host_reach, int mapped) {
  for (size_t k = 0; k < sizeof transports / sizeof transports[0]; ++k)
    if (transports[k]->usable(exec, host_reach, mapped)) return transports[k];
  return &porta_exchange_pinned_transport; /* (usable wherever the host is not) */
}

/** The queued transports, preferred first: the peer transport where it can serve, NCCL for
 *  the rest (and everywhere it cannot). */
const porta_exchange_queued_ops *const porta_exchange_queued_list_[] = {
    &porta_exchange_peer_queued,
    &porta_exchange_nccl_queued,
};
const int porta_exchange_queued_count_ =
    (int)(sizeof porta_exchange_queued_list_ / sizeof porta_exchange_queued_list_[0]);
