/** @file backend/cuda/kernels.h
 *  CUDA generators. When nvcc compiles a kernel file as CUDA these produce the
 *  __global__ kernels and their launchers; in every other compilation the
 *  descriptor's CUDA slot is empty and a launch on CUDA reports that the kernel
 *  was not compiled for it. The functor reaches the device by value as a kernel
 *  parameter; bodies are inlined, never called through pointers.
 *
 *  Reductions run in one pass: each block reduces in shared memory, writes a
 *  partial, and the last block to finish combines the partials in block order.
 *  Deterministic reductions give each warp whole PORTA_DET_CHUNK chunks, lane l
 *  taking indices l, l+32, ...; lanes and chunks are combined by the same
 *  halving trees as the host back ends, so the bits match for any block size. */
#ifndef PORTA_BACKEND_CUDA_KERNELS_H
#define PORTA_BACKEND_CUDA_KERNELS_H

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include "porta/backend/cuda/runtime.h"

#define PORTA_CUDA_REF_(NAME) NAME##_porta_cuda_
#define PORTA_CUDA_BLOCK 256
#define PORTA_CUDA_STREAM_(L) ((cudaStream_t)porta_cuda_stream_((L)->exec.instance))

/** Grid size for n work items at `per_block` items per block. */
static inline unsigned porta_cuda_grid_(int64_t n, int64_t per_block) {
  int64_t g = (n + per_block - 1) / per_block, m = porta_cuda_max_grid_();
  return (unsigned)(g < 1 ? 1 : (g > m ? m : g));
}

/** Shuffle any trivially copyable value down by `delta` lanes within `width`. */
template <typename T>
__device__ __forceinline__ T porta_cuda_shfl_down_(T v, int delta, int width) {
  T out;
  const int nw = (int)((sizeof(T) + 3) / 4);
  int w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
  for (int k = 0; k < nw; ++k) w[k] = __shfl_down_sync(0xffffffffu, w[k], delta, width);
  memcpy(&out, w, sizeof(T));
  return out;
}

/** Load from L2 (bypassing L1): partials written by other blocks of the same kernel.
 *  Whole 4-byte words when the type allows, bytes otherwise. */
template <typename T> __device__ __forceinline__ T porta_cuda_load_cg_(const T *p) {
  T out;
  if (alignof(T) >= 4 && sizeof(T) % 4 == 0) {
    unsigned w[(sizeof(T) + 3) / 4];
    const unsigned *src = (const unsigned *)p;
    for (int k = 0; k < (int)(sizeof(T) / 4); ++k) w[k] = __ldcg(src + k);
    memcpy(&out, w, sizeof(T));
  } else {
    unsigned char b[sizeof(T)];
    const unsigned char *src = (const unsigned char *)p;
    for (int k = 0; k < (int)sizeof(T); ++k) b[k] = __ldcg(src + k);
    memcpy(&out, b, sizeof(T));
  }
  return out;
}

/* ---------------- range ---------------- */

#define PORTA_CUDA_FOR_(NAME, ARGS_T)                                                              \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, int64_t b, int64_t e) {              \
    const int64_t step = (int64_t)gridDim.x * blockDim.x;                                          \
    for (int64_t i = b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < e; i += step)         \
      NAME##_porta_body_(&a, i);                                                                   \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    (void)result;                                                                                  \
    const int64_t n = L->range.end - L->range.begin;                                               \
    if (n <= 0) return 0;                                                                          \
    NAME##_porta_cuda_k_<<<porta_cuda_grid_(n, PORTA_CUDA_BLOCK), PORTA_CUDA_BLOCK, 0,             \
                           PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, L->range.begin,         \
                                                    L->range.end);                                 \
    return porta_cuda_launched_(L->label);                                                         \
  }

/** Block-level tail shared by every reduction kernel: reduce `acc` over the block,
 *  store the block's partial, and let the last block combine all partials in order. */
