/** @file backend/cuda/range.h
 *  CUDA launchers for range for / reduce / scan: function templates instantiated for a kernel's
 *  functor type (launch.h).
 *
 *  Reductions run in one pass: each block (no more than fit on the GPU at once) loops over its
 *  share, reduces in shared memory, writes a partial, and the last block to finish combines the
 *  partials in block order. Deterministic reductions give each warp whole PORTA_DET_CHUNK
 *  chunks, lane l taking indices l, l+32, ...; lanes and chunks are combined by the same halving
 *  trees as the host back ends, so the bits match for any block size (the exact sum, the same
 *  bits in any order, keeps its ordinary kernel). */
#ifndef PORTA_BACKEND_CUDA_RANGE_H
#define PORTA_BACKEND_CUDA_RANGE_H

#include "porta/backend/cuda/launch.h"

#if defined(__CUDACC__)

/* ---------------- for ---------------- */

template <class F>
__global__ void porta_cuda_for_k_(const typename F::args_type_ a, int64_t b, int64_t e) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  /* not unrolled: the grid covers the range, so a thread runs one iteration, and an unrolled
     loop costs every thread a 64-bit trip-count division (copy: 0.967 of hand-written) */
#pragma unroll 1
  for (int64_t i = b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < e; i += step)
    F::body(&a, i);
}

template <class F>
static int porta_cuda_for_(const porta_launch *L, const typename F::args_type_ &a, void *result) {
  (void)result;
  const int64_t n = L->range.end - L->range.begin;
  if (n <= 0) return 0;
  porta_cuda_for_k_<F>
      <<<porta_cuda_grid_(n, PORTA_CUDA_BLOCK), PORTA_CUDA_BLOCK, 0, porta_cuda_stream_of_(L)>>>(
          a, L->range.begin, L->range.end);
  return porta_cuda_launched_(L->label);
}

/* ---------------- reduce ---------------- */

template <class F, class E>
__global__ void porta_cuda_reduce_k_(const typename F::args_type_ a, int64_t b, int64_t e,
                                     typename F::value *partials, unsigned *counter,
                                     typename F::value *out, const E end) {
  typename F::value acc;
  porta_cuda_value_init_<F>(&acc);
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  /* not batched (porta_cuda_reduce_strided_ says why) */
  porta_cuda_reduce_strided_<F, false>(&acc, b + (int64_t)blockIdx.x * blockDim.x + threadIdx.x, e,
                                       step,
                                       [&](int64_t i, typename F::value *v) { F::body(&a, i, v); });
  porta_cuda_reduce_tail_<F, E>(acc, partials, counter, out, end);
}

template <class F>
__global__ void porta_cuda_reduce_det_k_(const typename F::args_type_ a, int64_t b, int64_t e,
                                         int64_t nc, typename F::value *partials) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t c = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; c < nc; c += warps) {
    const int64_t lo = b + c * PORTA_DET_CHUNK;
    const int64_t hi = lo + PORTA_DET_CHUNK < e ? lo + PORTA_DET_CHUNK : e;
    typename F::value acc;
    F::init(&acc);
    for (int64_t i = lo + lane; i < hi; i += 32) F::body(&a, i, &acc);
    porta_cuda_det_lanes_<F>(&acc, lane);
    if (lane == 0) partials[c] = acc;
  }
}

/** The nondeterministic reduction with end `end` (porta_cuda_no_end_: none): its kernel's
 *  grid from that kernel's own occupancy (launch.h, porta_cuda_no_end_). */
template <class F, class E>
static int porta_cuda_reduce_launch_(const porta_launch *L, const typename F::args_type_ &a,
                                     void *result, typename F::value *out, const E &end) {
  typedef typename F::value V;
  const int64_t b = L->range.begin, e = L->range.end;
  static int resident = 0;
  const unsigned g =
      porta_cuda_reduce_grid_(e - b, (const void *)porta_cuda_reduce_k_<F, E>, &resident);
  V *p = (V *)porta_cuda_workspace_((size_t)g * sizeof(V));
  if (!p) return PORTA_ERROR_OUT_OF_MEMORY;
  porta_cuda_reduce_k_<F, E><<<g, PORTA_CUDA_BLOCK, 0, porta_cuda_stream_of_(L)>>>(
      a, b, e, p, porta_cuda_counter_(), out, end);
  return porta_cuda_finish_reduce_<F>(L, out, result);
}

