/** @file backend/cuda/team.h
 *  CUDA team launchers: one block per team, vector lanes on threadIdx.x, team threads on
 *  threadIdx.y. A team parallel_for runs exactly one team per block (a league beyond the grid
 *  limit is launched in chunks); a team reduction grid-strides over the league. Level-0 scratch and
 *  the exchange slots live in dynamic shared memory (opting in above 48 KiB);
 *  level-1 scratch in a global pool, one region per block. In a team reduction
 *  each thread's lane 0 contributes its value. */
#ifndef PORTA_BACKEND_CUDA_TEAM_H
#define PORTA_BACKEND_CUDA_TEAM_H

#include "porta/backend/cuda/launch.h"

#if defined(__CUDACC__)

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
struct porta_cuda_team_launch_ {
  unsigned grid;
  size_t smem, l1b;
  char *l1;
  dim3 blk;
};

static inline int porta_cuda_team_prepare_(const porta_launch *L, const void *kernel,
                                           size_t value_size, porta_cuda_team_launch_ *t) {
  const porta_team_policy *p = &L->team;
  t->grid = porta_cuda_grid_(p->league_size > 0 ? p->league_size : 1, 1);
  t->smem = porta_cuda_team_smem_(p, value_size);
  t->l1b = porta_align64_(porta_cuda_team_l1_(p));
  t->l1 = NULL;
  t->blk = dim3((unsigned)p->vector_length, (unsigned)p->team_size, 1);
  const int rc =
      porta_cuda_shared_setup_(kernel, t->smem, (int)(p->team_size * p->vector_length), L->label);
  if (rc) return rc;
  if (t->l1b) {
    t->l1 = (char *)porta_cuda_workspace_(t->l1b * t->grid);
    if (!t->l1) return PORTA_ERROR_OUT_OF_MEMORY;
  }
  return 0;
}

/* Team parallel_for. The kernel is instantiated for the vector lengths 1, 2, 4, ..., 32 (VL)
 * and the launcher picks the one the policy asks for: with the lane count a compile-time
 * constant in the body's porta_team, vector ranges, reductions and shuffles fold (a CSR SpMV
 * with 4 lanes a row ran at 0.76 of a hand-written kernel with a run-time count). VL = 0 is
 * the run-time fallback. A block runs one team and needs no barrier: a grid-stride league loop
 * kept its counters live across the body (40 registers instead of 32 in the SpMV), and the 4-
 * and 8-lane SpMVs ran at 0.80 and 0.73 of hand-written kernels against 1.03 and 0.94 without
 * it (H100). */
template <class F, int VL>
__global__ void porta_cuda_team_for_k_(const typename F::args_type_ a, porta_team_policy p,
                                       int64_t first, char *l1, size_t l1b) {
  extern __shared__ __align__(64) char porta_smem_[];
  porta_team_shared sh; /* per thread: on the GPU it only points at the slots */
  porta_team t;
  porta_cuda_team_setup_(&t, &p, first + blockIdx.x, &sh, porta_smem_, l1 + blockIdx.x * l1b);
  if (VL > 0) t.vector_length = VL;
  F::body(&a, &t);
}

template <class F, int VL>
static int porta_cuda_team_for_vl_(const porta_launch *L, const typename F::args_type_ &a) {
  porta_cuda_team_launch_ k;
  int rc = porta_cuda_team_prepare_(L, (const void *)porta_cuda_team_for_k_<F, VL>, 0, &k);
  if (rc) return rc;
  const porta_team_policy *p = &L->team;
  for (int64_t first = 0; first < p->league_size; first += k.grid) {
    const int64_t left = p->league_size - first;
    const unsigned g = left < (int64_t)k.grid ? (unsigned)left : k.grid;
    porta_cuda_team_for_k_<F, VL>
        <<<g, k.blk, k.smem, porta_cuda_stream_of_(L)>>>(a, *p, first, k.l1, k.l1b);
    rc = porta_cuda_launched_(L->label);
    if (rc) return rc;
  }
  return 0;
}

