/** @file backend/cuda/reduce_end.h
 *  A reduction's end on the GPU (porta/reduce_end.h), run by one thread of the reduction's last
 *  block once the value is final; and the cross-rank sum it may hold, which the exchange
 *  library's sum kernel runs too (the same code, so the same bits either way). */
#ifndef PORTA_BACKEND_CUDA_REDUCE_END_H
#define PORTA_BACKEND_CUDA_REDUCE_END_H

#if defined(__CUDACC__)
#include "porta/reduce_end.h"

__device__ __forceinline__ unsigned long long
porta_cuda_load_volatile_(const unsigned long long *p) {
  return *(const volatile unsigned long long *)p;
}

__device__ __forceinline__ void porta_cuda_store_volatile_(unsigned long long *p,
                                                           unsigned long long v) {
  *(volatile unsigned long long *)p = v;
}

__device__ __forceinline__ unsigned long long porta_cuda_now_ns_() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/** Until flags[0 .. n - 1] at the start of `inbox` reach `run` (one thread): a writer that
 *  never comes stops the GPU after PORTA_CROSS_SUM_TIMEOUT_S. */
__device__ inline void porta_cuda_wait_flags_(const unsigned char *inbox, int n,
                                              unsigned long long run) {
  const unsigned long long *flags = (const unsigned long long *)inbox;
  const unsigned long long start = porta_cuda_now_ns_();
  for (int k = 0; k < n; ++k)
    while (porta_cuda_load_volatile_(&flags[k]) < run)
      if (porta_cuda_now_ns_() - start >
          (unsigned long long)PORTA_CROSS_SUM_TIMEOUT_S * 1000000000ull)
        __trap();
  __threadfence();
}

/** values[0 .. count - 1] (count <= PORTA_CROSS_SUM_SLOTS) summed over `nranks` ranks, one
 *  thread: written into every rank's inbox (buffer run % 2, this rank's slots), this rank's
 *  flag raised there, every rank's flag awaited here, then ((x1 + x2) + ...) + x0 (on two
 *  ranks x1 + x0: a + b on both, as MPI's) back into values; `*runs` counts the sums. */
__device__ inline void porta_cuda_cross_sum_(unsigned char *const *inbox, int nranks, int rank,
                                             unsigned long long *runs, double *values, int count) {
  const unsigned long long run = porta_cuda_load_volatile_(runs) + 1;
  const long long slots = (long long)nranks * PORTA_CROSS_SUM_SLOTS; /* doubles per buffer */
  for (int r = 0; r < nranks; ++r) {
    double *dst = (double *)(inbox[r] + PORTA_CROSS_SUM_FLAG_BYTES) + (run & 1) * slots +
                  (long long)rank * PORTA_CROSS_SUM_SLOTS;
    for (int i = 0; i < count; ++i) dst[i] = values[i];
  }
  __threadfence_system();
  for (int r = 0; r < nranks; ++r)
    porta_cuda_store_volatile_((unsigned long long *)inbox[r] + rank, run);
  porta_cuda_wait_flags_(inbox[rank], nranks, run);
  const double *in = (const double *)(inbox[rank] + PORTA_CROSS_SUM_FLAG_BYTES) + (run & 1) * slots;
  for (int i = 0; i < count; ++i) {
    double s = __ldcg(in + (nranks > 1 ? PORTA_CROSS_SUM_SLOTS : 0) + i);
    for (int r = 2; r < nranks; ++r) s += __ldcg(in + (long long)r * PORTA_CROSS_SUM_SLOTS + i);
    if (nranks > 1) s += __ldcg(in + i);
    values[i] = s;
  }
  porta_cuda_store_volatile_(runs, run);
}

/** The end `e` of a reduction whose final value is at `value` (one thread, after writing it). */
__device__ inline void porta_cuda_reduce_end_(const porta_reduce_end &e, void *value) {
  if (e.nranks > 0) porta_cuda_cross_sum_(e.inbox, e.nranks, e.rank, e.runs, (double *)value, 1);
  for (int k = 0; k < e.nsteps; ++k) {
    const porta_scalar_step &s = e.steps[k];
    *s.dst = s.kind == PORTA_SCALAR_DIV ? *s.a / *s.b : *s.a;
  }
}

#endif
#endif
