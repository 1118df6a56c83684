/** @file backend/cuda/mdrange.h
 *  CUDA multi-dimensional ranges, one function template for every rank (the functor's rank,
 *  a template parameter). The first (contiguous on the GPU) index runs on threadIdx.x, the
 *  second on threadIdx.y; higher indices are flattened onto the grid's z dimension, the last
 *  fastest. Tile hints set the block shape of indices 0 and 1.
 *  The grid-stride loops are not unrolled, and in rank 2 the first point is peeled: a
 *  thread normally runs one iteration, and an unrolled loop cost every thread a 64-bit
 *  trip-count division and the loop's address set-up (an 8192^2 5-point stencil took
 *  1.2x the time of the same kernel written by hand; now 1.00x).
 *  Rank-2 reductions run 2D tiles of 32 x 8 threads on a grid no larger than what is resident,
 *  each thread striding down index 1 (the flattened version paid two 64-bit divisions per
 *  element: a TeaLeaf stencil reduction ran at 0.70 of the bandwidth of the same loop as a
 *  parallel_for). Other ranks, and boxes narrower than 32, flatten the box (first index
 *  fastest), except the exact sum's, which takes the tiles on any box; deterministic mode takes
 *  the tiles of backend/launch.h, so the bits match the host's (the exact sum, the same bits in
 *  any order, keeps its ordinary kernel). */
#ifndef PORTA_BACKEND_CUDA_MDRANGE_H
#define PORTA_BACKEND_CUDA_MDRANGE_H

#include "porta/backend/cuda/launch.h"

#if defined(__CUDACC__)

/** Block shape from the tile hints (default 32 x 8, at most 1024 threads). */
static inline dim3 porta_cuda_md_block_(const porta_mdrange_policy *p) {
  int64_t bx = p->tile[0] > 0 ? p->tile[0] : 32, by = p->tile[1] > 0 ? p->tile[1] : 8;
  if (bx > 1024) bx = 1024;
  while (bx * by > 1024) by /= 2;
  if (by < 1) by = 1;
  return dim3((unsigned)bx, (unsigned)by, 1);
}

/** The body at the indices ix[0 .. Rank-1], then the extra arguments (an accumulator). */
template <class F, size_t... K, class... Extra>
__device__ __forceinline__ void porta_cuda_md_call_(const typename F::args_type_ *a,
                                                    const int64_t *ix, std::index_sequence<K...>,
                                                    Extra... extra) {
  F::body(a, ix[K]..., extra...);
}

/** Points of the box beyond indices 0 and 1 (the grid's z extent before clamping). */
template <int Rank>
__host__ __device__ __forceinline__ int64_t porta_cuda_md_depth_(const porta_mdrange_policy *p) {
  int64_t nz = 1;
  for (int r = 2; r < Rank; ++r) nz *= p->upper[r] - p->lower[r];
  return nz;
}

template <class F, int Rank = F::rank>
__global__ void porta_cuda_mdfor_k_(const typename F::args_type_ a, porta_mdrange_policy p) {
  const int64_t i0 = p.lower[0] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i0 >= p.upper[0]) return;
  if constexpr (Rank == 2) {
    int64_t i1 = p.lower[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (i1 >= p.upper[1]) return;
    F::body(&a, i0, i1); /* the grid covers the box unless it has > 65535 * 8 rows */
    const int64_t s1 = (int64_t)gridDim.y * blockDim.y;
#pragma unroll 1
    for (i1 += s1; i1 < p.upper[1]; i1 += s1) F::body(&a, i0, i1);
  } else {
    int64_t ix[Rank];
    ix[0] = i0;
#pragma unroll 1
    for (int64_t i1 = p.lower[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y; i1 < p.upper[1];
         i1 += (int64_t)gridDim.y * blockDim.y) {
      ix[1] = i1;
      const int64_t nz = porta_cuda_md_depth_<Rank>(&p);
#pragma unroll 1
      for (int64_t z = blockIdx.z; z < nz; z += gridDim.z) {
        int64_t rem = z;
        for (int r = Rank - 1; r >= 2; --r) {
          const int64_t ex = p.upper[r] - p.lower[r];
          ix[r] = p.lower[r] + rem % ex;
          rem /= ex;
        }
        porta_cuda_md_call_<F>(&a, ix, std::make_index_sequence<Rank>());
      }
    }
  }
}

template <class F, int Rank = F::rank>
static int porta_cuda_mdfor_(const porta_launch *L, const typename F::args_type_ &a, void *result) {
  (void)result;
  const porta_mdrange_policy *p = &L->md;
  const int64_t n0 = p->upper[0] - p->lower[0], n1 = p->upper[1] - p->lower[1],
                nz = porta_cuda_md_depth_<Rank>(p);
  if (n0 <= 0 || n1 <= 0 || nz <= 0) return 0;
  const dim3 blk = porta_cuda_md_block_(p);
  const int64_t gx = (n0 + blk.x - 1) / blk.x, gy = (n1 + blk.y - 1) / blk.y;
  if (gx > 2147483647) return PORTA_ERROR_INVALID_ARGUMENT;
  const dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy),
                  (unsigned)(nz > 65535 ? 65535 : nz));
  porta_cuda_mdfor_k_<F, Rank><<<grid, blk, 0, porta_cuda_stream_of_(L)>>>(a, *p);
  return porta_cuda_launched_(L->label);
}

