/** @file backend/cuda/mdrange.h
 *  CUDA multi-dimensional ranges: the first (contiguous on the GPU) index runs
 *  on threadIdx.x, the second on threadIdx.y; higher ranks are flattened onto
 *  the grid's z dimension. Tile hints set the block shape of ranks 0 and 1.
 *  The grid-stride loops are not unrolled, and in rank 2 the first point is peeled: a
 *  thread normally runs one iteration, and an unrolled loop cost every thread a 64-bit
 *  trip-count division and the loop's address set-up (an 8192^2 5-point stencil took
 *  1.2x the time of the same kernel written by hand; now 1.00x).
 *  Rank-2 reductions run 2D tiles of 32 x 8 threads on a grid no larger than what is resident,
 *  each thread striding down index 1 (the flattened version paid two 64-bit divisions per
 *  element: a TeaLeaf stencil reduction ran at 0.70 of the bandwidth of the same loop as a
 *  parallel_for). Other ranks, and boxes narrower than 32, flatten the box (first index
 *  fastest); deterministic mode always flattens, in the host's row-major order, so the bits
 *  match the host's. */
#ifndef PORTA_BACKEND_CUDA_MDRANGE_H
#define PORTA_BACKEND_CUDA_MDRANGE_H

/** Block shape from the tile hints (default 32 x 8, at most 1024 threads). */
static inline dim3 porta_cuda_md_block_(const porta_mdrange_policy *p) {
  int64_t bx = p->tile[0] > 0 ? p->tile[0] : 32, by = p->tile[1] > 0 ? p->tile[1] : 8;
  if (bx > 1024) bx = 1024;
  while (bx * by > 1024) by /= 2;
  if (by < 1) by = 1;
  return dim3((unsigned)bx, (unsigned)by, 1);
}

#define PORTA_CUDA_MDFOR2_(NAME, ARGS_T)                                                           \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_mdrange_policy p) {            \
    const int64_t i0 = p.lower[0] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                \
    if (i0 >= p.upper[0]) return;                                                                  \
    int64_t i1 = p.lower[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;                      \
    if (i1 >= p.upper[1]) return;                                                                  \
    NAME##_porta_body_(&a, i0, i1); /* the grid covers the box unless it has > 65535 * 8 rows */   \
    const int64_t s1 = (int64_t)gridDim.y * blockDim.y;                                            \
    _Pragma("unroll 1") for (i1 += s1; i1 < p.upper[1]; i1 += s1) NAME##_porta_body_(&a, i0, i1);  \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    (void)result;                                                                                  \
    const porta_mdrange_policy *p = &L->md;                                                        \
    int64_t n0 = p->upper[0] - p->lower[0], n1 = p->upper[1] - p->lower[1], nz = 1;                \
    for (int r = 2; r < 2; ++r) nz *= p->upper[r] - p->lower[r];                                   \
    if (n0 <= 0 || n1 <= 0 || nz <= 0) return 0;                                                   \
    dim3 blk = porta_cuda_md_block_(p);                                                            \
    int64_t gx = (n0 + blk.x - 1) / blk.x, gy = (n1 + blk.y - 1) / blk.y;                          \
    if (gx > 2147483647) return PORTA_ERROR_INVALID_ARGUMENT;                                      \
    dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy),                                   \
              (unsigned)(nz > 65535 ? 65535 : nz));                                                \
    NAME##_porta_cuda_k_<<<grid, blk, 0, PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, *p);      \
    return porta_cuda_launched_(L->label);                                                         \
  }

