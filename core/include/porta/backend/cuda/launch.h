/** @file backend/cuda/launch.h
 *  What every CUDA launcher shares: the functor type a kernel macro stamps out, grid sizing,
 *  the block and deterministic reduction trees, and the wait that ends a reduction.
 *
 *  A PORTA_* kernel macro, when nvcc compiles the file as CUDA, declares one small C++ type per
 *  kernel (NAME_porta_cuda_f_: the argument struct, the rank, the reducer and the body) and a
 *  launcher that calls a function template of range.h, mdrange.h or team.h instantiated for that
 *  type. The templates hold the kernels; the macros only name them. The functor reaches the GPU
 *  by value as a kernel parameter and the body is inlined, never called through a pointer.
 *  In every other compilation the CUDA slot of the descriptor is empty, and a launch on CUDA
 *  reports that the kernel was not compiled for it. */
#ifndef PORTA_BACKEND_CUDA_LAUNCH_H
#define PORTA_BACKEND_CUDA_LAUNCH_H

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#include <string.h>

#include <utility>

#include "porta/reduce_end.h" /* and the back end's side, porta/backend/cuda/reduce_end.h */
#include "porta/backend/cuda/runtime.h"
#include "porta/backend/cuda/warp.h"
#include "porta/backend/cuda/xsum.h"

#define PORTA_CUDA_REF_(NAME) NAME##_porta_cuda_
#define PORTA_CUDA_BLOCK 256

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

/** A kernel as one C++ type: its arguments, its rank (1 for ranges and teams) and its body,
 *  which takes the indices (and the accumulator, or the scan's update and final flag). The
 *  type is in an unnamed namespace, so it and every template instantiated for it are private
 *  to the kernel's file, like the body. */
#define PORTA_CUDA_FUNCTOR_(NAME, ARGS_T, RANK)                                                    \
  namespace {                                                                                      \
  struct NAME##_porta_cuda_f_ {                                                                    \
    typedef ARGS_T args_type_;                                                                     \
    enum { rank = RANK };                                                                          \
    template <class... I> static __device__ __forceinline__ void body(const ARGS_T *a, I... i) {   \
      NAME##_porta_body_(a, i...);                                                                 \
    }                                                                                              \
  };                                                                                               \
  }

/** The same with reducer R: its value type, identity and join. */
#define PORTA_CUDA_FUNCTOR_R_(NAME, ARGS_T, RANK, R)                                               \
  namespace {                                                                                      \
  struct NAME##_porta_cuda_f_ {                                                                    \
    typedef ARGS_T args_type_;                                                                     \
    typedef R##_value value;                                                                       \
    enum { rank = RANK };                                                                          \
    template <class... I> static __device__ __forceinline__ void body(const ARGS_T *a, I... i) {   \
      NAME##_porta_body_(a, i...);                                                                 \
    }                                                                                              \
    /* templates: a kernel that never calls them (the exact sum's, xsum.h) leaves them unused */   \
    template <class V> static __host__ __device__ __forceinline__ void init(V *v) { R##_init(v); } \
    template <class V> static __host__ __device__ __forceinline__ void join(V *d, const V *s) {    \
      R##_join(d, s);                                                                              \
    }                                                                                              \
  };                                                                                               \
  }

/** The descriptor's CUDA launcher: LAUNCH (a function template) instantiated for the kernel. */
#define PORTA_CUDA_LAUNCHER_(NAME, LAUNCH)                                                         \
  static int NAME##_porta_cuda_(const porta_launch *launch_, const void *args_, void *result_) {   \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    return LAUNCH<NAME##_porta_cuda_f_>(launch_, *(const NAME##_porta_cuda_f_::args_type_ *)args_, \
                                        result_);                                                  \
  }

/** The stream of the launch's execution-space instance. */
static inline cudaStream_t porta_cuda_stream_of_(const porta_launch *L) {
  return (cudaStream_t)porta_cuda_stream_(L->exec.instance);
}

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

/** `acc` reduced over the block (PORTA_CUDA_BLOCK threads) by the halving tree (thread t joins
 *  t + s), valid in thread 0. For values of up to 16 bytes the last six levels run in warp 0,
 *  the last five by shuffles: the same joins in the same order (the same bits) with 3 barriers
 *  instead of 9, which had cost a small reduction's round trip 2 us more than a hand-written
 *  one (scripts/bench-gpu, red-lat). Larger values keep the tree in shared memory; the exact
 *  sum has a kernel end of its own (backend/cuda/xsum.h). */
