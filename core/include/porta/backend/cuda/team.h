/** @file backend/cuda/team.h
 *  CUDA team launchers: one block per team, vector lanes on threadIdx.x, team threads on
 *  threadIdx.y. A team parallel_for runs exactly one team per block (a league beyond the grid
 *  limit is launched in chunks); a team reduction grid-strides over the league. Level-0 scratch and
 *  the exchange slots live in dynamic shared memory (opting in above 48 KiB);
 *  level-1 scratch in a global pool, one region per block. In a team reduction
 *  each thread's lane 0 contributes its value. */
#ifndef PORTA_BACKEND_CUDA_TEAM_H
#define PORTA_BACKEND_CUDA_TEAM_H

/** Dynamic shared memory of a team block: slots, level-0 team and per-thread scratch, and
 *  `value_size` bytes per member for a reduction. The dispatcher sizes teams by the same
 *  function (porta_team_level0_bytes_), so what it accepts fits when launched. */
static inline __host__ __device__ size_t porta_cuda_team_smem_(const porta_team_policy *p,
                                                               size_t value_size) {
  return porta_team_level0_bytes_(p, (size_t)p->team_size, value_size);
}

static inline size_t porta_cuda_team_l1_(const porta_team_policy *p) {
  return porta_align64_(p->scratch_team[1]) +
         (size_t)p->team_size * porta_align64_(p->scratch_thread[1]);
}

__device__ __forceinline__ void porta_cuda_team_setup_(porta_team *t, const porta_team_policy *p,
                                                       int64_t lr, porta_team_shared *sh,
                                                       char *smem, char *l1) {
  size_t ts = (size_t)p->team_size, off = porta_align64_(ts * PORTA_TEAM_SLOT_BYTES);
  t->league_rank = lr;
  t->league_size = p->league_size;
  t->team_rank = (int32_t)threadIdx.y;
  t->team_size = p->team_size;
  t->vector_length = (int32_t)blockDim.x;
  t->vector_lane = (int32_t)threadIdx.x;
  sh->slots = smem;
  t->shared = sh;
  size_t tb0 = porta_align64_(p->scratch_team[0]), pb0 = porta_align64_(p->scratch_thread[0]);
  t->scratch[0] = smem + off;
  t->thread_scratch[0] = smem + off + tb0 + threadIdx.y * pb0;
  size_t tb1 = porta_align64_(p->scratch_team[1]), pb1 = porta_align64_(p->scratch_thread[1]);
  t->scratch[1] = l1;
  t->thread_scratch[1] = l1 + tb1 + threadIdx.y * pb1;
  for (int l = 0; l < 2; ++l) {
    t->scratch_size[l] = p->scratch_team[l];
    t->thread_scratch_size[l] = p->scratch_thread[l];
    t->scratch_used[l] = 0;
    t->thread_scratch_used[l] = 0;
  }
}

/** Launch-time checks and the level-1 pool shared by team for and reduce. */
#define PORTA_CUDA_TEAM_PREPARE_(KERNEL, VALUE_SIZE)                                               \
  const porta_team_policy *p = &L->team;                                                           \
  if (p->league_size <= 0) {                                                                       \
    (void)args;                                                                                    \
  }                                                                                                \
  const unsigned grid = porta_cuda_grid_(p->league_size > 0 ? p->league_size : 1, 1);              \
  const size_t smem = porta_cuda_team_smem_(p, (VALUE_SIZE));                                      \
  const size_t l1b = porta_align64_(porta_cuda_team_l1_(p));                                       \
  int rc_ = porta_cuda_shared_setup_((const void *)KERNEL, smem,                                   \
                                     (int)(p->team_size * p->vector_length), L->label);            \
  if (rc_) return rc_;                                                                             \
  char *l1 = NULL;                                                                                 \
  if (l1b) {                                                                                       \
    l1 = (char *)porta_cuda_workspace_(l1b * grid);                                                \
    if (!l1) return PORTA_ERROR_OUT_OF_MEMORY;                                                     \
  }                                                                                                \
  dim3 blk((unsigned)p->vector_length, (unsigned)p->team_size, 1);

