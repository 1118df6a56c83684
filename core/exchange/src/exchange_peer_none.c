/** @file exchange_peer_none.c
 *  A build without the CUDA back end has no peer transport (exchange_peer.h): every rank says so
 *  alike, and the rest is never reached. */
#include "exchange_peer.h"
#include "porta/error.h"

static int none(const char *op) {
  return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "this build has no GPU peer transport");
}

int porta_peer_built_(void) { return 0; }
int porta_peer_exchange_queue_(const porta_peer_exchange_args *a, void *queue) {
  (void)a, (void)queue;
  return none("porta_exchange_queue");
}
int porta_peer_sum_queue_(const porta_peer_sum_args *a, void *queue) {
  (void)a, (void)queue;
  return none("porta_device_comm_sum");
}
int porta_peer_alloc_(size_t bytes, void **ptr) {
  (void)bytes;
  *ptr = NULL;
  return none("porta_peer_alloc");
}
void porta_peer_free_(void *ptr) { (void)ptr; }
int porta_peer_zero_(void *ptr, size_t bytes) {
  (void)ptr, (void)bytes;
  return none("porta_peer_zero");
}
int porta_peer_upload_(void *dst, const void *src, size_t bytes) {
  (void)dst, (void)src, (void)bytes;
  return none("porta_peer_upload");
}
int porta_peer_copy_(void *dst, const void *src, size_t bytes) {
  (void)dst, (void)src, (void)bytes;
  return none("porta_peer_copy");
}