template <class F>
__device__ __forceinline__ typename F::value porta_cuda_block_reduce_(typename F::value acc) {
  typedef typename F::value V;
  static_assert(!porta_cuda_is_xsum_<V>::value, "the exact sum has a tail of its own");
  constexpr bool shfl = sizeof(V) <= 16;
  __shared__ V sh[PORTA_CUDA_BLOCK];
  const int t = threadIdx.x;
  sh[t] = acc;
  __syncthreads();
  for (int s = PORTA_CUDA_BLOCK / 2; s > (shfl ? 32 : 0); s >>= 1) {
    if (t < s) F::join(&sh[t], &sh[t + s]);
    __syncthreads();
  }
  if constexpr (shfl) {
    if (t < 32) {
      acc = sh[t];
      F::join(&acc, &sh[t + 32]);
      for (int s = 16; s > 0; s >>= 1) {
        V o = porta_cuda_shfl_down_(acc, s, 32);
        F::join(&acc, &o);
      }
    }
    return acc;
  } else {
    return sh[0];
  }
}

/** What a reduction kernel launched without an end takes in its place. Each reduction kernel
 *  is compiled twice, with an end (E = porta_reduce_end) and without, and a launch runs the one
 *  that fits, each with the grid of its own occupancy: the end's code, even never run, changes
 *  how the compiler allocates the kernel's registers (TeaLeaf's w = A p: 38 registers without,
 *  32 with), so a kernel with one may hold other blocks per SM, sum its partials in another
 *  order and run at another speed. With the end in every kernel, tea_bm_5 on one H100 lost 3 %
 *  and its bits (0.5317 -> 0.549 ms per CG iteration, 36889 -> 36887 iterations), with an end
 *  or not. The end's code stays inline: called (__noinline__), the ABI's registers made
 *  TeaLeaf's CG 20-35 % slower on 2 and 4 GPUs. */
struct porta_cuda_no_end_ {};

/** A translation unit whose reductions never take an end (the Python package's modules, whose
 *  kernels cannot be given one) defines PORTA_CUDA_NO_REDUCE_END: their kernels with an end are
 *  not compiled (a shorter compile), and a launch with one is refused. */
#if defined(PORTA_CUDA_NO_REDUCE_END)
#define PORTA_CUDA_REDUCE_ENDS_ 0
#else
#define PORTA_CUDA_REDUCE_ENDS_ 1
#endif

static inline int porta_cuda_end_refused_(const porta_launch *L) {
  return porta_error(PORTA_ERROR_UNSUPPORTED, "parallel_reduce", L->label,
                     "a reduction's end (porta_exec_end_next_reduction) on a kernel compiled "
                     "without ends (PORTA_CUDA_NO_REDUCE_END)");
}

__device__ __forceinline__ void porta_cuda_run_end_(const porta_cuda_no_end_ &, void *) {}

__device__ __forceinline__ void porta_cuda_run_end_(const porta_reduce_end &end, void *out) {
  if (end.nranks | end.nsteps) porta_cuda_reduce_end_(end, out);
}

/** The end of every reduction kernel (blocks of PORTA_CUDA_BLOCK threads): reduce `acc` over
 *  the block; a grid of one block writes the value, otherwise each block stores its partial and
 *  the last block to finish combines all partials in block order. The block that writes the
 *  value then runs the launch's end, if E is porta_reduce_end (porta/reduce_end.h). */
template <class F, class E>
__device__ __forceinline__ void
porta_cuda_reduce_tail_(typename F::value acc, typename F::value *partials, unsigned *counter,
                        typename F::value *out, const E &end) {
  typedef typename F::value V;
  if constexpr (porta_cuda_is_xsum_<V>::value) { /* backend/cuda/xsum.h */
    if (porta_cuda_xsum_tail_<PORTA_CUDA_BLOCK>(acc, partials, counter, out)) {
      __syncthreads();
      if (threadIdx.x == 0) porta_cuda_run_end_(end, out);
    }
  } else {
    __shared__ int last;
    const int t = threadIdx.x;
    acc = porta_cuda_block_reduce_<F>(acc);
    if (gridDim.x == 1) {
      if (t == 0) {
        *out = acc;
        porta_cuda_run_end_(end, out);
      }
      return;
    }
    if (t == 0) {
      partials[blockIdx.x] = acc;
      __threadfence();
      last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
      __threadfence();
      V x;
      F::init(&x);
      for (unsigned j = t; j < gridDim.x; j += PORTA_CUDA_BLOCK) {
        V p = porta_cuda_load_cg_(&partials[j]);
        F::join(&x, &p);
      }
      x = porta_cuda_block_reduce_<F>(x);
      if (t == 0) {
        *out = x;
        porta_cuda_run_end_(end, out);
      }
    }
  }
}

/** The end a launch passes to its deterministic reduction's last kernel (none: zeros). */
#if PORTA_CUDA_REDUCE_ENDS_
static inline porta_reduce_end porta_cuda_end_of_(const porta_launch *L) {
  porta_reduce_end e;
  if (L->end)
    e = *L->end;
  else
    memset(&e, 0, sizeof e);
  return e;
}
#else
static inline porta_cuda_no_end_ porta_cuda_end_of_(const porta_launch *) {
  return porta_cuda_no_end_();
}
#endif