/* Team parallel_for. The kernel is instantiated for the vector lengths 1, 2, 4, ..., 32 (VL_)
 * and the launcher picks the one the policy asks for: with the lane count a compile-time
 * constant in the body's porta_team, vector ranges, reductions and shuffles fold (a CSR SpMV
 * with 4 lanes a row ran at 0.76 of a hand-written kernel with a run-time count). VL_ = 0 is
 * the run-time fallback. A block runs one team and needs no barrier: a grid-stride league loop
 * kept its counters live across the body (40 registers instead of 32 in the SpMV), and the 4-
 * and 8-lane SpMVs ran at 0.80 and 0.73 of hand-written kernels against 1.03 and 0.94 without
 * it (H100). */
#define PORTA_CUDA_TEAM_FOR_(NAME, ARGS_T)                                                         \
  template <int VL_>                                                                               \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_team_policy p, int64_t first,  \
                                              char *l1, size_t l1b) {                              \
    extern __shared__ __align__(64) char porta_smem_[];                                            \
    porta_team_shared sh; /* per thread: on the GPU it only points at the slots */                 \
    porta_team t;                                                                                  \
    porta_cuda_team_setup_(&t, &p, first + blockIdx.x, &sh, porta_smem_, l1 + blockIdx.x * l1b);   \
    if (VL_ > 0) t.vector_length = VL_;                                                            \
    NAME##_porta_body_(&a, &t);                                                                    \
  }                                                                                                \
  template <int VL_> static int NAME##_porta_cuda_go_(const porta_launch *L, const void *args) {   \
    PORTA_CUDA_TEAM_PREPARE_(NAME##_porta_cuda_k_<VL_>, 0)                                         \
    for (int64_t first = 0; first < p->league_size; first += grid) {                               \
      const int64_t left = p->league_size - first;                                                 \
      const unsigned g = left < (int64_t)grid ? (unsigned)left : grid;                             \
      NAME##_porta_cuda_k_<VL_>                                                                    \
          <<<g, blk, smem, PORTA_CUDA_STREAM_(L)>>>(*(const ARGS_T *)args, *p, first, l1, l1b);    \
      const int rc = porta_cuda_launched_(L->label);                                               \
      if (rc) return rc;                                                                           \
    }                                                                                              \
    return 0;                                                                                      \
  }                                                                                                \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    (void)result;                                                                                  \
    switch (L->team.vector_length) {                                                               \
    case 1: return NAME##_porta_cuda_go_<1>(L, args);                                              \
    case 2: return NAME##_porta_cuda_go_<2>(L, args);                                              \
    case 4: return NAME##_porta_cuda_go_<4>(L, args);                                              \
    case 8: return NAME##_porta_cuda_go_<8>(L, args);                                              \
    case 16: return NAME##_porta_cuda_go_<16>(L, args);                                            \
    case 32: return NAME##_porta_cuda_go_<32>(L, args);                                            \
    default: return NAME##_porta_cuda_go_<0>(L, args);                                             \
    }                                                                                              \
  }

/** Team reduction: lane-0 values of every thread, reduced per block in shared memory
 *  (after the scratch) by a halving tree over the members; the last block to finish then
 *  combines the block partials in parallel: thread f of the block joins partials f, f + nt, ...
 *  in order (nt threads), the vector lanes are joined by a butterfly and the members by the same
 *  halving tree. The order depends only on the grid and block shape, never on which block
 *  finished last, so results are bitwise reproducible. The `last` flag lives in the exchange
 *  slots, free once every body has returned, so the kernel has no static shared memory and the
 *  dispatcher's shared-memory sizing is exact. Deterministic mode keeps one partial per
 *  (league rank, team thread) and combines them with the host's tree. */