#define PORTA_CUDA_MDFOR3_(NAME, ARGS_T)                                                           \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_mdrange_policy p) {            \
    const int64_t i0 = p.lower[0] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                \
    if (i0 >= p.upper[0]) return;                                                                  \
    _Pragma("unroll 1") for (int64_t i1 =                                                          \
                                 p.lower[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;      \
                             i1 < p.upper[1]; i1 += (int64_t)gridDim.y * blockDim.y) {             \
      int64_t nz = 1;                                                                              \
      for (int r = 2; r < 3; ++r) nz *= p.upper[r] - p.lower[r];                                   \
      _Pragma("unroll 1") for (int64_t z = blockIdx.z; z < nz; z += gridDim.z) {                   \
        int64_t rem = z;                                                                           \
        const int64_t i2 = p.lower[2] + rem % (p.upper[2] - p.lower[2]);                           \
        rem /= (p.upper[2] - p.lower[2]);                                                          \
        NAME##_porta_body_(&a, i0, i1, i2);                                                        \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    (void)result;                                                                                  \
    const porta_mdrange_policy *p = &L->md;                                                        \
    int64_t n0 = p->upper[0] - p->lower[0], n1 = p->upper[1] - p->lower[1], nz = 1;                \
    for (int r = 2; r < 3; ++r) nz *= p->upper[r] - p->lower[r];                                   \
    if (n0 <= 0 || n1 <= 0 || nz <= 0) return 0;                                                   \
    dim3 blk = porta_cuda_md_block_(p);                                                            \
    int64_t gx = (n0 + blk.x - 1) / blk.x, gy = (n1 + blk.y - 1) / blk.y;                          \
    if (gx > 2147483647) return PORTA_ERROR_INVALID_ARGUMENT;                                      \
    dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy),                                   \
              (unsigned)(nz > 65535 ? 65535 : nz));                                                \
    NAME##_porta_cuda_k_<<<grid, blk, 0, PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, *p);      \
    return porta_cuda_launched_(L->label);                                                         \
  }

#define PORTA_CUDA_MDFOR4_(NAME, ARGS_T)                                                           \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_mdrange_policy p) {            \
    const int64_t i0 = p.lower[0] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                \
    if (i0 >= p.upper[0]) return;                                                                  \
    _Pragma("unroll 1") for (int64_t i1 =                                                          \
                                 p.lower[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;      \
                             i1 < p.upper[1]; i1 += (int64_t)gridDim.y * blockDim.y) {             \
      int64_t nz = 1;                                                                              \
      for (int r = 2; r < 4; ++r) nz *= p.upper[r] - p.lower[r];                                   \
      _Pragma("unroll 1") for (int64_t z = blockIdx.z; z < nz; z += gridDim.z) {                   \
        int64_t rem = z;                                                                           \
        const int64_t i3 = p.lower[3] + rem % (p.upper[3] - p.lower[3]);                           \
        rem /= (p.upper[3] - p.lower[3]);                                                          \
        const int64_t i2 = p.lower[2] + rem % (p.upper[2] - p.lower[2]);                           \
        rem /= (p.upper[2] - p.lower[2]);                                                          \
        NAME##_porta_body_(&a, i0, i1, i2, i3);                                                    \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    (void)result;                                                                                  \
    const porta_mdrange_policy *p = &L->md;                                                        \
    int64_t n0 = p->upper[0] - p->lower[0], n1 = p->upper[1] - p->lower[1], nz = 1;                \
    for (int r = 2; r < 4; ++r) nz *= p->upper[r] - p->lower[r];                                   \
    if (n0 <= 0 || n1 <= 0 || nz <= 0) return 0;                                                   \
    dim3 blk = porta_cuda_md_block_(p);                                                            \
    int64_t gx = (n0 + blk.x - 1) / blk.x, gy = (n1 + blk.y - 1) / blk.y;                          \
    if (gx > 2147483647) return PORTA_ERROR_INVALID_ARGUMENT;                                      \
    dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy),                                   \
              (unsigned)(nz > 65535 ? 65535 : nz));                                                \
    NAME##_porta_cuda_k_<<<grid, blk, 0, PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, *p);      \
    return porta_cuda_launched_(L->label);                                                         \
  }

