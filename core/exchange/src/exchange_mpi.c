/** @file exchange_mpi.c
 *  The MPI helpers every transport uses (exchange_private.h): MPI's failures as Porta errors,
 *  this node's name as a number, and one message to and from each neighbour of a plan. They
 *  call nothing of the transports, so exchange.c and the transport files depend on this file
 *  and not on each other. */
#include <stdint.h>

#include "exchange_private.h"

int porta_exchange_mpi_error_(const char *op, const char *label, const char *what, int rc) {
  char err[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, err, &len);
  return porta_error(PORTA_ERROR_BACKEND, op, label, "%s%s%s", what, len ? ": " : "", err);
}

int porta_exchange_fail_(porta_exchange *x, const char *op, const char *what, int rc) {
  return porta_exchange_mpi_error_(op, x->label, what, rc);
}

uint64_t porta_exchange_node_id_(void) {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < len; ++i) h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
  return h;
}

int porta_exchange_swap_(porta_exchange *x, const char *op, const char *what, const int *part,
                         const void *out, void *in, int bytes) {
  int nreq = 0;
  for (int k = 0; k < x->n; ++k) {
    if (part && !part[k]) continue;
    int rc = MPI_Irecv((char *)in + (size_t)k * (size_t)bytes, bytes, MPI_BYTE, x->rank[k], x->tag,
                       x->comm, &x->req[nreq++]);
    if (rc != MPI_SUCCESS) return porta_exchange_fail_(x, op, what, rc);
  }
  for (int k = 0; k < x->n; ++k) {
    if (part && !part[k]) continue;
    int rc = MPI_Isend((const char *)out + (size_t)k * (size_t)bytes, bytes, MPI_BYTE, x->rank[k],
                       x->tag, x->comm, &x->req[nreq++]);
    if (rc != MPI_SUCCESS) return porta_exchange_fail_(x, op, what, rc);
  }
  int rc = MPI_Waitall(nreq, x->req, MPI_STATUSES_IGNORE);
  return rc == MPI_SUCCESS ? PORTA_SUCCESS : porta_exchange_fail_(x, op, what, rc);
}