/** Point k of the flattened box (first index fastest) into the body. */
template <class F, int Rank>
__device__ __forceinline__ void porta_cuda_md_at_(const typename F::args_type_ *a,
                                                  const porta_mdrange_policy *p, int64_t k,
                                                  typename F::value *acc) {
  int64_t ix[Rank], rem = k;
  for (int r = 0; r < Rank; ++r) {
    const int64_t ex = p->upper[r] - p->lower[r];
    ix[r] = p->lower[r] + rem % ex;
    rem /= ex;
  }
  porta_cuda_md_call_<F>(a, ix, std::make_index_sequence<Rank>(), acc);
}

template <class F, int Rank, class E>
__global__ void porta_cuda_mdreduce_k_(const typename F::args_type_ a, porta_mdrange_policy p,
                                       int64_t n, typename F::value *partials, unsigned *counter,
                                       typename F::value *out, const E end) {
  typename F::value acc;
  porta_cuda_value_init_<F>(&acc);
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += step)
    porta_cuda_md_at_<F, Rank>(&a, &p, k, &acc);
  porta_cuda_reduce_tail_<F, E>(acc, partials, counter, out, end);
}

/** Rank 2: tiles of 32 x (PORTA_CUDA_BLOCK / 32), gx tiles across index 0 and gridDim.x / gx
 *  down index 1, each thread striding over rows; no 64-bit division per element. */
template <class F, class E>
__global__ void porta_cuda_mdreduce_2d_k_(const typename F::args_type_ a, porta_mdrange_policy p,
                                          unsigned gx, typename F::value *partials,
                                          unsigned *counter, typename F::value *out, const E end) {
  typename F::value acc;
  porta_cuda_value_init_<F>(&acc);
  const unsigned bx = blockIdx.x % gx, by = blockIdx.x / gx, gy = gridDim.x / gx;
  const int64_t i0 = p.lower[0] + (int64_t)bx * 32 + (threadIdx.x & 31);
  if (i0 < p.upper[0]) {
    porta_cuda_reduce_strided_<F, std::is_same<E, porta_cuda_no_end_>::value, true>(
        &acc, p.lower[1] + (int64_t)by * (PORTA_CUDA_BLOCK / 32) + (threadIdx.x >> 5), p.upper[1],
        (int64_t)gy * (PORTA_CUDA_BLOCK / 32),
        [&](int64_t i1, typename F::value *v) { F::body(&a, i0, i1, v); });
  }
  porta_cuda_reduce_tail_<F, E>(acc, partials, counter, out, end);
}

/** Deterministic: a warp per tile (backend/launch.h), lane l at point l of the tile's block of
 *  index 0 (adjacent in the left layout), summing the tile's points of the other indices in
 *  row-major order as the host's lane does. */