/** Deterministic reductions: a warp's lanes (interleaved over a chunk) by the halving tree. */
template <class F>
__device__ __forceinline__ void porta_cuda_det_lanes_(typename F::value *acc, int lane) {
  for (int s = PORTA_DET_LANES / 2; s > 0; s >>= 1) {
    typename F::value o = porta_cuda_shfl_down_(*acc, s, 32);
    if (lane < s) F::join(acc, &o);
  }
}

/** Deterministic tail: combine n chunk partials by the host's halving tree, in one block of
 *  1024 threads. Strides of 1024 and more join two elements of one thread (their index mod
 *  1024 is the thread's): no barrier. For values of up to 16 bytes, strides 16384 to 1024 run
 *  in the thread's registers (one round of loads), the next in shared memory and the last five
 *  in warp 0's shuffles: the tree in global memory was a chain of some 20 round trips to L2. */
template <class F, class E>
__global__ void porta_cuda_det_tree_k_(typename F::value *p, int64_t n, typename F::value *out,
                                       const E end) {
  typedef typename F::value V;
  const int tid = threadIdx.x;
  int64_t s = 1;
  while (s < n) s <<= 1;
  if constexpr (sizeof(V) <= 16) {
    for (s >>= 1; s > 16 * 1024; s >>= 1)
      for (int64_t l = tid; l < s; l += 1024)
        if (l + s < n) F::join(&p[l], &p[l + s]);
    /* strides 16384 .. 1024 in registers: the thread's elements tid + 1024 m, m < 16 */
    __shared__ V sh[1024];
    if (s >= 1024) {
      V r[16];
      const int k = (int)(s / 1024);
#pragma unroll
      for (int m = 0; m < 16; ++m) {
        const int64_t l = tid + 1024 * (int64_t)m;
        if (m < k) {
          if (l < n)
            r[m] = p[l];
          else
            F::init(&r[m]);
          if (l + s < n) F::join(&r[m], &p[l + s]);
        }
      }
#pragma unroll
      for (int h = 8; h >= 1; h >>= 1)
#pragma unroll
        for (int m = 0; m < 8; ++m)
          if (h < k && m < h && tid + 1024 * (int64_t)(m + h) < n) F::join(&r[m], &r[m + h]);
      s = 512;
      if (tid < n) sh[tid] = r[0];
    } else if (tid < n) {
      sh[tid] = p[tid];
    }
    __syncthreads();
    for (; s >= 32; s >>= 1) {
      if (tid < s && tid + s < n) F::join(&sh[tid], &sh[tid + s]);
      __syncthreads();
    }
    if (tid < 32) {
      V v;
      if (tid < n)
        v = sh[tid];
      else
        F::init(&v);
      for (; s > 0; s >>= 1) {
        V o = porta_cuda_shfl_down_(v, (int)s, 32);
        if (tid < s && tid + s < n) F::join(&v, &o);
      }
      if (tid == 0) {
        if (n > 0)
          *out = v;
        else
          F::init(out);
        porta_cuda_run_end_(end, out);
      }
    }
  } else {
    for (s >>= 1; s >= (int64_t)blockDim.x; s >>= 1)
      for (int64_t l = tid; l < s; l += blockDim.x)
        if (l + s < n) F::join(&p[l], &p[l + s]);
    __syncthreads();
    for (; s > 0; s >>= 1) {
      if (tid < s && tid + s < n) F::join(&p[tid], &p[tid + s]);
      __syncthreads();
    }
    if (tid == 0) {
      if (n > 0)
        *out = p[0];
      else
        F::init(out);
      porta_cuda_run_end_(end, out);
    }
  }
}

/** Where a reduction's kernel writes its value: the caller's memory of the execution space
 *  (porta_parallel_reduce_into), else the pinned buffer the host copies it from. */
template <class V> static inline V *porta_cuda_reduce_out_(const porta_launch *L, void *result) {
  return L->result_in_space ? (V *)result : (V *)porta_cuda_result_(sizeof(V));
}

/** A reduction's end on the host: check the launch, then (unless the value stays in the
 *  execution space's memory) wait for the instance and copy the value. */
template <class F>
static inline int porta_cuda_finish_reduce_(const porta_launch *L, const typename F::value *out,
                                            void *result) {
  int rc = porta_cuda_launched_(L->label);
  if (rc || L->result_in_space) return rc;
  rc = porta_cuda_sync_(L->exec.instance, L->label);
  if (rc) return rc;
  if (result) memcpy(result, out, sizeof(typename F::value));
  return 0;
}

#else /* not compiled by nvcc as CUDA: no CUDA launchers */
#define PORTA_CUDA_REF_(NAME) NULL
#endif

#endif