#define PORTA_CUDA_REDUCE_TAIL_(R, acc, partials, counter, out)                                    \
  {                                                                                                \
    __shared__ R##_value sh_[PORTA_CUDA_BLOCK];                                                    \
    __shared__ int last_;                                                                          \
    const int t_ = threadIdx.x;                                                                    \
    sh_[t_] = acc;                                                                                 \
    __syncthreads();                                                                               \
    for (int s_ = PORTA_CUDA_BLOCK / 2; s_ > 0; s_ >>= 1) {                                        \
      if (t_ < s_) R##_join(&sh_[t_], &sh_[t_ + s_]);                                              \
      __syncthreads();                                                                             \
    }                                                                                              \
    if (t_ == 0) {                                                                                 \
      partials[blockIdx.x] = sh_[0];                                                               \
      __threadfence();                                                                             \
      last_ = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;                                  \
    }                                                                                              \
    __syncthreads();                                                                               \
    if (last_) {                                                                                   \
      __threadfence();                                                                             \
      R##_value x_;                                                                                \
      R##_init(&x_);                                                                               \
      for (unsigned j_ = t_; j_ < gridDim.x; j_ += PORTA_CUDA_BLOCK) {                             \
        R##_value p_ = porta_cuda_load_cg_(&partials[j_]);                                         \
        R##_join(&x_, &p_);                                                                        \
      }                                                                                            \
      sh_[t_] = x_;                                                                                \
      __syncthreads();                                                                             \
      for (int s_ = PORTA_CUDA_BLOCK / 2; s_ > 0; s_ >>= 1) {                                      \
        if (t_ < s_) R##_join(&sh_[t_], &sh_[t_ + s_]);                                            \
        __syncthreads();                                                                           \
      }                                                                                            \
      if (t_ == 0) *(out) = sh_[0];                                                                \
    }                                                                                              \
  }

/** Deterministic tail: combine nc chunk partials by the host's halving tree, in one block. */
#define PORTA_CUDA_DET_TREE_KERNEL_(NAME, R)                                                       \
  static __global__ void NAME##_porta_cuda_tree_(R##_value *p, int64_t n, R##_value *out) {        \
    int64_t s = 1;                                                                                 \
    while (s < n) s <<= 1;                                                                         \
    for (s >>= 1; s > 0; s >>= 1) {                                                                \
      for (int64_t l = threadIdx.x; l < s; l += blockDim.x)                                        \
        if (l + s < n) R##_join(&p[l], &p[l + s]);                                                 \
      __syncthreads();                                                                             \
    }                                                                                              \
    if (threadIdx.x == 0) {                                                                        \
      if (n > 0) *out = p[0];                                                                      \
      else R##_init(out);                                                                          \
    }                                                                                              \
  }

/** One warp per chunk, lanes interleaved, then the warp's halving tree. */
#define PORTA_CUDA_DET_LANES_TREE_(R, acc, lane)                                                   \
  for (int s_ = PORTA_DET_LANES / 2; s_ > 0; s_ >>= 1) {                                           \
    R##_value o_ = porta_cuda_shfl_down_(acc, s_, 32);                                             \
    if ((lane) < s_) R##_join(&acc, &o_);                                                          \
  }

