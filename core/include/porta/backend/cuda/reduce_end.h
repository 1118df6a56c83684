/** @file backend/cuda/reduce_end.h
 *  A reduction's end on the GPU (porta/reduce_end.h), run by one thread of the reduction's last
 *  block once the value is final; and the cross-rank sum it may hold, which the exchange
 *  library's sum kernel and a kernel's own sums over the ranks (porta_reduce_end_sum and
 *  _gather) run too (the same code, so the same bits every way). Reached through
 *  porta/reduce_end.h (PORTA_DEVICE_REDUCE_END_H, the back end's hooks). */
#ifndef PORTA_BACKEND_CUDA_REDUCE_END_H
#define PORTA_BACKEND_CUDA_REDUCE_END_H

#ifndef PORTA_REDUCE_END_H
#error "include porta/reduce_end.h, which reaches this file through its hook"
#endif

#if defined(__CUDACC__)

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

/** The tag of run `run`'s words, in their high half: 1 .. 2^32 - 1, never the zeroed inbox's
 *  and never run + 2's (which uses the same buffer). */
__device__ __forceinline__ unsigned long long porta_cuda_run_tag_(unsigned long long run) {
  return (run % 0xffffffffull + 1) << 32;
}

/** Word v stored at w[0], w[1] as two 64-bit words of (tag, half of v), each stored whole. */
__device__ __forceinline__ void
porta_cuda_store_tagged_(unsigned long long *w, unsigned long long v, unsigned long long tag) {
  porta_cuda_store_volatile_(&w[0], tag | (v & 0xffffffffull));
  porta_cuda_store_volatile_(&w[1], tag | (v >> 32));
}

/** The word at w[0], w[1] once both halves carry `tag` (one thread); a writer that never comes
 *  stops the GPU PORTA_CROSS_SUM_TIMEOUT_S after `start`. */
__device__ inline unsigned long long porta_cuda_load_tagged_(const unsigned long long *w,
                                                             unsigned long long tag,
                                                             unsigned long long start) {
  unsigned long long lo, hi;
  while (((lo = porta_cuda_load_volatile_(&w[0])) & ~0xffffffffull) != tag ||
         ((hi = porta_cuda_load_volatile_(&w[1])) & ~0xffffffffull) != tag)
    if (porta_cuda_now_ns_() - start >
        (unsigned long long)PORTA_CROSS_SUM_TIMEOUT_S * 1000000000ull)
      __trap();
  return (hi << 32) | (lo & 0xffffffffull);
}

/** Run `run`'s values[0 .. count - 1] written into every rank's inbox (buffer run % 2, this
 *  rank's slots). Each double travels as two 64-bit words of (its half, the run's low 32
 *  bits), stored whole, so a reader that sees the run in both has the value: no fence and no
 *  flag of its own (NCCL's LL protocol). */
__device__ inline void porta_cuda_cross_post_(unsigned char *const *inbox, int nranks, int rank,
                                              unsigned long long run, const double *values,
                                              int count) {
  typedef unsigned long long u64;
  const u64 tag = porta_cuda_run_tag_(run);
  const long long words = (long long)nranks * PORTA_CROSS_SUM_SLOTS * 2; /* per buffer */
  for (int r = 0; r < nranks; ++r) {
    u64 *dst = (u64 *)inbox[r] + (run & 1) * words + (long long)rank * PORTA_CROSS_SUM_SLOTS * 2;
    for (int i = 0; i < count; ++i)
      porta_cuda_store_tagged_(&dst[2 * i], (u64)__double_as_longlong(values[i]), tag);
  }
}

/** Value i of rank q in run `run`, from this rank's inbox, once it has come. */
__device__ inline double porta_cuda_cross_term_(unsigned char *const *inbox, int nranks, int rank,
                                                unsigned long long run, int q, int i,
                                                unsigned long long start) {
  typedef unsigned long long u64;
  const long long words = (long long)nranks * PORTA_CROSS_SUM_SLOTS * 2;
  const u64 *w =
      (const u64 *)inbox[rank] + (run & 1) * words + ((long long)q * PORTA_CROSS_SUM_SLOTS + i) * 2;
  return __longlong_as_double(
      (long long)porta_cuda_load_tagged_(w, porta_cuda_run_tag_(run), start));
}

/** values[0 .. count - 1] (count <= PORTA_CROSS_SUM_SLOTS) summed over `nranks` ranks, one
 *  thread: posted to every rank (porta_cuda_cross_post_), then every rank's values awaited here
 *  and added as ((x1 + x2) + ...) + x0 (on two ranks x1 + x0: a + b on both, as MPI's) back
 *  into values; `*runs` counts the sums. */
__device__ inline void porta_cuda_cross_sum_(unsigned char *const *inbox, int nranks, int rank,
                                             unsigned long long *runs, double *values, int count) {
  const unsigned long long run = porta_cuda_load_volatile_(runs) + 1;
  porta_cuda_cross_post_(inbox, nranks, rank, run, values, count);
  const unsigned long long start = porta_cuda_now_ns_();
  for (int i = 0; i < count; ++i) {
    double s = porta_cuda_cross_term_(inbox, nranks, rank, run, nranks > 1 ? 1 : 0, i, start);
    for (int r = 2; r < nranks; ++r)
      s += porta_cuda_cross_term_(inbox, nranks, rank, run, r, i, start);
    if (nranks > 1) s += porta_cuda_cross_term_(inbox, nranks, rank, run, 0, i, start);
    values[i] = s;
  }
  porta_cuda_store_volatile_(runs, run);
}

/** Every rank's mine[0 .. count - 1] (count <= PORTA_CROSS_SUM_SLOTS) into all[count q ..] for
 *  rank q, one thread; one run of the same counter as the sums (so it may follow them). */
__device__ inline void porta_cuda_cross_gather_(unsigned char *const *inbox, int nranks, int rank,
                                                unsigned long long *runs, const double *mine,
                                                int count, double *all) {
  const unsigned long long run = porta_cuda_load_volatile_(runs) + 1;
  porta_cuda_cross_post_(inbox, nranks, rank, run, mine, count);
  const unsigned long long start = porta_cuda_now_ns_();
  for (int q = 0; q < nranks; ++q)
    for (int i = 0; i < count; ++i)
      all[q * count + i] = porta_cuda_cross_term_(inbox, nranks, rank, run, q, i, start);
  porta_cuda_store_volatile_(runs, run);
}

#if defined(__CUDA_ARCH__)
/* The hooks of porta/reduce_end.h's kernel-side sums (the device pass only). */
#define PORTA_CROSS_SUM_(e, values, count)                                                         \
  porta_cuda_cross_sum_((e)->inbox, (e)->nranks, (e)->rank, (e)->runs, (values), (count))
#define PORTA_CROSS_GATHER_(e, mine, count, all)                                                   \
  porta_cuda_cross_gather_((e)->inbox, (e)->nranks, (e)->rank, (e)->runs, (mine), (count), (all))
#endif

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
