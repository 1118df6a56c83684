/** @file backend/cuda/kernels.h
 *  CUDA generators. When nvcc compiles a kernel file as CUDA these produce the
 *  __global__ kernels and their launchers; in every other compilation the
 *  descriptor's CUDA slot is empty and a launch on CUDA reports that the kernel
 *  was not compiled for it. The functor reaches the device by value as a kernel
 *  parameter; bodies are inlined, never called through pointers.
 *
 *  Reductions run in one pass: each block (no more than fit on the GPU at once)
 *  loops over its share, reduces in shared memory, writes a partial, and the last
 *  block to finish combines the partials in block order.
 *  Deterministic reductions give each warp whole PORTA_DET_CHUNK chunks, lane l
 *  taking indices l, l+32, ...; lanes and chunks are combined by the same
 *  halving trees as the host back ends, so the bits match for any block size. */
#ifndef PORTA_BACKEND_CUDA_KERNELS_H
#define PORTA_BACKEND_CUDA_KERNELS_H

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include "porta/backend/cuda/runtime.h"
#include "porta/backend/cuda/warp.h"

#define PORTA_CUDA_REF_(NAME) NAME##_porta_cuda_

#if PORTA_ENABLE_DEBUG
#include "porta/view.h" /* porta_cuda_check_sink_d_ (view_access.h) */

/** Debug builds: point this file's kernels at the run time's view-check record (once per
 *  porta_initialize; the run time then waits for each launch, see porta_cuda_launched_). */
static inline int porta_cuda_check_attach_file_(void) {
  static unsigned epoch = 0;
  return porta_cuda_check_attach_((const void *)&porta_cuda_check_sink_d_, &epoch);
}
#define PORTA_CUDA_DEBUG_ATTACH_()                                                                 \
  {                                                                                                \
    const int rc_dbg_ = porta_cuda_check_attach_file_();                                           \
    if (rc_dbg_) return rc_dbg_;                                                                   \
  }
#else
#define PORTA_CUDA_DEBUG_ATTACH_()
#endif
#define PORTA_CUDA_BLOCK 256
#define PORTA_CUDA_STREAM_(L) ((cudaStream_t)porta_cuda_stream_((L)->exec.instance))

/** Grid size for n work items at `per_block` items per block. */
static inline unsigned porta_cuda_grid_(int64_t n, int64_t per_block) {
  int64_t g = (n + per_block - 1) / per_block, m = porta_cuda_grid_limit_();
  return (unsigned)(g < 1 ? 1 : (g > m ? m : g));
}

/** Grid of a (non-deterministic) reduction over n items: a block per PORTA_CUDA_BLOCK * 4 items,
 *  but no more blocks than are resident on the GPU at once (`*resident`, found on the kernel's
 *  first launch). Each block then loops over many items and writes one partial, so the tail
 *  (block trees, and the last block combining the partials) stays small: with a block per 1024
 *  items, 2^28 items left 262144 partials to one block, a few per cent of the run time. */
static inline unsigned porta_cuda_reduce_grid_(int64_t n, const void *kernel, int *resident) {
  if (*resident <= 0) {
    int per_sm = 0, dev = 0, sms = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, PORTA_CUDA_BLOCK, 0) !=
            cudaSuccess ||
        cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      per_sm = sms = 0;
    }
    *resident = per_sm > 0 && sms > 0 ? per_sm * sms : 1024;
  }
  const unsigned g = porta_cuda_grid_(n > 0 ? n : 1, PORTA_CUDA_BLOCK * 4);
  return g < (unsigned)*resident ? g : (unsigned)*resident;
}

/* ---------------- range ---------------- */