#define PORTA_CUDA_MDFOR5_(NAME, ARGS_T)                                                           \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_mdrange_policy p) {            \
    const int64_t i0 = p.lower[0] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                \
    if (i0 >= p.upper[0]) return;                                                                  \
    _Pragma("unroll 1") for (int64_t i1 =                                                          \
                                 p.lower[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;      \
                             i1 < p.upper[1]; i1 += (int64_t)gridDim.y * blockDim.y) {             \
      int64_t nz = 1;                                                                              \
      for (int r = 2; r < 5; ++r) nz *= p.upper[r] - p.lower[r];                                   \
      _Pragma("unroll 1") for (int64_t z = blockIdx.z; z < nz; z += gridDim.z) {                   \
        int64_t rem = z;                                                                           \
        const int64_t i4 = p.lower[4] + rem % (p.upper[4] - p.lower[4]);                           \
        rem /= (p.upper[4] - p.lower[4]);                                                          \
        const int64_t i3 = p.lower[3] + rem % (p.upper[3] - p.lower[3]);                           \
        rem /= (p.upper[3] - p.lower[3]);                                                          \
        const int64_t i2 = p.lower[2] + rem % (p.upper[2] - p.lower[2]);                           \
        rem /= (p.upper[2] - p.lower[2]);                                                          \
        NAME##_porta_body_(&a, i0, i1, i2, i3, i4);                                                \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    (void)result;                                                                                  \
    const porta_mdrange_policy *p = &L->md;                                                        \
    int64_t n0 = p->upper[0] - p->lower[0], n1 = p->upper[1] - p->lower[1], nz = 1;                \
    for (int r = 2; r < 5; ++r) nz *= p->upper[r] - p->lower[r];                                   \
    if (n0 <= 0 || n1 <= 0 || nz <= 0) return 0;                                                   \
    dim3 blk = porta_cuda_md_block_(p);                                                            \
    int64_t gx = (n0 + blk.x - 1) / blk.x, gy = (n1 + blk.y - 1) / blk.y;                          \
    if (gx > 2147483647) return PORTA_ERROR_INVALID_ARGUMENT;                                      \
    dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy),                                   \
              (unsigned)(nz > 65535 ? 65535 : nz));                                                \
    NAME##_porta_cuda_k_<<<grid, blk, 0, PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, *p);      \
    return porta_cuda_launched_(L->label);                                                         \
  }