#define PORTA_CUDA_FINISH_REDUCE_(L, R, out, result)                                               \
  {                                                                                                \
    int rc_ = porta_cuda_launched_((L)->label);                                                    \
    if (rc_) return rc_;                                                                           \
    rc_ = porta_cuda_sync_((L)->exec.instance, (L)->label);                                        \
    if (rc_) return rc_;                                                                           \
    memcpy(result, out, sizeof(R##_value));                                                        \
    return 0;                                                                                      \
  }

#define PORTA_CUDA_REDUCE_(NAME, ARGS_T, R)                                                        \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, int64_t b, int64_t e,                \
                                              R##_value *partials, unsigned *counter,              \
                                              R##_value *out) {                                    \
    R##_value acc;                                                                                 \
    R##_init(&acc);                                                                                \
    const int64_t step = (int64_t)gridDim.x * blockDim.x;                                          \
    for (int64_t i = b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < e; i += step)         \
      NAME##_porta_body_(&a, i, &acc);                                                             \
    PORTA_CUDA_REDUCE_TAIL_(R, acc, partials, counter, out)                                        \
  }                                                                                                \
  static __global__ void NAME##_porta_cuda_det_(const ARGS_T a, int64_t b, int64_t e, int64_t nc,  \
                                                R##_value *partials) {                             \
    const int lane = threadIdx.x & 31;                                                             \
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);                                  \
    for (int64_t c = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; c < nc;           \
         c += warps) {                                                                             \
      const int64_t lo = b + c * PORTA_DET_CHUNK;                                                  \
      const int64_t hi = lo + PORTA_DET_CHUNK < e ? lo + PORTA_DET_CHUNK : e;                      \
      R##_value acc;                                                                               \
      R##_init(&acc);                                                                              \
      for (int64_t i = lo + lane; i < hi; i += 32) NAME##_porta_body_(&a, i, &acc);                \
      PORTA_CUDA_DET_LANES_TREE_(R, acc, lane)                                                     \
      if (lane == 0) partials[c] = acc;                                                            \
    }                                                                                              \
  }                                                                                                \
  PORTA_CUDA_DET_TREE_KERNEL_(NAME, R)                                                             \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    const int64_t b = L->range.begin, e = L->range.end, n = e - b;                                 \
    R##_value *out = (R##_value *)porta_cuda_result_(sizeof(R##_value));                           \
    if (!out) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
    if (L->deterministic) {                                                                        \
      const int64_t nc = n > 0 ? (n + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK : 0;                  \
      R##_value *p = (R##_value *)porta_cuda_workspace_((size_t)(nc > 0 ? nc : 1) *                \
                                                        sizeof(R##_value));                        \
      if (!p) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      if (nc > 0)                                                                                  \
        NAME##_porta_cuda_det_<<<porta_cuda_grid_(nc, PORTA_CUDA_BLOCK / 32), PORTA_CUDA_BLOCK, 0, \
                                 PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, b, e, nc, p);     \
      NAME##_porta_cuda_tree_<<<1, 1024, 0, PORTA_CUDA_STREAM_(L)>>>(p, nc, out);                  \
    } else {                                                                                       \
      const unsigned g = porta_cuda_grid_(n > 0 ? n : 1, PORTA_CUDA_BLOCK * 4);                    \
      R##_value *p = (R##_value *)porta_cuda_workspace_((size_t)g * sizeof(R##_value));            \
      if (!p) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      NAME##_porta_cuda_k_<<<g, PORTA_CUDA_BLOCK, 0, PORTA_CUDA_STREAM_(L)>>>(                     \
          *(const ARGS_T *)args, b, e, p, porta_cuda_counter_(), out);                             \
    }                                                                                              \
    PORTA_CUDA_FINISH_REDUCE_(L, R, out, result)                                                   \
  }

/* Scan: (1) each block sums a contiguous segment, (2) one block turns the sums into
 * exclusive block offsets, (3) each block rescans its segment tile by tile. */
