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

/** values[0 .. count - 1] (count <= PORTA_CROSS_SUM_SLOTS) summed over `nranks` ranks, one
 *  thread: written into every rank's inbox (buffer run % 2, this rank's slots), then every
 *  rank's values awaited here and added as ((x1 + x2) + ...) + x0 (on two ranks x1 + x0: a + b
 *  on both, as MPI's) back into values; `*runs` counts the sums. Each double travels as two
 *  64-bit words of (its half, the run's low 32 bits), stored whole, so a reader that sees the
 *  run in both has the value: no fence and no flag of its own (NCCL's LL protocol). */
__device__ inline void porta_cuda_cross_sum_(unsigned char *const *inbox, int nranks, int rank,
                                             unsigned long long *runs, double *values, int count) {
  typedef unsigned long long u64;
  const u64 run = porta_cuda_load_volatile_(runs) + 1;
  /* 1 .. 2^32 - 1: never the zeroed inbox's, and never run + 2's (the same buffer) */
  const u64 tag = (run % 0xffffffffull + 1) << 32;
  const long long words = (long long)nranks * PORTA_CROSS_SUM_SLOTS * 2; /* per buffer */
  for (int r = 0; r < nranks; ++r) {
    u64 *dst = (u64 *)inbox[r] + (run & 1) * words + (long long)rank * PORTA_CROSS_SUM_SLOTS * 2;
    for (int i = 0; i < count; ++i) {
      const u64 v = (u64)__double_as_longlong(values[i]);
      porta_cuda_store_volatile_(&dst[2 * i], tag | (v & 0xffffffffull));
      porta_cuda_store_volatile_(&dst[2 * i + 1], tag | (v >> 32));
    }
  }
  const u64 *in = (const u64 *)inbox[rank] + (run & 1) * words;
  const u64 start = porta_cuda_now_ns_();
  /* term i of rank q, once both its words carry this run */
  auto term = [&](int q, int i) {
    const u64 *w = in + ((long long)q * PORTA_CROSS_SUM_SLOTS + i) * 2;
    u64 lo, hi;
    while (((lo = porta_cuda_load_volatile_(&w[0])) & ~0xffffffffull) != tag ||
           ((hi = porta_cuda_load_volatile_(&w[1])) & ~0xffffffffull) != tag)
      if (porta_cuda_now_ns_() - start > (u64)PORTA_CROSS_SUM_TIMEOUT_S * 1000000000ull) __trap();
    return __longlong_as_double((long long)((hi << 32) | (lo & 0xffffffffull)));
  };
  for (int i = 0; i < count; ++i) {
    double s = term(nranks > 1 ? 1 : 0, i);
    for (int r = 2; r < nranks; ++r) s += term(r, i);
    if (nranks > 1) s += term(0, i);
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
