/** @file backend/cuda/loop.h
 *  The device side of porta/loop.h (nvcc): a deciding loop's kernel sets the CUDA graph's
 *  condition (the conditional while node, CUDA 12.4 and later) from the device. Included by
 *  loop.h through PORTA_DEVICE_LOOP_H. */
#ifndef PORTA_BACKEND_CUDA_LOOP_H
#define PORTA_BACKEND_CUDA_LOOP_H

#if defined(__CUDA_ARCH__) && CUDART_VERSION >= 12040
/** Another pass of the graph's while node follows when `v` is non-zero. */
#define PORTA_LOOP_SET_CONDITION_(cond, v) cudaGraphSetConditional((cond), (v) ? 1u : 0u)
#endif

#endif
