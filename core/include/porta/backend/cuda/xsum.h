/** @file backend/cuda/xsum.h
 *  The exact sum's value (porta_xsum_f64, porta/xsum.h) in a CUDA reduction: what the generic
 *  launchers do differently for it.
 *
 *  A thread's accumulator lives in registers as its expansion (a few doubles); its limbs are
 *  written only if the expansion ever overflows (porta_xsum_f64_init_lazy_), so a thread does
 *  not start by clearing 160 bytes of local memory. A kernel's end does not use the generic
 *  halving tree over 256 whole values in shared memory (200 bytes each: more than a block may
 *  hold statically): each warp merges its lanes' expansions into lane 0's by shuffles
 *  (error-free additions, so exact), lane 0 empties its expansion into its limbs, lanes that
 *  hold limbs add them by shuffles (integer sums: exact and in any order), the warps' limbs are
 *  added in shared memory, and the partials of the blocks limb by limb (porta_cuda_xsum_tail_).
 *  The value is the same whatever the order, as every exact sum is. */
#ifndef PORTA_BACKEND_CUDA_XSUM_H
#define PORTA_BACKEND_CUDA_XSUM_H

#if defined(__CUDACC__)
#include <type_traits>

#include "porta/xsum.h"

/** Whether V is the exact sum's value. */
template <class V> struct porta_cuda_is_xsum_ : std::is_same<V, porta_xsum_f64_value> {};

/** A reduction thread's starting value: F's identity (for the exact sum, without its limbs). */
template <class F> __device__ __forceinline__ void porta_cuda_value_init_(typename F::value *v) {
  if constexpr (porta_cuda_is_xsum_<typename F::value>::value)
    porta_xsum_f64_init_lazy_(v);
  else
    F::init(v);
}

/** The expansion's doubles every term of a batch goes through without a branch. */
#define PORTA_CUDA_XSUM_STEPS_ (PORTA_XSUM_TERMS < 3 ? PORTA_XSUM_TERMS : 3)

/** d += s for a body that added several terms (rare): out of line, on copies, so that the
 *  batches' code stays small and the accumulator stays in registers. */
template <class V> __device__ __noinline__ V porta_cuda_xsum_join_slow_(V d, V s) {
  porta_xsum_f64_join(&d, &s);
  return d;
}

/** F's body at one point (`call(&value)`) with a value that captures its term: the term, or 0
 *  where the body added none, or several (those are joined into `acc` at once). Inlined, the
 *  capture's tests fold away for a body that adds one term. */
template <class Call>
__device__ __forceinline__ double porta_cuda_xsum_capture_(porta_xsum_f64_value *acc,
                                                           const Call &call) {
  porta_xsum_f64_value c;
  porta_xsum_f64_init_lazy_(&c);
  c.count = PORTA_XSUM_CAPTURE_;
  call(&c);
  if (c.count == PORTA_XSUM_CAPTURED_) return c.term[0];
  if (c.count >= 0) *acc = porta_cuda_xsum_join_slow_(*acc, c);
  return 0.0;
}

/** Add the terms x[0..U) to v exactly, as porta_xsum_f64_add would one by one (the same value,
 *  so the same rounded bits): terms below the window's fast range truncated to its grid by a
 *  select, every term through the expansion's first PORTA_CUDA_XSUM_STEPS_ doubles, and one
 *  branch for the batch where any error is left for the rest of the cascade. Huge terms, Inf
 *  and NaN take porta_xsum_f64_add_one_. Without a branch per term the terms' chains of dependent
 *  additions overlap: an exact dot streams about twice as fast. */