template <class F, int Rank = F::rank>
__global__ void porta_cuda_mdreduce_det_k_(const typename F::args_type_ a, porta_mdrange_policy p,
                                           int64_t nb0, int64_t rest, int64_t nc,
                                           typename F::value *partials) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t t = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; t < nc; t += warps) {
    /* the tile's place by 32-bit divisions where the tiles allow (a 64-bit one is a hundred
       instructions, a lane's 16 points a few tens) */
    int64_t ts, tb;
    if (nc <= (int64_t)UINT32_MAX) {
      const uint32_t t32 = (uint32_t)t, nb32 = (uint32_t)nb0;
      ts = t32 / nb32;
      tb = t32 - (uint32_t)ts * nb32;
    } else {
      ts = t / nb0;
      tb = t - ts * nb0;
    }
    const int64_t q0 = ts * PORTA_DET_TILE_REST;
    const int64_t q1 = q0 + PORTA_DET_TILE_REST < rest ? q0 + PORTA_DET_TILE_REST : rest;
    typename F::value acc;
    F::init(&acc);
    int64_t ix[Rank];
    ix[0] = p.lower[0] + tb * PORTA_DET_LANES + lane;
    if (ix[0] < p.upper[0]) {
      if constexpr (Rank == 2) {
        /* index 1 is the tile's rest: a whole strip unrolled, so that its loads need not wait
           for the previous point's addition */
        const int64_t j0 = p.lower[1] + q0;
        if (q1 - q0 == PORTA_DET_TILE_REST) {
#pragma unroll
          for (int q = 0; q < PORTA_DET_TILE_REST; ++q) F::body(&a, ix[0], j0 + q, &acc);
        } else {
          for (int64_t j = j0; j < p.lower[1] + q1; ++j) F::body(&a, ix[0], j, &acc);
        }
      } else {
        int64_t rem = q0;
        for (int r = Rank - 1; r >= 1; --r) {
          const int64_t ex = p.upper[r] - p.lower[r];
          ix[r] = p.lower[r] + rem % ex;
          rem /= ex;
        }
        for (int64_t q = q0; q < q1; ++q) {
          porta_cuda_md_call_<F>(&a, ix, std::make_index_sequence<Rank>(), &acc);
          for (int r = Rank - 1; r >= 1; --r) {
            if (++ix[r] < p.upper[r] || r == 1) break;
            ix[r] = p.lower[r];
          }
        }
      }
    }
    porta_cuda_det_lanes_<F>(&acc, lane);
    if (lane == 0) partials[t] = acc;
  }
}

/** A rank-2 box in tiles of 32 x (PORTA_CUDA_BLOCK / 32) points (porta_cuda_mdreduce_2d_k_),
 *  any box: a tile's threads past a narrow or empty box add nothing. */
template <class F, class E>
static int porta_cuda_mdreduce_tiled_(const porta_launch *L, const typename F::args_type_ &a,
                                      void *result, typename F::value *out, const E &end) {
  typedef typename F::value V;
  const porta_mdrange_policy *p = &L->md;
  static int resident = 0;
  const int64_t rows = PORTA_CUDA_BLOCK / 32;
  const int64_t gx = p->upper[0] > p->lower[0] ? (p->upper[0] - p->lower[0] + 31) / 32 : 1;
  const int64_t cap =
      porta_cuda_reduce_grid_(porta_mdrange_size_(p), (const void *)porta_cuda_mdreduce_2d_k_<F, E>,
                              &resident) /
      gx;
  int64_t gy = p->upper[1] > p->lower[1] ? (p->upper[1] - p->lower[1] + rows - 1) / rows : 1;
  if (gy > cap) gy = cap > 0 ? cap : 1;
  if (gx * gy > porta_cuda_max_grid_()) return PORTA_ERROR_INVALID_ARGUMENT;
  V *q = (V *)porta_cuda_workspace_((size_t)(gx * gy) * sizeof(V));
  if (!q) return PORTA_ERROR_OUT_OF_MEMORY;
  porta_cuda_mdreduce_2d_k_<F, E>
      <<<(unsigned)(gx * gy), PORTA_CUDA_BLOCK, 0, porta_cuda_stream_of_(L)>>>(
          a, *p, (unsigned)gx, q, porta_cuda_counter_(), out, end);
  return porta_cuda_finish_reduce_<F>(L, out, result);
}

/** The nondeterministic reduction with end `end` (porta_cuda_no_end_: none): its kernel's
 *  grid from that kernel's own occupancy (launch.h, porta_cuda_no_end_). Rank 2 takes the
 *  tiles where the box is at least 32 wide, an exact sum of rank 2 on every box (so its
 *  generic kernel is not compiled); the rest the box flattened. */