#define PORTA_CUDA_MDFOR6_(NAME, ARGS_T)                                                           \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_mdrange_policy p) {            \
    const int64_t i0 = p.lower[0] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                \
    if (i0 >= p.upper[0]) return;                                                                  \
    _Pragma("unroll 1") for (int64_t i1 =                                                          \
                                 p.lower[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;      \
                             i1 < p.upper[1]; i1 += (int64_t)gridDim.y * blockDim.y) {             \
      int64_t nz = 1;                                                                              \
      for (int r = 2; r < 6; ++r) nz *= p.upper[r] - p.lower[r];                                   \
      _Pragma("unroll 1") for (int64_t z = blockIdx.z; z < nz; z += gridDim.z) {                   \
        int64_t rem = z;                                                                           \
        const int64_t i5 = p.lower[5] + rem % (p.upper[5] - p.lower[5]);                           \
        rem /= (p.upper[5] - p.lower[5]);                                                          \
        const int64_t i4 = p.lower[4] + rem % (p.upper[4] - p.lower[4]);                           \
        rem /= (p.upper[4] - p.lower[4]);                                                          \
        const int64_t i3 = p.lower[3] + rem % (p.upper[3] - p.lower[3]);                           \
        rem /= (p.upper[3] - p.lower[3]);                                                          \
        const int64_t i2 = p.lower[2] + rem % (p.upper[2] - p.lower[2]);                           \
        rem /= (p.upper[2] - p.lower[2]);                                                          \
        NAME##_porta_body_(&a, i0, i1, i2, i3, i4, i5);                                            \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    (void)result;                                                                                  \
    const porta_mdrange_policy *p = &L->md;                                                        \
    int64_t n0 = p->upper[0] - p->lower[0], n1 = p->upper[1] - p->lower[1], nz = 1;                \
    for (int r = 2; r < 6; ++r) nz *= p->upper[r] - p->lower[r];                                   \
    if (n0 <= 0 || n1 <= 0 || nz <= 0) return 0;                                                   \
    dim3 blk = porta_cuda_md_block_(p);                                                            \
    int64_t gx = (n0 + blk.x - 1) / blk.x, gy = (n1 + blk.y - 1) / blk.y;                          \
    if (gx > 2147483647) return PORTA_ERROR_INVALID_ARGUMENT;                                      \
    dim3 grid((unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy),                                   \
              (unsigned)(nz > 65535 ? 65535 : nz));                                                \
    NAME##_porta_cuda_k_<<<grid, blk, 0, PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, *p);      \
    return porta_cuda_launched_(L->label);                                                         \
  }

#define PORTA_CUDA_MDREDUCE2_(NAME, ARGS_T, R)                                                     \
  static __device__ __forceinline__ void NAME##_porta_cuda_at_(                                    \
      const ARGS_T *a, const porta_mdrange_policy *p, int64_t k, int left, R##_value *acc) {       \
    int64_t ix[2], rem = k;                                                                        \
    if (left) {                                                                                    \
      for (int r = 0; r < 2; ++r) {                                                                \
        int64_t ex = p->upper[r] - p->lower[r];                                                    \
        ix[r] = p->lower[r] + rem % ex;                                                            \
        rem /= ex;                                                                                 \
      }                                                                                            \
    } else {                                                                                       \
      for (int r = 1; r >= 0; --r) {                                                               \
        int64_t ex = p->upper[r] - p->lower[r];                                                    \
        ix[r] = p->lower[r] + rem % ex;                                                            \
        rem /= ex;                                                                                 \
      }                                                                                            \
    }                                                                                              \
    NAME##_porta_body_(a, ix[0], ix[1], acc);                                                      \
  }                                                                                                \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_mdrange_policy p, int64_t n,   \
                                              R##_value *partials, unsigned *counter,              \
                                              R##_value *out) {                                    \
    R##_value acc;                                                                                 \
    R##_init(&acc);                                                                                \
    const int64_t step = (int64_t)gridDim.x * blockDim.x;                                          \
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += step)             \
      NAME##_porta_cuda_at_(&a, &p, k, 1, &acc);                                                   \
    PORTA_CUDA_REDUCE_TAIL_(R, acc, partials, counter, out)                                        \
  }                                                                                                \
  /* 2D tiles of 32 x (PORTA_CUDA_BLOCK / 32): gx tiles across index 0, gridDim.x / gx down     */ \
  /* index 1, each thread striding over rows; no 64-bit division per element                  */   \
  static __global__ void NAME##_porta_cuda_k2d_(const ARGS_T a, porta_mdrange_policy p,            \
                                                unsigned gx, R##_value *partials,                  \
                                                unsigned *counter, R##_value *out) {               \
    R##_value acc;                                                                                 \
    R##_init(&acc);                                                                                \
    const unsigned bx = blockIdx.x % gx, by = blockIdx.x / gx, gy = gridDim.x / gx;                \
    const int64_t i0 = p.lower[0] + (int64_t)bx * 32 + (threadIdx.x & 31);                         \
    if (i0 < p.upper[0]) {                                                                         \
      const int64_t s1 = (int64_t)gy * (PORTA_CUDA_BLOCK / 32);                                    \
      _Pragma("unroll 1") for (int64_t i1 = p.lower[1] + (int64_t)by * (PORTA_CUDA_BLOCK / 32) +   \
                                            (threadIdx.x >> 5);                                    \
                               i1 < p.upper[1]; i1 += s1) NAME##_porta_body_(&a, i0, i1, &acc);    \
    }                                                                                              \
    PORTA_CUDA_REDUCE_TAIL_(R, acc, partials, counter, out)                                        \
  }                                                                                                \
  static __global__ void NAME##_porta_cuda_det_(const ARGS_T a, porta_mdrange_policy p, int64_t n, \
                                                int64_t nc, R##_value *partials) {                 \
    const int lane = threadIdx.x & 31;                                                             \
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);                                  \
    for (int64_t c = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; c < nc;           \
         c += warps) {                                                                             \
      const int64_t lo = c * PORTA_DET_CHUNK,                                                      \
                    hi = lo + PORTA_DET_CHUNK < n ? lo + PORTA_DET_CHUNK : n;                      \
      R##_value acc;                                                                               \
      R##_init(&acc);                                                                              \
      for (int64_t k = lo + lane; k < hi; k += 32) NAME##_porta_cuda_at_(&a, &p, k, 0, &acc);      \
      PORTA_CUDA_DET_LANES_TREE_(R, acc, lane)                                                     \
      if (lane == 0) partials[c] = acc;                                                            \
    }                                                                                              \
  }                                                                                                \
  PORTA_CUDA_DET_TREE_KERNEL_(NAME, R)                                                             \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    const porta_mdrange_policy *p = &L->md;                                                        \
    const int64_t n = porta_mdrange_size_(p);                                                      \
    R##_value *out = (R##_value *)porta_cuda_result_(sizeof(R##_value));                           \
    if (!out) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
    if (L->deterministic) {                                                                        \
      const int64_t nc = (n + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK;                              \
      R##_value *q =                                                                               \
          (R##_value *)porta_cuda_workspace_((size_t)(nc > 0 ? nc : 1) * sizeof(R##_value));       \
      if (!q) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      if (nc > 0)                                                                                  \
        NAME##_porta_cuda_det_<<<porta_cuda_grid_(nc, PORTA_CUDA_BLOCK / 32), PORTA_CUDA_BLOCK, 0, \
                                 PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, *p, n, nc, q);    \
      NAME##_porta_cuda_tree_<<<1, 1024, 0, PORTA_CUDA_STREAM_(L)>>>(q, nc, out);                  \
    } else if (p->upper[0] - p->lower[0] >= 32 && p->upper[1] > p->lower[1]) {                     \
      static int resident2_ = 0;                                                                   \
      const int64_t gx = (p->upper[0] - p->lower[0] + 31) / 32, rows = PORTA_CUDA_BLOCK / 32;      \
      const int64_t cap =                                                                          \
          porta_cuda_reduce_grid_(n, (const void *)NAME##_porta_cuda_k2d_, &resident2_) / gx;      \
      int64_t gy = (p->upper[1] - p->lower[1] + rows - 1) / rows;                                  \
      if (gy > cap) gy = cap > 0 ? cap : 1;                                                        \
      if (gx * gy > porta_cuda_max_grid_()) return PORTA_ERROR_INVALID_ARGUMENT;                   \
      R##_value *q = (R##_value *)porta_cuda_workspace_((size_t)(gx * gy) * sizeof(R##_value));    \
      if (!q) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      NAME##_porta_cuda_k2d_<<<(unsigned)(gx * gy), PORTA_CUDA_BLOCK, 0, PORTA_CUDA_STREAM_(L)>>>( \
          *(const ARGS_T *)args, *p, (unsigned)gx, q, porta_cuda_counter_(), out);                 \
    } else {                                                                                       \
      static int resident_ = 0;                                                                    \
      const unsigned g =                                                                           \
          porta_cuda_reduce_grid_(n, (const void *)NAME##_porta_cuda_k_, &resident_);              \
      R##_value *q = (R##_value *)porta_cuda_workspace_((size_t)g * sizeof(R##_value));            \
      if (!q) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      NAME##_porta_cuda_k_<<<g, PORTA_CUDA_BLOCK, 0, PORTA_CUDA_STREAM_(L)>>>(                     \
          *(const ARGS_T *)args, *p, n, q, porta_cuda_counter_(), out);                            \
    }                                                                                              \
    PORTA_CUDA_FINISH_REDUCE_(L, R, out, result)                                                   \
  }

