/** @file policy.h
 *  Execution policies: range, multi-dimensional range and team.
 */
#ifndef PORTA_POLICY_H
#define PORTA_POLICY_H

#include "porta/runtime.h"

PORTA_EXTERN_C_BEGIN

/** Bytes per member in a team's exchange area: team collectives on values up to this size. */
#define PORTA_TEAM_SLOT_BYTES 128

/** Ask the back end to choose (team size, vector length, chunk). */
#define PORTA_AUTO (-1)
#define PORTA_MDRANGE_MAX_RANK 6

/** How a range is split among threads on the host. */
typedef enum porta_schedule {
  PORTA_SCHEDULE_STATIC = 0, /**< one contiguous block per thread */
  PORTA_SCHEDULE_DYNAMIC = 1 /**< chunks handed out on demand (uneven work) */
} porta_schedule;

/** The indices [begin, end). */
typedef struct porta_range_policy {
  int64_t begin, end;
  int32_t schedule; /**< porta_schedule */
  int64_t chunk;    /**< chunk size for dynamic scheduling; 0 = back end's choice */
} porta_range_policy;

/** The box [lower, upper) of rank 2..6; the last index is contiguous on the host,
 *  the first on the GPU (the views' default layouts). Tiles are GPU hints. */
typedef struct porta_mdrange_policy {
  int32_t rank;
  int64_t lower[PORTA_MDRANGE_MAX_RANK];
  int64_t upper[PORTA_MDRANGE_MAX_RANK];
  int64_t tile[PORTA_MDRANGE_MAX_RANK];
} porta_mdrange_policy;

/** A league of teams; each team has team_size threads of vector_length lanes,
 *  and per-team and per-thread scratch memory at levels 0 (fast, small) and 1. */
typedef struct porta_team_policy {
  int64_t league_size;
  int32_t team_size;     /**< or PORTA_AUTO */
  int32_t vector_length; /**< or PORTA_AUTO */
  size_t scratch_team[2];
  size_t scratch_thread[2];
} porta_team_policy;

static inline porta_range_policy porta_range(int64_t begin, int64_t end) {
  porta_range_policy p;
  p.begin = begin;
  p.end = end;
  p.schedule = PORTA_SCHEDULE_STATIC;
  p.chunk = 0;
  return p;
}

static inline porta_range_policy porta_range_schedule(int64_t begin, int64_t end,
                                                      porta_schedule schedule, int64_t chunk) {
  porta_range_policy p = porta_range(begin, end);
  p.schedule = schedule;
  p.chunk = chunk;
  return p;
}

/** A rank-`rank` box; `tile` may be NULL. */
static inline porta_mdrange_policy porta_mdrange(int rank, const int64_t *lower,
                                                 const int64_t *upper, const int64_t *tile) {
  porta_mdrange_policy p;
  p.rank = rank;
  for (int r = 0; r < PORTA_MDRANGE_MAX_RANK; ++r) {
    int in = r < rank;
    p.lower[r] = in ? lower[r] : 0;
    p.upper[r] = in ? upper[r] : 1;
    p.tile[r] = (in && tile) ? tile[r] : 0;
  }
  return p;
}

static inline porta_mdrange_policy porta_mdrange2(int64_t l0, int64_t u0, int64_t l1, int64_t u1) {
  int64_t lo[2], up[2];
  lo[0] = l0;
  lo[1] = l1;
  up[0] = u0;
  up[1] = u1;
  return porta_mdrange(2, lo, up, NULL);
}

static inline porta_mdrange_policy porta_mdrange3(int64_t l0, int64_t u0, int64_t l1, int64_t u1,
                                                  int64_t l2, int64_t u2) {
  int64_t lo[3], up[3];
  lo[0] = l0;
  lo[1] = l1;
  lo[2] = l2;
  up[0] = u0;
  up[1] = u1;
  up[2] = u2;
  return porta_mdrange(3, lo, up, NULL);
}

static inline porta_team_policy porta_team_policy_make(int64_t league_size, int team_size,
                                                       int vector_length) {
  porta_team_policy p;
  p.league_size = league_size;
  p.team_size = team_size;
  p.vector_length = vector_length;
  p.scratch_team[0] = p.scratch_team[1] = 0;
  p.scratch_thread[0] = p.scratch_thread[1] = 0;
  return p;
}

