/** @file ipc.h
 *  Device memory shared between the processes of one node (CUDA IPC): what a CUDA-aware MPI
 *  does inside a node, for the exchange plans of the mini-apps when their MPI is not
 *  CUDA-aware. One process allocates a buffer and passes its handle (plain bytes: send them
 *  with MPI) to another, which maps the buffer into its own address space; kernels of either
 *  process then read and write it (over NVLink or PCIe peer access). Ordering is the caller's:
 *  a fence on the writer, then a message to the reader. */
#ifndef PORTA_IPC_H
#define PORTA_IPC_H

#include <stddef.h>

#include "porta/macros.h"
#include "porta/runtime.h"

PORTA_EXTERN_C_BEGIN

/** A buffer's handle, valid in any process of the node. */
typedef struct porta_ipc_handle {
  unsigned char bytes[64];
} porta_ipc_handle;

/** 1 when this process can share device buffers (the CUDA back end is the default and has a
 *  GPU), else 0. */
PORTA_API int porta_ipc_available(void);
/** Allocate `bytes` of device memory that other processes can map, and its handle. */
PORTA_API int porta_ipc_alloc(size_t bytes, void **ptr, porta_ipc_handle *handle);
PORTA_API void porta_ipc_free(void *ptr);
/** Map another process's buffer; fails (PORTA_ERROR_BACKEND) when the two GPUs cannot reach
 *  each other's memory or the handle is this process's own. */
PORTA_API int porta_ipc_open(const porta_ipc_handle *handle, void **ptr);
PORTA_API void porta_ipc_close(void *ptr);
/** Copy `bytes` between any two buffers `exec` can reach (device, mapped peer, pinned host),
 *  queued on its instance (a host instance copies at once). */
PORTA_API int porta_ipc_copy_async(porta_exec exec, void *dst, const void *src, size_t bytes);

PORTA_EXTERN_C_END

#endif /* PORTA_IPC_H */
