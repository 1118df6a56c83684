/** @file ipc.c
 *  Device buffers shared between the processes of a node (porta/ipc.h): through the hooks of
 *  the back end that has them (CUDA's), or "not available" elsewhere. */
#include "porta/ipc.h"

#include <string.h>

#include "porta/error.h"
#include "porta/runtime.h"
#include "runtime_private.h"

/** The compiled-in back end with IPC hooks, or NULL. */
static const porta_backend_ops *ipc_backend(void) {
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    if (porta_backend_ops_[b]->ipc_alloc) return porta_backend_ops_[b];
  return NULL;
}

int porta_ipc_available(void) {
  const porta_backend_ops *ops = ipc_backend();
  return ops && porta_device_id() >= 0 && ops->available();
}

int porta_ipc_alloc(size_t bytes, void **ptr, porta_ipc_handle *handle) {
  *ptr = NULL;
  if (porta_ipc_available()) return ipc_backend()->ipc_alloc(bytes, ptr, handle->bytes);
  return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_ipc_alloc", NULL,
                     "no GPU in use: buffers cannot be shared between processes");
}

void porta_ipc_free(void *ptr) {
  const porta_backend_ops *ops = ipc_backend();
  if (ptr && ops) ops->ipc_free(ptr);
}

int porta_ipc_open(const porta_ipc_handle *handle, void **ptr) {
  *ptr = NULL;
  if (porta_ipc_available()) return ipc_backend()->ipc_open(handle->bytes, ptr);
  return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_ipc_open", NULL,
                     "no GPU in use: buffers cannot be shared between processes");
}

void porta_ipc_close(void *ptr) {
  const porta_backend_ops *ops = ipc_backend();
  if (ptr && ops) ops->ipc_close(ptr);
}

int porta_ipc_copy_async(porta_exec exec, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return PORTA_SUCCESS;
  const porta_backend_ops *ops = porta_backend_ops_of_(exec.backend);
  if (ops && ops->copy_async && porta_backend_available(exec.backend))
    return ops->copy_async(dst, src, bytes, exec.instance);
  memcpy(dst, src, bytes);
  return PORTA_SUCCESS;
}
