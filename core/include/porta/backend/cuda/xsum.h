/** @file backend/cuda/xsum.h
 *  The exact sum's value (porta_xsum_f64, porta/xsum.h) in a CUDA reduction: what the generic
 *  launchers do differently for it.
 *
 *  A thread's accumulator lives in registers as its expansion (a few doubles); its limbs are
 *  written only if the expansion ever overflows (porta_xsum_f64_init_lazy_), so a thread does
 *  not start by clearing 160 bytes of local memory. The block's reduction does not use the
 *  generic halving tree over 256 whole values in shared memory (200 bytes each: more than a
 *  block may hold statically): each warp merges its lanes' expansions into lane 0's by shuffles
 *  (error-free additions, so exact), lane 0 empties its expansion into its limbs, lanes that
 *  hold limbs add them by shuffles (integer sums: exact and in any order), and thread 0 adds the
 *  warps' limbs. The value is the same whatever the order, as every exact sum is. */
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

/** The exact sums of a block's PORTA_CUDA_BLOCK threads (blocks of whole warps), valid in
 *  thread 0. Every thread of the block calls it. */
template <int BLOCK>
__device__ __forceinline__ porta_xsum_f64_value porta_cuda_xsum_block_(porta_xsum_f64_value acc) {
  constexpr int W = BLOCK / 32;
  constexpr unsigned all = 0xffffffffu;
  __shared__ long long limbs[W][PORTA_XSUM_LIMBS];
  __shared__ int flags[W];
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
      if (lane == 0) limbs[warp][i] = x;
    }
  } else if (lane == 0) {
    for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) limbs[warp][i] = (long long)acc.limb[i];
  }
  if (lane == 0) flags[warp] = f;
  __syncthreads();
  porta_xsum_f64_value r;
  porta_xsum_f64_init_lazy_(&r);
  if (t == 0) {
    for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) {
      long long x = 0;
      for (int w = 0; w < W; ++w) x += limbs[w][i];
      r.limb[i] = (int64_t)x;
    }
    for (int w = 0; w < W; ++w) r.flags |= flags[w];
    r.count = BLOCK; /* a sum of at most BLOCK normalised values */
  }
  return r;
}

#endif
#endif