/** Request scratch bytes at `level` (0 or 1): per team and per thread. */
static inline porta_team_policy porta_team_scratch_request(porta_team_policy p, int level,
                                                           size_t per_team, size_t per_thread) {
  if (level == 0 || level == 1) {
    p.scratch_team[level] = per_team;
    p.scratch_thread[level] = per_thread;
  }
  return p;
}

struct porta_kernel;

/** Bytes of fast (level-0) memory one team of `team_size` members uses, each part 64-byte
 *  aligned: the exchange slots of the team collectives (PORTA_TEAM_SLOT_BYTES per member), the
 *  level-0 team scratch, `team_size` times the level-0 per-thread scratch and, for a team-policy
 *  parallel_reduce, `value_size` bytes per member for the block's reduction. On the GPU this is
 *  the block's dynamic shared memory, so it decides which team sizes can be launched. */
PORTA_INLINE_FUNCTION size_t porta_team_level0_bytes_(const porta_team_policy *p, size_t team_size,
                                                      size_t value_size) {
  const size_t a = 63;
  return ((team_size * PORTA_TEAM_SLOT_BYTES + a) & ~a) + ((p->scratch_team[0] + a) & ~a) +
         team_size * ((p->scratch_thread[0] + a) & ~a) + team_size * value_size;
}

/** porta_team_level0_bytes_ for `kernel` (NULL: a parallel_for): what a team of `team_size`
 *  needs of the per-team limit porta_team_level0_limit. */
PORTA_API size_t porta_team_policy_level0_bytes(porta_team_policy policy, int team_size,
                                                const struct porta_kernel *kernel);

/** The most level-0 memory (porta_team_policy_level0_bytes) one team may use on `exec`: on CUDA
 *  the GPU's shared memory per block with the opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize,
 *  227 KiB on an H100; launches above 48 KiB opt in by themselves); on the host, where level-0
 *  scratch is ordinary memory, the cap on any one scratch request (2^40 bytes). */
PORTA_API size_t porta_team_level0_limit(porta_exec exec);

/** Largest team size `kernel` (NULL: a parallel_for without reducer) can be launched with under
 *  `policy` on `exec`, like Kokkos' TeamPolicy::team_size_max: the back end's thread limit (the
 *  OpenMP thread count; threads per block / vector length on CUDA) and, on CUDA, the block's
 *  shared memory (porta_team_policy_level0_bytes within porta_team_level0_limit). Fails, with
 *  *team_size = 0 and a message naming the bytes and the limit, when not even a team of one fits,
 *  and on a bad vector length or scratch request. The policy's own team_size is ignored. */
PORTA_API int porta_team_policy_team_size_max(porta_exec exec, porta_team_policy policy,
                                              const struct porta_kernel *kernel, int *team_size);
/** The team size PORTA_AUTO resolves to for `kernel` (NULL: a parallel_for) under `policy`:
 *  1 on the host, what Kokkos's OpenMP back end gives AUTO (impl_thread_pool_size(2), always 1):
 *  the thread pool runs one team per thread (teams of the whole pool ran a row-block matvec
 *  1.4-2 x slower on 2 threads; docs/design-notes.md, "Host teams"); on CUDA 256 threads per
 *  block (whole warps) or fewer, as many as fit the block's shared memory with the policy's
 *  level-0 scratch. Fails as team_size_max does. */
PORTA_API int porta_team_policy_team_size_recommended(porta_exec exec, porta_team_policy policy,
                                                      const struct porta_kernel *kernel,
                                                      int *team_size);

/** porta_team_policy_team_size_max for a parallel_for; 0 when no team size fits. */
PORTA_API int porta_team_size_max(porta_exec exec, porta_team_policy policy);
/** porta_team_policy_team_size_recommended for a parallel_for; 0 when no team size fits. */
PORTA_API int porta_team_size_recommended(porta_exec exec, porta_team_policy policy);

PORTA_EXTERN_C_END

#endif /* PORTA_POLICY_H */