template <class F>
static int porta_cuda_team_for_(const porta_launch *L, const typename F::args_type_ &a,
                                void *result) {
  (void)result;
  switch (L->team.vector_length) {
  case 1: return porta_cuda_team_for_vl_<F, 1>(L, a);
  case 2: return porta_cuda_team_for_vl_<F, 2>(L, a);
  case 4: return porta_cuda_team_for_vl_<F, 4>(L, a);
  case 8: return porta_cuda_team_for_vl_<F, 8>(L, a);
  case 16: return porta_cuda_team_for_vl_<F, 16>(L, a);
  case 32: return porta_cuda_team_for_vl_<F, 32>(L, a);
  default: return porta_cuda_team_for_vl_<F, 0>(L, a);
  }
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
template <class F>
__global__ void porta_cuda_team_reduce_k_(const typename F::args_type_ a, porta_team_policy p,
                                          char *l1, size_t l1b, int det, typename F::value *part,
                                          unsigned *counter, typename F::value *out) {
  typedef typename F::value V;
  extern __shared__ __align__(64) char porta_smem_[];
  porta_team_shared sh; /* per thread: on the GPU it only points at the slots */
  porta_team t;
  V acc;
  F::init(&acc);
  for (int64_t lr = blockIdx.x; lr < p.league_size; lr += gridDim.x) {
    porta_cuda_team_setup_(&t, &p, lr, &sh, porta_smem_, l1 + blockIdx.x * l1b);
    if (det) {
      V mine;
      F::init(&mine);
      F::body(&a, &t, &mine);
      if (threadIdx.x == 0) part[lr * p.team_size + threadIdx.y] = mine;
    } else {
      F::body(&a, &t, &acc);
    }
    __syncthreads();
  }
  if (det) return;
  V *red = (V *)(porta_smem_ + porta_cuda_team_smem_(&p, 0));
  int *last = (int *)porta_smem_; /* the slots: no body uses them any more */
  const int n = p.team_size, r = threadIdx.y;
  int top = 1;
  while (top < n) top <<= 1;
  if (threadIdx.x == 0) red[r] = acc;
  __syncthreads();
  for (int s = top >> 1; s > 0; s >>= 1) {
    if (threadIdx.x == 0 && r < s && r + s < n) F::join(&red[r], &red[r + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0 && r == 0) {
    part[blockIdx.x] = red[0];
    __threadfence();
    *last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (*last) { /* uniform across the block */
    __threadfence();
    const unsigned nt = blockDim.x * blockDim.y, f = threadIdx.y * blockDim.x + threadIdx.x;
    V x;
    F::init(&x);
    for (unsigned j = f; j < gridDim.x; j += nt) {
      V q = porta_cuda_load_cg_(&part[j]);
      F::join(&x, &q);
    }
    for (int s = (int)blockDim.x / 2; s > 0; s >>= 1) {
      V o = porta_cuda_shfl_xor_(x, s, (int)blockDim.x);
      F::join(&x, &o);
    }
    if (threadIdx.x == 0) red[r] = x; /* red[0] was read before the last barrier */
    __syncthreads();
    for (int s = top >> 1; s > 0; s >>= 1) {
      if (threadIdx.x == 0 && r < s && r + s < n) F::join(&red[r], &red[r + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0 && r == 0) *out = red[0];
  }
}

template <class F>
static int porta_cuda_team_reduce_(const porta_launch *L, const typename F::args_type_ &a,
                                   void *result) {
  typedef typename F::value V;
  const porta_team_policy *p = &L->team;
  porta_cuda_team_launch_ k;
  int rc = porta_cuda_team_prepare_(L, (const void *)porta_cuda_team_reduce_k_<F>, sizeof(V), &k);
  if (rc) return rc;
  V *out = porta_cuda_reduce_out_<V>(L, result);
  if (!out) return PORTA_ERROR_OUT_OF_MEMORY;
  const int det = L->deterministic;
  const int64_t np = det ? p->league_size * p->team_size : (int64_t)k.grid;
  V *part = (V *)porta_cuda_workspace_(k.l1b * k.grid + (size_t)(np > 0 ? np : 1) * sizeof(V) + 64);
  if (!part) return PORTA_ERROR_OUT_OF_MEMORY;
  if (k.l1b) k.l1 = (char *)part;
  part = (V *)((char *)part + porta_align64_(k.l1b * k.grid));
  const cudaStream_t st = porta_cuda_stream_of_(L);
  porta_cuda_team_reduce_k_<F>
      <<<k.grid, k.blk, k.smem, st>>>(a, *p, k.l1, k.l1b, det, part, porta_cuda_counter_(), out);
  if (det) porta_cuda_det_tree_k_<F><<<1, 1024, 0, st>>>(part, np, out, porta_cuda_end_of_(L));
  return porta_cuda_finish_reduce_<F>(L, out, result);
}

#define PORTA_CUDA_TEAM_FOR_(NAME, ARGS_T)                                                         \
  PORTA_CUDA_FUNCTOR_(NAME, ARGS_T, 1)                                                             \
  PORTA_CUDA_LAUNCHER_(NAME, porta_cuda_team_for_)
#define PORTA_CUDA_TEAM_REDUCE_(NAME, ARGS_T, R)                                                   \
  PORTA_CUDA_FUNCTOR_R_(NAME, ARGS_T, 1, R)                                                        \
  PORTA_CUDA_LAUNCHER_(NAME, porta_cuda_team_reduce_)

#else
#define PORTA_CUDA_TEAM_FOR_(NAME, ARGS_T)
#define PORTA_CUDA_TEAM_REDUCE_(NAME, ARGS_T, R)
#endif

#endif
