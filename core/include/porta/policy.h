/** @file policy.h
 *  Execution policies: range, multi-dimensional range and team.
 */
#ifndef PORTA_POLICY_H
#define PORTA_POLICY_H

#include "porta/runtime.h"

PORTA_EXTERN_C_BEGIN

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

/** Largest team size `exec` supports for `policy` (threads on the host). */
int porta_team_size_max(porta_exec exec, porta_team_policy policy);
/** Team size PORTA_AUTO resolves to. */
int porta_team_size_recommended(porta_exec exec, porta_team_policy policy);

PORTA_EXTERN_C_END

#endif /* PORTA_POLICY_H */
