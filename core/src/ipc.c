/** @file ipc.c
 *  Device buffers shared between the processes of a node (porta/ipc.h): the CUDA back end's,
 *  or "not available" elsewhere. */
#include "porta/ipc.h"

#include <string.h>

#include "porta/error.h"
#include "porta/runtime.h"
#include "runtime_private.h"

int porta_ipc_available(void) {
#if PORTA_ENABLE_CUDA
  return porta_device_id() >= 0 && porta_cuda_available_();
#else
  return 0;
#endif
}

int porta_ipc_alloc(size_t bytes, void **ptr, porta_ipc_handle *handle) {
  *ptr = NULL;
#if PORTA_ENABLE_CUDA
  if (porta_ipc_available()) return porta_cuda_ipc_alloc_(bytes, ptr, handle->bytes);
#else
  (void)bytes;
  (void)handle;
#endif
  return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_ipc_alloc", NULL,
                     "no GPU in use: buffers cannot be shared between processes");
}

void porta_ipc_free(void *ptr) {
#if PORTA_ENABLE_CUDA
  if (ptr) porta_cuda_ipc_free_(ptr);
#else
  (void)ptr;
#endif
}

int porta_ipc_open(const porta_ipc_handle *handle, void **ptr) {
  *ptr = NULL;
#if PORTA_ENABLE_CUDA
  if (porta_ipc_available()) return porta_cuda_ipc_open_(handle->bytes, ptr);
#else
  (void)handle;
#endif
  return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_ipc_open", NULL,
                     "no GPU in use: buffers cannot be shared between processes");
}

void porta_ipc_close(void *ptr) {
#if PORTA_ENABLE_CUDA
  if (ptr) porta_cuda_ipc_close_(ptr);
#else
  (void)ptr;
#endif
}

int porta_ipc_copy_async(porta_exec exec, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return PORTA_SUCCESS;
#if PORTA_ENABLE_CUDA
  if (exec.backend == PORTA_BACKEND_CUDA && porta_cuda_available_())
    return porta_cuda_copy_async_(dst, src, bytes, exec.instance);
#endif
  (void)exec;
  memcpy(dst, src, bytes);
  return PORTA_SUCCESS;
}