template <int U>
__device__ __forceinline__ void porta_cuda_xsum_add_batch_(porta_xsum_f64_value *v, double *x) {
  const double fast = porta_xsum_pow2_(PORTA_XSUM_FAST_EXP_);
  bool off = false;
#pragma unroll
  for (int u = 0; u < U; ++u) off |= !(fabs(x[u]) < fast);
  if (off) { /* rolled, in a copy: one inlined add, and x stays in registers */
    double y[U];
#pragma unroll
    for (int u = 0; u < U; ++u) y[u] = x[u];
#pragma unroll 1
    for (int u = 0; u < U; ++u) porta_xsum_f64_add_one_(v, y[u]);
    return;
  }
#if PORTA_XSUM_MIN_EXP >= -1022
  const double tiny = porta_xsum_pow2_(PORTA_XSUM_MIN_EXP + 52);
  bool inexact = false;
#pragma unroll
  for (int u = 0; u < U; ++u) { /* porta_xsum_f64_edge_'s truncation, as a select */
    const double y = fabs(x[u]) < tiny ? porta_xsum_to_grid_(x[u]) : x[u];
    inexact |= y != x[u];
    x[u] = y;
  }
  if (inexact) v->flags |= PORTA_XSUM_INEXACT;
#endif
  double e[U];
  bool more = false;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    double r = porta_xsum_two_sum_(v->term[0], x[u], &v->term[0]);
#pragma unroll
    for (int k = 1; k < PORTA_CUDA_XSUM_STEPS_; ++k)
      r = porta_xsum_two_sum_(v->term[k], r, &v->term[k]);
    e[u] = r;
    more |= r != 0.0;
  }
  if (more) { /* the rest of the cascade, rolled as above (from the third double again: one more
                 TwoSum on this rare path, and the value stays exact) */
    double f[U];
#pragma unroll
    for (int u = 0; u < U; ++u) f[u] = e[u];
#pragma unroll 1
    for (int u = 0; u < U; ++u)
      if (f[u] != 0.0) porta_xsum_f64_deeper_(v, f[u]); /* exact from any double on */
  }
}

/** A thread's strided loop of a reduction, k = first, first + step, ... < end, calling
 *  `call(k, value *)` (F's body at point k) into acc: for the exact sum with BATCH in batches of
 *  PORTA_CUDA_XSUM_BATCH points where that is above 1 (porta_cuda_xsum_add_batch_), else point
 *  by point (unrolled as the compiler likes, or not at all with NOUNROLL). Only the rank-2 box
 *  kernel without a reduction end batches (mdrange.h): its bodies are stencil points, and the
 *  apps' exact sums take no end (the forms with and without an end are both compiled, so this
 *  halves the batches' compile time). A range's body may loop (miniFE's matvec row): batched,
 *  miniFE's exact CG iteration took 2.40x the default's against 1.68x on one H200. */
template <class F, bool BATCH, bool NOUNROLL = false, class Call>
__device__ __forceinline__ void porta_cuda_reduce_strided_(typename F::value *acc, int64_t first,
                                                           int64_t end, int64_t step,
                                                           const Call &call) {
  int64_t k = first;
  if constexpr (BATCH && porta_cuda_is_xsum_<typename F::value>::value &&
                PORTA_CUDA_XSUM_BATCH > 1) {
    constexpr int U = PORTA_CUDA_XSUM_BATCH;
#pragma unroll 1
    for (; k + (U - 1) * step < end; k += U * step) {
      double x[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        x[u] =
            porta_cuda_xsum_capture_(acc, [&](porta_xsum_f64_value *c) { call(k + u * step, c); });
      porta_cuda_xsum_add_batch_<U>(acc, x);
    }
  }
  if constexpr (NOUNROLL) {
#pragma unroll 1
    for (; k < end; k += step) call(k, acc);
  } else {
    for (; k < end; k += step) call(k, acc);
  }
}

/** N rows of limbs and status bits in shared memory added into `lim` and `*flg` (threads
 *  0..LIMBS-1 a limb each, thread 0 the bits), then a barrier. */
template <int N>
__device__ __forceinline__ void porta_cuda_xsum_rows_(const long long (*rows)[PORTA_XSUM_LIMBS],
                                                      const int *bits, long long *lim, int *flg) {
  const int t = threadIdx.x;
  if (t < PORTA_XSUM_LIMBS) {
    long long x = 0;
    for (int r = 0; r < N; ++r) x += rows[r][t];
    lim[t] = x;
  }
  if (t == 0) {
    int f = 0;
    for (int r = 0; r < N; ++r) f |= bits[r];
    *flg = f;
  }
  __syncthreads();
}

/** The exact sums of a block's BLOCK threads (whole warps) into `lim` (the limbs, each a sum of
 *  at most BLOCK normalised ones) and `*flg` (the status bits), in shared memory, for every
 *  thread after the call. Every thread of the block calls it. */
template <int BLOCK>
__device__ __forceinline__ void porta_cuda_xsum_block_(porta_xsum_f64_value acc, long long *lim,
                                                       int *flg) {
  constexpr int W = BLOCK / 32;
  constexpr unsigned all = 0xffffffffu;
  __shared__ long long wl[W][PORTA_XSUM_LIMBS];
  __shared__ int wf[W];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  for (int s = 16; s > 0; s >>= 1) { /* the expansions into lane 0's */
    double o[PORTA_XSUM_TERMS];
    for (int k = 0; k < PORTA_XSUM_TERMS; ++k) o[k] = __shfl_down_sync(all, acc.term[k], s);
    if (lane < s)
      for (int k = 0; k < PORTA_XSUM_TERMS; ++k)
        if (o[k] != 0.0) porta_xsum_f64_cascade_(&acc, o[k]);
  }
  if (lane != 0)
    for (int k = 0; k < PORTA_XSUM_TERMS; ++k) acc.term[k] = 0.0; /* lane 0 holds them now */
  if (lane == 0 || acc.count > 0) porta_xsum_f64_normalize(&acc); /* digits below 2^32 */
  int f = acc.flags;
  for (int s = 16; s > 0; s >>= 1) f |= __shfl_xor_sync(all, f, s);
  if (__ballot_sync(all, acc.count > 0) != 1u) { /* other lanes hold limbs too: add them */
    for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) {
      long long x = acc.count > 0 ? (long long)acc.limb[i] : 0;
      for (int s = 16; s > 0; s >>= 1) x += __shfl_down_sync(all, x, s);
      if (lane == 0) wl[warp][i] = x;
    }
  } else if (lane == 0) {
    for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) wl[warp][i] = (long long)acc.limb[i];
  }
  if (lane == 0) wf[warp] = f;
  __syncthreads();
  porta_cuda_xsum_rows_<W>(wl, wf, lim, flg);
}

