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