template <class F, int Rank, class E>
static int porta_cuda_mdreduce_launch_(const porta_launch *L, const typename F::args_type_ &a,
                                       void *result, typename F::value *out, const E &end) {
  typedef typename F::value V;
  const porta_mdrange_policy *p = &L->md;
  if constexpr (Rank == 2 && porta_cuda_is_xsum_<V>::value) {
    return porta_cuda_mdreduce_tiled_<F>(L, a, result, out, end);
  } else {
    if constexpr (Rank == 2)
      if (p->upper[0] - p->lower[0] >= 32 && p->upper[1] > p->lower[1])
        return porta_cuda_mdreduce_tiled_<F>(L, a, result, out, end);
    const int64_t n = porta_mdrange_size_(p);
    static int resident = 0;
    const unsigned g =
        porta_cuda_reduce_grid_(n, (const void *)porta_cuda_mdreduce_k_<F, Rank, E>, &resident);
    V *q = (V *)porta_cuda_workspace_((size_t)g * sizeof(V));
    if (!q) return PORTA_ERROR_OUT_OF_MEMORY;
    porta_cuda_mdreduce_k_<F, Rank, E><<<g, PORTA_CUDA_BLOCK, 0, porta_cuda_stream_of_(L)>>>(
        a, *p, n, q, porta_cuda_counter_(), out, end);
    return porta_cuda_finish_reduce_<F>(L, out, result);
  }
}

template <class F, int Rank = F::rank>
static int porta_cuda_mdreduce_(const porta_launch *L, const typename F::args_type_ &a,
                                void *result) {
  typedef typename F::value V;
  const porta_mdrange_policy *p = &L->md;
  const int64_t n = porta_mdrange_size_(p);
  const cudaStream_t st = porta_cuda_stream_of_(L);
  if (!PORTA_CUDA_REDUCE_ENDS_ && L->end) return porta_cuda_end_refused_(L);
  V *out = porta_cuda_reduce_out_<V>(L, result);
  if (!out) return PORTA_ERROR_OUT_OF_MEMORY;
  /* an exact sum is the same bits in any order: deterministic, it takes the ordinary kernel,
     and its deterministic kernels are not compiled */
  if constexpr (!porta_cuda_is_xsum_<V>::value) {
    if (L->deterministic) {
      const int64_t nc = porta_md_det_tiles_(p);
      const int64_t n0 = p->upper[0] - p->lower[0];
      V *q = (V *)porta_cuda_workspace_((size_t)(nc > 0 ? nc : 1) * sizeof(V));
      if (!q) return PORTA_ERROR_OUT_OF_MEMORY;
      /* a warp a tile, on no more blocks than are resident (each warp then takes several) */
      static int resident = 0;
      if (nc > 0)
        porta_cuda_mdreduce_det_k_<F, Rank>
            <<<porta_cuda_reduce_grid_(nc * (PORTA_CUDA_BLOCK * 4 / (PORTA_CUDA_BLOCK / 32)),
                                       (const void *)porta_cuda_mdreduce_det_k_<F, Rank>,
                                       &resident),
               PORTA_CUDA_BLOCK, 0, st>>>(a, *p, (n0 + PORTA_DET_LANES - 1) / PORTA_DET_LANES,
                                          n / n0, nc, q);
      porta_cuda_det_tree_k_<F><<<1, 1024, 0, st>>>(q, nc, out, porta_cuda_end_of_(L));
      return porta_cuda_finish_reduce_<F>(L, out, result);
    }
  }
  if constexpr (PORTA_CUDA_REDUCE_ENDS_)
    if (L->end) return porta_cuda_mdreduce_launch_<F, Rank>(L, a, result, out, *L->end);
  return porta_cuda_mdreduce_launch_<F, Rank>(L, a, result, out, porta_cuda_no_end_());
}

#define PORTA_CUDA_MDFOR_(NAME, ARGS_T, RANK)                                                      \
  PORTA_CUDA_FUNCTOR_(NAME, ARGS_T, RANK)                                                          \
  PORTA_CUDA_LAUNCHER_(NAME, porta_cuda_mdfor_)
#define PORTA_CUDA_MDREDUCE_(NAME, ARGS_T, RANK, R)                                                \
  PORTA_CUDA_FUNCTOR_R_(NAME, ARGS_T, RANK, R)                                                     \
  PORTA_CUDA_LAUNCHER_(NAME, porta_cuda_mdreduce_)

#else
#define PORTA_CUDA_MDFOR_(NAME, ARGS_T, RANK)
#define PORTA_CUDA_MDREDUCE_(NAME, ARGS_T, RANK, R)
#endif

#endif