template <class F>
static int porta_cuda_reduce_(const porta_launch *L, const typename F::args_type_ &a,
                              void *result) {
  typedef typename F::value V;
  const int64_t b = L->range.begin, e = L->range.end, n = e - b;
  if (!PORTA_CUDA_REDUCE_ENDS_ && L->end) return porta_cuda_end_refused_(L);
  V *out = porta_cuda_reduce_out_<V>(L, result);
  if (!out) return PORTA_ERROR_OUT_OF_MEMORY;
  /* an exact sum is the same bits in any order: deterministic, it takes the ordinary kernel,
     and its deterministic kernels are not compiled */
  if constexpr (!porta_cuda_is_xsum_<V>::value) {
    if (L->deterministic) {
      const cudaStream_t st = porta_cuda_stream_of_(L);
      const int64_t nc = n > 0 ? (n + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK : 0;
      V *p = (V *)porta_cuda_workspace_((size_t)(nc > 0 ? nc : 1) * sizeof(V));
      if (!p) return PORTA_ERROR_OUT_OF_MEMORY;
      if (nc > 0)
        porta_cuda_reduce_det_k_<F>
            <<<porta_cuda_grid_(nc, PORTA_CUDA_BLOCK / 32), PORTA_CUDA_BLOCK, 0, st>>>(a, b, e, nc,
                                                                                       p);
      porta_cuda_det_tree_k_<F><<<1, 1024, 0, st>>>(p, nc, out, porta_cuda_end_of_(L));
      return porta_cuda_finish_reduce_<F>(L, out, result);
    }
  }
  if constexpr (PORTA_CUDA_REDUCE_ENDS_)
    if (L->end) return porta_cuda_reduce_launch_<F>(L, a, result, out, *L->end);
  return porta_cuda_reduce_launch_<F>(L, a, result, out, porta_cuda_no_end_());
}

/* ---------------- scan ----------------
 * One pass with decoupled look-back (Merrill & Garland 2016), made deterministic.
 * Block k of the launch takes tile k in start order (a ticket), so it only waits on tiles that
 * are running or done. A tile is PORTA_CUDA_BLOCK * it elements (porta_cuda_scan_items_).
 * (1) The block computes its elements' values (body, final = 0) in coalesced rows and stores
 * them in shared memory; (2) each thread scans `it` consecutive values there; (3) one block scan
 * of the thread totals gives the tile aggregate, which is published; (4) warp 0 looks back
 * over the preceding tiles, 32 flags at a time, to the nearest tile p that has published its
 * inclusive prefix, and folds incl[p], agg[p+1], ..., agg[k-1] from left to right: whatever p
 * is, that is incl[k-1] bit for bit, so results do not depend on timing; (5) it publishes the
 * tile's inclusive prefix, and (6) the block calls the body (final = 1) in coalesced rows with
 * each element's prefix. The inputs are read from memory once (the final pass finds them in
 * L2): the memory traffic of a copy. Publication: value, __threadfence, flag; readers: volatile
 * flag, __threadfence, value from L2. Workspace: a ticket and one flag per tile (zeroed before
 * the launch), then agg[] and incl[]. Shared memory: one value per element (opted in above
 * 48 KiB), padded by one value per `it` so that both access patterns are free of conflicts.
 * The kernel stays one function of about 120 lines, above the 80 of the rest of the tree: its
 * six stages share the tile's shared memory, the ticket and the registers (the thread's values
 * and prefix) between __syncthreads, and the look-back's publication order (value, fence, flag)
 * is its correctness argument, read best in one place; device functions for the stages would
 * pass all that state by reference and hide the barriers that order them. */

/** Values per thread of a scan tile: 64 KiB of shared memory a block, 1 to 32 values. */
template <class V> __host__ __device__ constexpr int porta_cuda_scan_items_() {
  return 65536 / (PORTA_CUDA_BLOCK * sizeof(V)) > 32
             ? 32
             : (65536 / (PORTA_CUDA_BLOCK * sizeof(V)) < 1
                    ? 1
                    : (int)(65536 / (PORTA_CUDA_BLOCK * sizeof(V))));
}

template <class F>
__global__ void __launch_bounds__(PORTA_CUDA_BLOCK)
    porta_cuda_scan_k_(const typename F::args_type_ a, int64_t b, int64_t e, unsigned *ctl,
                       typename F::value *agg, typename F::value *inc, typename F::value *total) {
  typedef typename F::value V;
  constexpr int it = porta_cuda_scan_items_<V>(), pad = it > 1 ? 1 : 0;
  extern __shared__ __align__(16) char porta_scan_smem_[];
  V *sv = (V *)porta_scan_smem_;
  __shared__ V wsum[PORTA_CUDA_BLOCK / 32];
  __shared__ V lb[32];
  __shared__ V pre_s;
  __shared__ unsigned tile_s;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  unsigned *flags = ctl + 1;
  if (t == 0) tile_s = atomicAdd(ctl, 1u);
  __syncthreads();
  const int64_t tile = tile_s;
  const int last = tile == (int64_t)gridDim.x - 1;
  const int64_t lo = b + tile * ((int64_t)PORTA_CUDA_BLOCK * it);
  for (int r = 0; r < it; ++r) { /* (1) */
    const int j = r * PORTA_CUDA_BLOCK + t;
    V v;
    F::init(&v);
    if (lo + j < e) F::body(&a, lo + j, &v, 0);
    sv[j + pad * (j / it)] = v;
  }
  __syncthreads();
  V run, x;
  F::init(&run);
  for (int k = 0; k < it; ++k) { /* (2) exclusive, in place */
    V *s = &sv[t * (it + pad) + k];
    x = *s;
    *s = run;
    F::join(&run, &x);
  }
  x = run;
  for (int s = 1; s < 32; s <<= 1) { /* (3) */
    V y = porta_cuda_shfl_up_(x, s, 32);
    if (lane >= s) {
      F::join(&y, &x);
      x = y;
    }
  }
  if (lane == 31) wsum[warp] = x;
  const V ex = porta_cuda_shfl_up_(x, 1, 32);
  __syncthreads();
  if (warp == 0) {
    V tagg, acc;
    F::init(&tagg);
    F::init(&acc);
    for (int w = 0; w < PORTA_CUDA_BLOCK / 32; ++w) F::join(&tagg, &wsum[w]);
    if (tile == 0) {
      if (lane == 0) {
        inc[0] = tagg;
        __threadfence();
        *(volatile unsigned *)&flags[0] = 2u;
      }
    } else {
      if (lane == 0) {
        agg[tile] = tagg;
        __threadfence();
        *(volatile unsigned *)&flags[tile] = 1u;
      }
      int64_t j = tile - 1, p = 0;
      for (;;) { /* (4) the nearest tile with an inclusive prefix (tile 0 has one) */
        const int64_t q = j - lane;
        unsigned f = 0u;
        if (q >= 0) {
          do {
            f = *(volatile unsigned *)&flags[q];
          } while (f == 0u);
        }
        const unsigned ball = __ballot_sync(0xffffffffu, q >= 0 && f == 2u);
        if (ball) {
          p = j - (__ffs((int)ball) - 1);
          break;
        }
        j -= 32;
      }
      __threadfence();
      if (lane == 0) acc = porta_cuda_load_cg_(&inc[p]);
      for (int64_t q0 = p + 1; q0 < tile; q0 += 32) { /* fold left to right */
        const int cnt = tile - q0 < 32 ? (int)(tile - q0) : 32;
        if (lane < cnt) lb[lane] = porta_cuda_load_cg_(&agg[q0 + lane]);
        __syncwarp();
        if (lane == 0)
          for (int l = 0; l < cnt; ++l) F::join(&acc, &lb[l]);
        __syncwarp();
      }
      if (lane == 0) { /* (5) */
        V in = acc;
        F::join(&in, &tagg);
        inc[tile] = in;
        __threadfence();
        *(volatile unsigned *)&flags[tile] = 2u;
        tagg = in;
      }
    }
    if (lane == 0) {
      pre_s = acc; /* the tile's exclusive prefix */
      if (last) *total = tagg;
    }
  }
  __syncthreads();
  V tp = pre_s; /* this thread's exclusive prefix */
  for (int w = 0; w < warp; ++w) F::join(&tp, &wsum[w]);
  if (lane > 0) F::join(&tp, &ex);
  for (int k = 0; k < it; ++k) {
    V *s = &sv[t * (it + pad) + k];
    V y = tp;
    F::join(&y, s);
    *s = y;
  }
  __syncthreads();
  for (int r = 0; r < it; ++r) { /* (6) */
    const int j = r * PORTA_CUDA_BLOCK + t;
    if (lo + j < e) {
      V p = sv[j + pad * (j / it)];
      F::body(&a, lo + j, &p, 1);
    }
  }
}

template <class F>
static int porta_cuda_scan_(const porta_launch *L, const typename F::args_type_ &a, void *total) {
  typedef typename F::value V;
  constexpr int it = porta_cuda_scan_items_<V>();
  const size_t smem = (size_t)PORTA_CUDA_BLOCK * (size_t)(it + (it > 1 ? 1 : 0)) * sizeof(V);
  const int64_t b = L->range.begin, e = L->range.end, n = e - b;
  V *out = (V *)porta_cuda_result_(sizeof(V));
  if (!out) return PORTA_ERROR_OUT_OF_MEMORY;
  const int rc = porta_cuda_shared_setup_((const void *)porta_cuda_scan_k_<F>, smem,
                                          PORTA_CUDA_BLOCK, L->label);
  if (rc) return rc;
  if (n > 0) {
    const int64_t tile = (int64_t)PORTA_CUDA_BLOCK * it, nt = (n + tile - 1) / tile;
    if (nt > porta_cuda_max_grid_()) return PORTA_ERROR_INVALID_ARGUMENT;
    const size_t cb = porta_align64_((size_t)(nt + 1) * sizeof(unsigned));
    const size_t vb = porta_align64_((size_t)nt * sizeof(V));
    char *ws = (char *)porta_cuda_workspace_(cb + 2 * vb);
    if (!ws) return PORTA_ERROR_OUT_OF_MEMORY;
    const cudaStream_t st = porta_cuda_stream_of_(L);
    (void)cudaMemsetAsync(ws, 0, (size_t)(nt + 1) * sizeof(unsigned), st);
    porta_cuda_scan_k_<F><<<(unsigned)nt, PORTA_CUDA_BLOCK, smem, st>>>(
        a, b, e, (unsigned *)ws, (V *)(ws + cb), (V *)(ws + cb + vb), out);
  } else {
    F::init(out);
  }
  return porta_cuda_finish_reduce_<F>(L, out, total);
}

#define PORTA_CUDA_FOR_(NAME, ARGS_T)                                                              \
  PORTA_CUDA_FUNCTOR_(NAME, ARGS_T, 1)                                                             \
  PORTA_CUDA_LAUNCHER_(NAME, porta_cuda_for_)
#define PORTA_CUDA_REDUCE_(NAME, ARGS_T, R)                                                        \
  PORTA_CUDA_FUNCTOR_R_(NAME, ARGS_T, 1, R)                                                        \
  PORTA_CUDA_LAUNCHER_(NAME, porta_cuda_reduce_)
#define PORTA_CUDA_SCAN_(NAME, ARGS_T, R)                                                          \
  PORTA_CUDA_FUNCTOR_R_(NAME, ARGS_T, 1, R)                                                        \
  PORTA_CUDA_LAUNCHER_(NAME, porta_cuda_scan_)

#else
#define PORTA_CUDA_FOR_(NAME, ARGS_T)
#define PORTA_CUDA_REDUCE_(NAME, ARGS_T, R)
#define PORTA_CUDA_SCAN_(NAME, ARGS_T, R)
#endif

#endif