/** Store a value whose limbs and status are in shared memory (threads 0..LIMBS-1 write one limb
 *  each, thread 0 the rest): its expansion empty, `count` its bound on normalised addends. */
__device__ __forceinline__ void porta_cuda_xsum_store_(porta_xsum_f64_value *dst,
                                                       const long long *lim, int flags, int count) {
  const int t = threadIdx.x;
  if (t < PORTA_XSUM_LIMBS) dst->limb[t] = (int64_t)lim[t];
  if (t == 0) {
    for (int k = 0; k < PORTA_XSUM_TERMS; ++k) dst->term[k] = 0.0;
    dst->count = count;
    dst->flags = flags;
  }
}

/** The end of a reduction kernel with the exact sum (launch.h's porta_cuda_reduce_tail_ for
 *  it): the block's sum into shared memory, then into `out` (a grid of one block) or into the
 *  block's partial, and the last block to finish adds all partials limb by limb: groups of
 *  threads take every G-th partial, one limb a thread, and the groups' sums are added in shared
 *  memory. No whole value is ever held in a thread's registers, which kept the kernel at 76
 *  registers (3 blocks an SM) where its loop needs far fewer. True in the block that wrote
 *  `out`. */
template <int BLOCK>
__device__ __forceinline__ bool
porta_cuda_xsum_tail_(porta_xsum_f64_value acc, porta_xsum_f64_value *partials, unsigned *counter,
                      porta_xsum_f64_value *out) {
  constexpr int G = BLOCK / PORTA_XSUM_LIMBS; /* groups of the last block */
  __shared__ long long lim[PORTA_XSUM_LIMBS];
  __shared__ long long gl[G][PORTA_XSUM_LIMBS];
  __shared__ int flg, gf[G], last;
  const int t = threadIdx.x;
  porta_cuda_xsum_block_<BLOCK>(acc, lim, &flg);
  if (gridDim.x == 1) {
    porta_cuda_xsum_store_(out, lim, flg, BLOCK);
    return true;
  }
  porta_cuda_xsum_store_(&partials[blockIdx.x], lim, flg, BLOCK);
  __threadfence();
  __syncthreads();
  if (t == 0) last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  __syncthreads();
  if (!last) return false;
  __threadfence();
  const int g = t / PORTA_XSUM_LIMBS, i = t % PORTA_XSUM_LIMBS;
  if (g < G) {
    long long x = 0;
    int f = 0;
    for (unsigned j = g; j < gridDim.x; j += G) {
      x += (long long)porta_cuda_load_cg_(&partials[j].limb[i]);
      if (i == 0) f |= porta_cuda_load_cg_(&partials[j].flags);
    }
    gl[g][i] = x;
    if (i == 0) gf[g] = f;
  }
  __syncthreads();
  porta_cuda_xsum_rows_<G>(gl, gf, lim, &flg);
  porta_cuda_xsum_store_(out, lim, flg, (int)gridDim.x * BLOCK);
  return true;
}

#endif
#endif