#define PORTA_CUDA_TEAM_REDUCE_(NAME, ARGS_T, R)                                                   \
  static __global__ void NAME##_porta_cuda_k_(const ARGS_T a, porta_team_policy p, char *l1,       \
                                              size_t l1b, int det, R##_value *part,                \
                                              unsigned *counter, R##_value *out) {                 \
    extern __shared__ __align__(64) char porta_smem_[];                                            \
    porta_team_shared sh; /* per thread: on the GPU it only points at the slots */                 \
    porta_team t;                                                                                  \
    R##_value acc;                                                                                 \
    R##_init(&acc);                                                                                \
    for (int64_t lr = blockIdx.x; lr < p.league_size; lr += gridDim.x) {                           \
      porta_cuda_team_setup_(&t, &p, lr, &sh, porta_smem_, l1 + blockIdx.x * l1b);                 \
      if (det) {                                                                                   \
        R##_value mine;                                                                            \
        R##_init(&mine);                                                                           \
        NAME##_porta_body_(&a, &t, &mine);                                                         \
        if (threadIdx.x == 0) part[lr * p.team_size + threadIdx.y] = mine;                         \
      } else {                                                                                     \
        NAME##_porta_body_(&a, &t, &acc);                                                          \
      }                                                                                            \
      __syncthreads();                                                                             \
    }                                                                                              \
    if (det) return;                                                                               \
    R##_value *red = (R##_value *)(porta_smem_ + porta_cuda_team_smem_(&p, 0));                    \
    int *last = (int *)porta_smem_; /* the slots: no body uses them any more */                    \
    const int n = p.team_size, r = threadIdx.y;                                                    \
    int top = 1;                                                                                   \
    while (top < n) top <<= 1;                                                                     \
    if (threadIdx.x == 0) red[r] = acc;                                                            \
    __syncthreads();                                                                               \
    for (int s = top >> 1; s > 0; s >>= 1) {                                                       \
      if (threadIdx.x == 0 && r < s && r + s < n) R##_join(&red[r], &red[r + s]);                  \
      __syncthreads();                                                                             \
    }                                                                                              \
    if (threadIdx.x == 0 && r == 0) {                                                              \
      part[blockIdx.x] = red[0];                                                                   \
      __threadfence();                                                                             \
      *last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;                                  \
    }                                                                                              \
    __syncthreads();                                                                               \
    if (*last) { /* uniform across the block */                                                    \
      __threadfence();                                                                             \
      const unsigned nt = blockDim.x * blockDim.y, f = threadIdx.y * blockDim.x + threadIdx.x;     \
      R##_value x;                                                                                 \
      R##_init(&x);                                                                                \
      for (unsigned j = f; j < gridDim.x; j += nt) {                                               \
        R##_value q = porta_cuda_load_cg_(&part[j]);                                               \
        R##_join(&x, &q);                                                                          \
      }                                                                                            \
      for (int s = (int)blockDim.x / 2; s > 0; s >>= 1) {                                          \
        R##_value o = porta_cuda_shfl_xor_(x, s, (int)blockDim.x);                                 \
        R##_join(&x, &o);                                                                          \
      }                                                                                            \
      if (threadIdx.x == 0) red[r] = x; /* red[0] was read before the last barrier */              \
      __syncthreads();                                                                             \
      for (int s = top >> 1; s > 0; s >>= 1) {                                                     \
        if (threadIdx.x == 0 && r < s && r + s < n) R##_join(&red[r], &red[r + s]);                \
        __syncthreads();                                                                           \
      }                                                                                            \
      if (threadIdx.x == 0 && r == 0) *out = red[0];                                               \
    }                                                                                              \
  }                                                                                                \
  PORTA_CUDA_DET_TREE_KERNEL_(NAME, R)                                                             \
  static int NAME##_porta_cuda_(const porta_launch *L, const void *args, void *result) {           \
    PORTA_CUDA_DEBUG_ATTACH_()                                                                     \
    PORTA_CUDA_TEAM_PREPARE_(NAME##_porta_cuda_k_, sizeof(R##_value))                              \
    R##_value *out = (R##_value *)porta_cuda_result_(sizeof(R##_value));                           \
    if (!out) return PORTA_ERROR_OUT_OF_MEMORY;                                                    \
    const int det = L->deterministic;                                                              \
    const int64_t np = det ? p->league_size * p->team_size : (int64_t)grid;                        \
    R##_value *part = (R##_value *)porta_cuda_workspace_(                                          \
        l1b * grid + (size_t)(np > 0 ? np : 1) * sizeof(R##_value) + 64);                          \
    if (!part) return PORTA_ERROR_OUT_OF_MEMORY;                                                   \
    if (l1b) l1 = (char *)part;                                                                    \
    part = (R##_value *)((char *)part + porta_align64_(l1b * grid));                               \
    NAME##_porta_cuda_k_<<<grid, blk, smem, PORTA_CUDA_STREAM_(L)>>>(                              \
        *(const ARGS_T *)args, *p, l1, l1b, det, part, porta_cuda_counter_(), out);                \
    if (det) NAME##_porta_cuda_tree_<<<1, 1024, 0, PORTA_CUDA_STREAM_(L)>>>(part, np, out);        \
    PORTA_CUDA_FINISH_REDUCE_(L, R, out, result)                                                   \
  }

#endif