#define PORTA_CUDA_FOR_(NAME, ARGS_T)                                                              \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, int64_t b, int64_t e) {              \
    const int64_t step = (int64_t)gridDim.x * blockDim.x;                                          \
    /* not unrolled: the grid covers the range, so a thread runs one iteration, and an unrolled    \
       loop costs every thread a 64-bit trip-count division (copy: 0.967 of hand-written) */       \
    _Pragma("unroll 1") for (int64_t i = b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;       \
                             i < e; i += step) NAME##_porta_body_(&a, i);                          \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
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
      if (n > 0)                                                                                   \
        *out = p[0];                                                                               \
      else                                                                                         \
        R##_init(out);                                                                             \
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
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    const int64_t b = L->range.begin, e = L->range.end, n = e - b;                                 \
    R##_value *out = (R##_value *)porta_cuda_result_(sizeof(R##_value));                           \
    if (!out) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
    if (L->deterministic) {                                                                        \
      const int64_t nc = n > 0 ? (n + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK : 0;                  \
      R##_value *p =                                                                               \
          (R##_value *)porta_cuda_workspace_((size_t)(nc > 0 ? nc : 1) * sizeof(R##_value));       \
      if (!p) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      if (nc > 0)                                                                                  \
        NAME##_porta_cuda_det_<<<porta_cuda_grid_(nc, PORTA_CUDA_BLOCK / 32), PORTA_CUDA_BLOCK, 0, \
                                 PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, b, e, nc, p);     \
      NAME##_porta_cuda_tree_<<<1, 1024, 0, PORTA_CUDA_STREAM_(L)>>>(p, nc, out);                  \
    } else {                                                                                       \
      static int resident_ = 0;                                                                    \
      const unsigned g =                                                                           \
          porta_cuda_reduce_grid_(n, (const void *)NAME##_porta_cuda_k_, &resident_);              \
      R##_value *p = (R##_value *)porta_cuda_workspace_((size_t)g * sizeof(R##_value));            \
      if (!p) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      NAME##_porta_cuda_k_<<<g, PORTA_CUDA_BLOCK, 0, PORTA_CUDA_STREAM_(L)>>>(                     \
          *(const ARGS_T *)args, b, e, p, porta_cuda_counter_(), out);                             \
    }                                                                                              \
    PORTA_CUDA_FINISH_REDUCE_(L, R, out, result)                                                   \
  }

/* Scan: one pass with decoupled look-back (Merrill & Garland 2016), made deterministic.
 * Block k of the launch takes tile k in start order (a ticket), so it only waits on tiles that
 * are running or done. A tile is PORTA_CUDA_BLOCK * it_ elements, it_ = PORTA_CUDA_SCAN_ITEMS_.
 * (1) The block computes its elements' values (body, final = 0) in coalesced rows and stores
 * them in shared memory; (2) each thread scans it_ consecutive values there; (3) one block scan
 * of the thread totals gives the tile aggregate, which is published; (4) warp 0 looks back
 * over the preceding tiles, 32 flags at a time, to the nearest tile p that has published its
 * inclusive prefix, and folds incl[p], agg[p+1], ..., agg[k-1] from left to right: whatever p
 * is, that is incl[k-1] bit for bit, so results do not depend on timing; (5) it publishes the
 * tile's inclusive prefix, and (6) the block calls the body (final = 1) in coalesced rows with
 * each element's prefix. The inputs are read from memory once (the final pass finds them in
 * L2): the memory traffic of a copy. Publication: value, __threadfence, flag; readers: volatile
 * flag, __threadfence, value from L2. Workspace: a ticket and one flag per tile (zeroed before
 * the launch), then agg[] and incl[]. Shared memory: one value per element (opted in above
 * 48 KiB), padded by one value per it_ so that both access patterns are free of conflicts. */
#define PORTA_CUDA_SCAN_ITEMS_(T)                                                                  \
  ((int)(65536 / (PORTA_CUDA_BLOCK * sizeof(T)) > 32                                               \
             ? 32                                                                                  \
             : (65536 / (PORTA_CUDA_BLOCK * sizeof(T)) < 1                                         \
                    ? 1                                                                            \
                    : 65536 / (PORTA_CUDA_BLOCK * sizeof(T)))))
#define PORTA_CUDA_SCAN_SMEM_(T, IT)                                                               \
  ((size_t)PORTA_CUDA_BLOCK * (size_t)((IT) + ((IT) > 1 ? 1 : 0)) * sizeof(T))