#define PORTA_CUDA_MDREDUCE3_(NAME, ARGS_T, R)                                                     \
  static __device__ __forceinline__ void NAME##_porta_cuda_at_(                                    \
      const ARGS_T *a, const porta_mdrange_policy *p, int64_t k, int left, R##_value *acc) {       \
    int64_t ix[3], rem = k;                                                                        \
    if (left) {                                                                                    \
      for (int r = 0; r < 3; ++r) {                                                                \
        int64_t ex = p->upper[r] - p->lower[r];                                                    \
        ix[r] = p->lower[r] + rem % ex;                                                            \
        rem /= ex;                                                                                 \
      }                                                                                            \
    } else {                                                                                       \
      for (int r = 2; r >= 0; --r) {                                                               \
        int64_t ex = p->upper[r] - p->lower[r];                                                    \
        ix[r] = p->lower[r] + rem % ex;                                                            \
        rem /= ex;                                                                                 \
      }                                                                                            \
    }                                                                                              \
    NAME##_porta_body_(a, ix[0], ix[1], ix[2], acc);                                               \
  }                                                                                                \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_mdrange_policy p, int64_t n,   \
                                              R##_value *partials, unsigned *counter,              \
                                              R##_value *out) {                                    \
    R##_value acc;                                                                                 \
    R##_init(&acc);                                                                                \
    const int64_t step = (int64_t)gridDim.x * blockDim.x;                                          \
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += step)             \
      NAME##_porta_cuda_at_(&a, &p, k, 1, &acc);                                                   \
    PORTA_CUDA_REDUCE_TAIL_(R, acc, partials, counter, out)                                        \
  }                                                                                                \
  static __global__ void NAME##_porta_cuda_det_(const ARGS_T a, porta_mdrange_policy p, int64_t n, \
                                                int64_t nc, R##_value *partials) {                 \
    const int lane = threadIdx.x & 31;                                                             \
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);                                  \
    for (int64_t c = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; c < nc;           \
         c += warps) {                                                                             \
      const int64_t lo = c * PORTA_DET_CHUNK,                                                      \
                    hi = lo + PORTA_DET_CHUNK < n ? lo + PORTA_DET_CHUNK : n;                      \
      R##_value acc;                                                                               \
      R##_init(&acc);                                                                              \
      for (int64_t k = lo + lane; k < hi; k += 32) NAME##_porta_cuda_at_(&a, &p, k, 0, &acc);      \
      PORTA_CUDA_DET_LANES_TREE_(R, acc, lane)                                                     \
      if (lane == 0) partials[c] = acc;                                                            \
    }                                                                                              \
  }                                                                                                \
  PORTA_CUDA_DET_TREE_KERNEL_(NAME, R)                                                             \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    const porta_mdrange_policy *p = &L->md;                                                        \
    const int64_t n = porta_mdrange_size_(p);                                                      \
    R##_value *out = (R##_value *)porta_cuda_result_(sizeof(R##_value));                           \
    if (!out) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
    if (L->deterministic) {                                                                        \
      const int64_t nc = (n + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK;                              \
      R##_value *q =                                                                               \
          (R##_value *)porta_cuda_workspace_((size_t)(nc > 0 ? nc : 1) * sizeof(R##_value));       \
      if (!q) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      if (nc > 0)                                                                                  \
        NAME##_porta_cuda_det_<<<porta_cuda_grid_(nc, PORTA_CUDA_BLOCK / 32), PORTA_CUDA_BLOCK, 0, \
                                 PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, *p, n, nc, q);    \
      NAME##_porta_cuda_tree_<<<1, 1024, 0, PORTA_CUDA_STREAM_(L)>>>(q, nc, out);                  \
    } else {                                                                                       \
      static int resident_ = 0;                                                                    \
      const unsigned g =                                                                           \
          porta_cuda_reduce_grid_(n, (const void *)NAME##_porta_cuda_k_, &resident_);              \
      R##_value *q = (R##_value *)porta_cuda_workspace_((size_t)g * sizeof(R##_value));            \
      if (!q) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
      NAME##_porta_cuda_k_<<<g, PORTA_CUDA_BLOCK, 0, PORTA_CUDA_STREAM_(L)>>>(                     \
          *(const ARGS_T *)args, *p, n, q, porta_cuda_counter_(), out);                            \
    }                                                                                              \
    PORTA_CUDA_FINISH_REDUCE_(L, R, out, result)                                                   \
  }

#endif
