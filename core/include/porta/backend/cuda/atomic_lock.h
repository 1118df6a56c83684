/** @file backend/cuda/atomic_lock.h
 *  The device side of porta/atomic.h's locks (nvcc, both passes): the device lock table and the
 *  device form of PORTA_ATOMIC_UPDATE. Included by atomic.h through PORTA_DEVICE_ATOMIC_LOCK_H. */
#ifndef PORTA_BACKEND_CUDA_ATOMIC_LOCK_H
#define PORTA_BACKEND_CUDA_ATOMIC_LOCK_H

/* Device lock table. It is static, so each translation unit compiled by nvcc has its own table
 * (this also links with -rdc, where a non-static table would be defined in every file): locks
 * exclude each other only among kernels of the same file. Updates of one object from kernels of
 * different files that run at the same time need a shared table (not provided).
 *
 * Spinning on a lock inside a warp needs care: before Volta the threads of a warp run in lockstep,
 * so `while (!try_lock()) {}` followed by the critical section deadlocks when two threads of one
 * warp contend (the winner waits at the reconvergence point for the loser, which spins forever).
 * The classic cure is a loop with a done flag that runs the critical section inside the iteration
 * in which the lock was won; PORTA_ATOMIC_UPDATE uses it on the device. */
static __device__ int porta_atomic_device_locks_[PORTA_ATOMIC_LOCK_COUNT];

/** Try to take the device spinlock of `addr`; 1 if taken (then fenced, so the holder sees the
 *  previous holder's writes). */
static inline __device__ int porta_atomic_device_try_lock(const void *addr) {
  int *l = &porta_atomic_device_locks_[porta_atomic_lock_index(addr)];
  if (atomicCAS(l, 0, 1) != 0) return 0;
  __threadfence();
  return 1;
}

/** Release the device spinlock of `addr`, after making the critical section's writes visible. */
static inline __device__ void porta_atomic_device_unlock(const void *addr) {
  __threadfence();
  atomicExch(&porta_atomic_device_locks_[porta_atomic_lock_index(addr)], 0);
}

#if defined(__CUDA_ARCH__)
#define PORTA_ATOMIC_UPDATE(ptr, ...)                                                              \
  do {                                                                                             \
    const void *porta_au_addr_ = (const void *)(ptr);                                              \
    int porta_au_done_ = 0;                                                                        \
    while (!porta_au_done_) {                                                                      \
      if (porta_atomic_device_try_lock(porta_au_addr_)) {                                          \
        __VA_ARGS__;                                                                               \
        porta_atomic_device_unlock(porta_au_addr_);                                                \
        porta_au_done_ = 1;                                                                        \
      }                                                                                            \
    }                                                                                              \
  } while (0)
#endif

#endif