#define PORTA_CUDA_SCAN_(NAME, ARGS_T, R)                                                          \
  static __global__ void __launch_bounds__(PORTA_CUDA_BLOCK)                                       \
      NAME##_porta_cuda_scan_(const ARGS_T a, int64_t b, int64_t e, unsigned *ctl, R##_value *agg, \
                              R##_value *inc, R##_value *total) {                                  \
    constexpr int it_ = PORTA_CUDA_SCAN_ITEMS_(R##_value), pad_ = it_ > 1 ? 1 : 0;                 \
    extern __shared__ __align__(16) char porta_scan_smem_[];                                       \
    R##_value *sv_ = (R##_value *)porta_scan_smem_;                                                \
    __shared__ R##_value wsum_[PORTA_CUDA_BLOCK / 32];                                             \
    __shared__ R##_value lb_[32];                                                                  \
    __shared__ R##_value pre_s_;                                                                   \
    __shared__ unsigned tile_s_;                                                                   \
    const int t_ = threadIdx.x, lane_ = t_ & 31, warp_ = t_ >> 5;                                  \
    unsigned *flags_ = ctl + 1;                                                                    \
    if (t_ == 0) tile_s_ = atomicAdd(ctl, 1u);                                                     \
    __syncthreads();                                                                               \
    const int64_t tile_ = tile_s_;                                                                 \
    const int last_ = tile_ == (int64_t)gridDim.x - 1;                                             \
    const int64_t lo_ = b + tile_ * ((int64_t)PORTA_CUDA_BLOCK * it_);                             \
    for (int r_ = 0; r_ < it_; ++r_) { /* (1) */                                                   \
      const int j_ = r_ * PORTA_CUDA_BLOCK + t_;                                                   \
      R##_value v_;                                                                                \
      R##_init(&v_);                                                                               \
      if (lo_ + j_ < e) NAME##_porta_body_(&a, lo_ + j_, &v_, 0);                                  \
      sv_[j_ + pad_ * (j_ / it_)] = v_;                                                            \
    }                                                                                              \
    __syncthreads();                                                                               \
    R##_value run_, x_;                                                                            \
    R##_init(&run_);                                                                               \
    for (int k_ = 0; k_ < it_; ++k_) { /* (2) exclusive, in place */                               \
      R##_value *s_ = &sv_[t_ * (it_ + pad_) + k_];                                                \
      x_ = *s_;                                                                                    \
      *s_ = run_;                                                                                  \
      R##_join(&run_, &x_);                                                                        \
    }                                                                                              \
    x_ = run_;                                                                                     \
    for (int s_ = 1; s_ < 32; s_ <<= 1) { /* (3) */                                                \
      R##_value y_ = porta_cuda_shfl_up_(x_, s_, 32);                                              \
      if (lane_ >= s_) {                                                                           \
        R##_join(&y_, &x_);                                                                        \
        x_ = y_;                                                                                   \
      }                                                                                            \
    }                                                                                              \
    if (lane_ == 31) wsum_[warp_] = x_;                                                            \
    const R##_value ex_ = porta_cuda_shfl_up_(x_, 1, 32);                                          \
    __syncthreads();                                                                               \
    if (warp_ == 0) {                                                                              \
      R##_value tagg_, acc_;                                                                       \
      R##_init(&tagg_);                                                                            \
      R##_init(&acc_);                                                                             \
      for (int w_ = 0; w_ < PORTA_CUDA_BLOCK / 32; ++w_) R##_join(&tagg_, &wsum_[w_]);             \
      if (tile_ == 0) {                                                                            \
        if (lane_ == 0) {                                                                          \
          inc[0] = tagg_;                                                                          \
          __threadfence();                                                                         \
          *(volatile unsigned *)&flags_[0] = 2u;                                                   \
        }                                                                                          \
      } else {                                                                                     \
        if (lane_ == 0) {                                                                          \
          agg[tile_] = tagg_;                                                                      \
          __threadfence();                                                                         \
          *(volatile unsigned *)&flags_[tile_] = 1u;                                               \
        }                                                                                          \
        int64_t j_ = tile_ - 1, p_ = 0;                                                            \
        for (;;) { /* (4) the nearest tile with an inclusive prefix (tile 0 has one) */            \
          const int64_t q_ = j_ - lane_;                                                           \
          unsigned f_ = 0u;                                                                        \
          if (q_ >= 0) {                                                                           \
            do {                                                                                   \
              f_ = *(volatile unsigned *)&flags_[q_];                                              \
            } while (f_ == 0u);                                                                    \
          }                                                                                        \
          const unsigned ball_ = __ballot_sync(0xffffffffu, q_ >= 0 && f_ == 2u);                  \
          if (ball_) {                                                                             \
            p_ = j_ - (__ffs((int)ball_) - 1);                                                     \
            break;                                                                                 \
          }                                                                                        \
          j_ -= 32;                                                                                \
        }                                                                                          \
        __threadfence();                                                                           \
        if (lane_ == 0) acc_ = porta_cuda_load_cg_(&inc[p_]);                                      \
        for (int64_t q0_ = p_ + 1; q0_ < tile_; q0_ += 32) { /* fold left to right */              \
          const int cnt_ = tile_ - q0_ < 32 ? (int)(tile_ - q0_) : 32;                             \
          if (lane_ < cnt_) lb_[lane_] = porta_cuda_load_cg_(&agg[q0_ + lane_]);                   \
          __syncwarp();                                                                            \
          if (lane_ == 0)                                                                          \
            for (int l_ = 0; l_ < cnt_; ++l_) R##_join(&acc_, &lb_[l_]);                           \
          __syncwarp();                                                                            \
        }                                                                                          \
        if (lane_ == 0) { /* (5) */                                                                \
          R##_value in_ = acc_;                                                                    \
          R##_join(&in_, &tagg_);                                                                  \
          inc[tile_] = in_;                                                                        \
          __threadfence();                                                                         \
          *(volatile unsigned *)&flags_[tile_] = 2u;                                               \
          tagg_ = in_;                                                                             \
        }                                                                                          \
      }                                                                                            \
      if (lane_ == 0) {                                                                            \
        pre_s_ = acc_; /* the tile's exclusive prefix */                                           \
        if (last_) *total = tagg_;                                                                 \
      }                                                                                            \
    }                                                                                              \
    __syncthreads();                                                                               \
    R##_value tp_ = pre_s_; /* this thread's exclusive prefix */                                   \
    for (int w_ = 0; w_ < warp_; ++w_) R##_join(&tp_, &wsum_[w_]);                                 \
    if (lane_ > 0) R##_join(&tp_, &ex_);                                                           \
    for (int k_ = 0; k_ < it_; ++k_) {                                                             \
      R##_value *s_ = &sv_[t_ * (it_ + pad_) + k_];                                                \
      R##_value y_ = tp_;                                                                          \
      R##_join(&y_, s_);                                                                           \
      *s_ = y_;                                                                                    \
    }                                                                                              \
    __syncthreads();                                                                               \
    for (int r_ = 0; r_ < it_; ++r_) { /* (6) */                                                   \
      const int j_ = r_ * PORTA_CUDA_BLOCK + t_;                                                   \
      if (lo_ + j_ < e) {                                                                          \
        R##_value p_ = sv_[j_ + pad_ * (j_ / it_)];                                                \
        NAME##_porta_body_(&a, lo_ + j_, &p_, 1);                                                  \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *total) {            \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    constexpr int it_ = PORTA_CUDA_SCAN_ITEMS_(R##_value);                                         \
    const size_t smem = PORTA_CUDA_SCAN_SMEM_(R##_value, it_);                                     \
    const int64_t b = L->range.begin, e = L->range.end, n = e - b;                                 \
    R##_value *out = (R##_value *)porta_cuda_result_(sizeof(R##_value));                           \
    if (!out) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
    const int src_ = porta_cuda_shared_setup_((const void *)NAME##_porta_cuda_scan_, smem,         \
                                              PORTA_CUDA_BLOCK, L->label);                         \
    if (src_) return src_;                                                                         \
    if (n > 0) {                                                                                   \
      const int64_t tile = (int64_t)PORTA_CUDA_BLOCK * it_, nt = (n + tile - 1) / tile;            \
      if (nt > porta_cuda_max_grid_()) return PORTA_ERROR_INVALID_ARGUMENT;                        \
      const size_t cb = porta_align64_((size_t)(nt + 1) * sizeof(unsigned));                       \
      const size_t vb = porta_align64_((size_t)nt * sizeof(R##_value));                            \
      char *ws = (char *)porta_cuda_workspace_(cb + 2 * vb);                                       \
      if (!ws) return PORTA_ERROR_OUT_OF_MEMORY;                                                   \
      cudaStream_t st = PORTA_CUDA_STREAM_(L);                                                     \
      (void)cudaMemsetAsync(ws, 0, (size_t)(nt + 1) * sizeof(unsigned), st);                       \
      NAME##_porta_cuda_scan_<<<(unsigned)nt, PORTA_CUDA_BLOCK, smem, st>>>(                       \
          *(const ARGS_T *)args, b, e, (unsigned *)ws, (R##_value *)(ws + cb),                     \
          (R##_value *)(ws + cb + vb), out);                                                       \
    } else {                                                                                       \
      R##_init(out);                                                                               \
    }                                                                                              \
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