#define PORTA_CUDA_SCAN_(NAME, ARGS_T, R)                                                          \
  static __global__ void NAME##_porta_cuda_sum_(const ARGS_T a, int64_t b, int64_t e,              \
                                                int64_t seg, R##_value *sums) {                    \
    R##_value acc;                                                                                 \
    R##_init(&acc);                                                                                \
    const int64_t lo = b + (int64_t)blockIdx.x * seg, hi = lo + seg < e ? lo + seg : e;            \
    for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) NAME##_porta_body_(&a, i, &acc, 0); \
    __shared__ R##_value sh[PORTA_CUDA_BLOCK];                                                     \
    sh[threadIdx.x] = acc;                                                                         \
    __syncthreads();                                                                               \
    for (int s = PORTA_CUDA_BLOCK / 2; s > 0; s >>= 1) {                                           \
      if ((int)threadIdx.x < s) R##_join(&sh[threadIdx.x], &sh[threadIdx.x + s]);                  \
      __syncthreads();                                                                             \
    }                                                                                              \
    if (threadIdx.x == 0) sums[blockIdx.x] = sh[0];                                                \
  }                                                                                                \
  static __global__ void NAME##_porta_cuda_offsets_(R##_value *sums, unsigned nb,                  \
                                                    R##_value *total) {                            \
    if (threadIdx.x != 0) return;                                                                  \
    R##_value run;                                                                                 \
    R##_init(&run);                                                                                \
    for (unsigned k = 0; k < nb; ++k) {                                                            \
      R##_value x = sums[k];                                                                       \
      sums[k] = run;                                                                               \
      R##_join(&run, &x);                                                                          \
    }                                                                                              \
    *total = run;                                                                                  \
  }                                                                                                \
  static __global__ void NAME##_porta_cuda_final_(const ARGS_T a, int64_t b, int64_t e,            \
                                                  int64_t seg, const R##_value *offsets) {         \
    __shared__ R##_value sh[PORTA_CUDA_BLOCK];                                                     \
    __shared__ R##_value run;                                                                      \
    const int t = threadIdx.x;                                                                     \
    const int64_t lo = b + (int64_t)blockIdx.x * seg, hi = lo + seg < e ? lo + seg : e;            \
    if (t == 0) run = offsets[blockIdx.x];                                                         \
    for (int64_t base = lo; base < hi; base += PORTA_CUDA_BLOCK) {                                 \
      const int64_t i = base + t;                                                                  \
      R##_value v;                                                                                 \
      R##_init(&v);                                                                                \
      if (i < hi) NAME##_porta_body_(&a, i, &v, 0);                                                \
      sh[t] = v;                                                                                   \
      __syncthreads();                                                                             \
      for (int s = 1; s < PORTA_CUDA_BLOCK; s <<= 1) { /* inclusive Hillis-Steele */               \
        R##_value x = sh[t];                                                                       \
        if (t >= s) {                                                                              \
          R##_value y = sh[t - s];                                                                 \
          R##_join(&y, &x);                                                                        \
          x = y;                                                                                   \
        }                                                                                          \
        __syncthreads();                                                                           \
        sh[t] = x;                                                                                 \
        __syncthreads();                                                                           \
      }                                                                                            \
      R##_value pre = run;                                                                         \
      if (t > 0) R##_join(&pre, &sh[t - 1]);                                                       \
      if (i < hi) NAME##_porta_body_(&a, i, &pre, 1);                                              \
      __syncthreads();                                                                             \
      if (t == 0) R##_join(&run, &sh[PORTA_CUDA_BLOCK - 1]);                                       \
      __syncthreads();                                                                             \
    }                                                                                              \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *total) {            \
    const int64_t b = L->range.begin, e = L->range.end, n = e - b;                                 \
    R##_value *out = (R##_value *)porta_cuda_result_(sizeof(R##_value));                           \
    if (!out) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
    unsigned nb = porta_cuda_grid_(n > 0 ? n : 1, 8 * PORTA_CUDA_BLOCK);                           \
    if (nb > 1024) nb = 1024;                                                                      \
    int64_t seg = (n + nb - 1) / nb;                                                               \
    seg = (seg + PORTA_CUDA_BLOCK - 1) / PORTA_CUDA_BLOCK * PORTA_CUDA_BLOCK;                      \
    if (seg < 1) seg = 1;                                                                          \
    R##_value *sums = (R##_value *)porta_cuda_workspace_((size_t)nb * sizeof(R##_value));          \
    if (!sums) return PORTA_ERROR_OUT_OF_MEMORY;                                                   \
    cudaStream_t st = PORTA_CUDA_STREAM_(L);                                                       \
    const ARGS_T av = *(const ARGS_T *)args;                                                       \
    NAME##_porta_cuda_sum_<<<nb, PORTA_CUDA_BLOCK, 0, st>>>(av, b, e, seg, sums);                  \
    NAME##_porta_cuda_offsets_<<<1, 32, 0, st>>>(sums, nb, out);                                   \
    NAME##_porta_cuda_final_<<<nb, PORTA_CUDA_BLOCK, 0, st>>>(av, b, e, seg, sums);                \
    int rc_ = porta_cuda_launched_(L->label);                                                      \
    if (rc_) return rc_;                                                                           \
    rc_ = porta_cuda_sync_(L->exec.instance, L->label);                                            \
    if (rc_) return rc_;                                                                           \
    if (total) memcpy(total, out, sizeof(R##_value));                                              \
    return 0;                                                                                      \
  }

#include "porta/backend/cuda/mdrange.h"
#include "porta/backend/cuda/team.h"

#else /* not compiled by nvcc as CUDA: no CUDA launchers */
#define PORTA_CUDA_REF_(NAME) NULL
#define PORTA_CUDA_FOR_(NAME, ARGS_T)
#define PORTA_CUDA_REDUCE_(NAME, ARGS_T, R)
#define PORTA_CUDA_SCAN_(NAME, ARGS_T, R)
#define PORTA_CUDA_MDFOR2_(NAME, ARGS_T)
#define PORTA_CUDA_MDFOR3_(NAME, ARGS_T)
#define PORTA_CUDA_MDFOR4_(NAME, ARGS_T)
#define PORTA_CUDA_MDFOR5_(NAME, ARGS_T)
#define PORTA_CUDA_MDFOR6_(NAME, ARGS_T)
#define PORTA_CUDA_MDREDUCE2_(NAME, ARGS_T, R)
#define PORTA_CUDA_MDREDUCE3_(NAME, ARGS_T, R)
#define PORTA_CUDA_TEAM_FOR_(NAME, ARGS_T)
#define PORTA_CUDA_TEAM_REDUCE_(NAME, ARGS_T, R)
#endif

#endif
