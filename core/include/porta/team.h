/** @file team.h
 *  Hierarchical parallelism inside a team-policy kernel: the team handle,
 *  barrier, scratch memory, nested thread/vector ranges, single, broadcast, and
 *  team-wide reductions and scans.
 *
 *  On the host a team is `team_size` OpenMP threads (vector lanes run as a plain
 *  loop on one thread); on the GPU team threads are threadIdx.y and vector lanes
 *  threadIdx.x. Every member must reach collectives (barrier, reduce, scan,
 *  broadcast, nested reduce/scan macros) in the same order.
 */
#ifndef PORTA_TEAM_H
#define PORTA_TEAM_H

#include <string.h>

#include "porta/policy.h"
#include "porta/reducer.h"
#include "porta/runtime.h"

PORTA_EXTERN_C_BEGIN

/* PORTA_TEAM_SLOT_BYTES (policy.h): bytes per member in a team's exchange area. */

/** State the members of one host team share: barrier and exchange slots. */
typedef struct porta_team_shared {
  int32_t arrived;
  int32_t generation;
  char pad_[56];
  char *slots; /**< team_size * PORTA_TEAM_SLOT_BYTES */
} porta_team_shared;

/** What a team-policy body sees. */
typedef struct porta_team {
  int64_t league_rank, league_size;
  int32_t team_rank, team_size;
  int32_t vector_length;
  int32_t vector_lane; /**< always 0 on the host */
  char *scratch[2];    /**< team-shared scratch at levels 0 and 1 */
  size_t scratch_size[2];
  size_t scratch_used[2];
  char *thread_scratch[2]; /**< this thread's private scratch */
  size_t thread_scratch_size[2];
  size_t thread_scratch_used[2];
  porta_team_shared *shared;
} porta_team;

/** Host barrier (core/src/openmp/team_barrier.c). */
PORTA_API void porta_team_barrier_host_(porta_team *team);

PORTA_EXTERN_C_END

/** Wait until every member of the team arrives. */
PORTA_FORCEINLINE_FUNCTION void porta_team_barrier(porta_team *team) {
#if PORTA_DEVICE_PASS
  PORTA_DEVICE_TEAM_BARRIER_(team);
#else
  if (team->team_size > 1) porta_team_barrier_host_(team);
#endif
}

/** Every scratch allocation starts at a multiple of this many bytes. */
#define PORTA_SCRATCH_ALIGN 16

/** The bytes one porta_team_scratch / porta_thread_scratch call of `bytes` uses up, its
 *  alignment padding included (Kokkos's ScratchView::shmem_size): a policy's scratch request is
 *  the sum of these over a team's allocations. */
PORTA_INLINE_FUNCTION size_t porta_scratch_size(size_t bytes) {
  return (bytes + PORTA_SCRATCH_ALIGN - 1) & ~(size_t)(PORTA_SCRATCH_ALIGN - 1);
}

/** Bump-allocate `bytes` (PORTA_SCRATCH_ALIGN-aligned) of team-shared scratch at `level`.
 *  Every member must make the same calls, and gets the same pointers. NULL when the
 *  policy did not request enough. */
PORTA_INLINE_FUNCTION void *porta_team_scratch(porta_team *team, int level, size_t bytes) {
  size_t off = porta_scratch_size(team->scratch_used[level]);
  if (off + bytes > team->scratch_size[level]) return NULL;
  team->scratch_used[level] = off + bytes;
  return team->scratch[level] + off;
}

/** Bump-allocate `bytes` of this thread's private scratch at `level`. */
PORTA_INLINE_FUNCTION void *porta_thread_scratch(porta_team *team, int level, size_t bytes) {
  size_t off = porta_scratch_size(team->thread_scratch_used[level]);
  if (off + bytes > team->thread_scratch_size[level]) return NULL;
  team->thread_scratch_used[level] = off + bytes;
  return team->thread_scratch[level] + off;
}

/** Copy `bytes` at `value` from member `root` to every member (through the slots). */
PORTA_INLINE_FUNCTION void porta_team_broadcast_(porta_team *team, void *value, size_t bytes,
                                                 int root) {
  if (team->team_size == 1) return;
  if (team->team_rank == root && team->vector_lane == 0) memcpy(team->shared->slots, value, bytes);
  porta_team_barrier(team);
  if (team->team_rank != root) memcpy(value, team->shared->slots, bytes);
  porta_team_barrier(team);
}

/** Give every member the value `var` has on member `root` (var: an lvalue, at most
 *  PORTA_TEAM_SLOT_BYTES * team_size bytes). */
#define PORTA_TEAM_BROADCAST(team, var, root)                                                      \
  porta_team_broadcast_((team), &(var), sizeof(var), (root))

/* ---- nested ranges ---- */

/** Indices [B, E) split over the team's threads. */
#define PORTA_TEAM_THREAD_RANGE(team, I, B, E)                                                     \
  for (int64_t I = (B) + (team)->team_rank; I < (E); I += (team)->team_size)
/** Indices [B, E) split over the calling thread's vector lanes. */
#define PORTA_THREAD_VECTOR_RANGE(team, I, B, E)                                                   \
  for (int64_t I = (B) + (team)->vector_lane; I < (E); I += (team)->vector_length)
/** Indices [B, E) split over every lane of every thread of the team. */
#define PORTA_TEAM_VECTOR_RANGE(team, I, B, E)                                                     \
  for (int64_t I = (B) + (int64_t)(team)->team_rank * (team)->vector_length + (team)->vector_lane; \
       I < (E); I += (int64_t)(team)->team_size * (team)->vector_length)

/** The body runs on one thread of the team (lane 0 of member 0). */
#define PORTA_SINGLE_PER_TEAM(team) if ((team)->team_rank == 0 && (team)->vector_lane == 0)
/** The body runs once per thread (on its lane 0). */
#define PORTA_SINGLE_PER_THREAD(team) if ((team)->vector_lane == 0)

#if !PORTA_DEVICE_PASS /* host: one lane runs the whole vector loop */
#define PORTA_VECTOR_REDUCE_BODY_(R, team, v)                                                      \
  (void)(team);                                                                                    \
  (void)(v);
#endif

/** Stamp team collectives for reducer R:
 *  R_team_reduce(team, &v)        v becomes the team-wide reduction on every member;
 *  R_vector_reduce(team, &v)      across the calling thread's vector lanes;
 *  R_team_vector_reduce(team, &v) across all lanes of all members;
 *  R_team_scan(team, &v, &total)  v becomes the exclusive prefix over members, total the sum. */
#define PORTA_REDUCER_TEAM_OPS(R)                                                                  \
  typedef char R##_porta_fits_team_slot_[(sizeof(R##_value) <= PORTA_TEAM_SLOT_BYTES) ? 1 : -1];   \
  PORTA_INLINE_FUNCTION void R##_team_reduce(porta_team *team, R##_value *v) {                     \
    if (team->team_size == 1) return;                                                              \
    if (team->vector_lane == 0)                                                                    \
      memcpy(team->shared->slots + (size_t)team->team_rank * PORTA_TEAM_SLOT_BYTES, v,             \
             sizeof(R##_value));                                                                   \
    porta_team_barrier(team);                                                                      \
    R##_value acc, x;                                                                              \
    R##_init(&acc);                                                                                \
    for (int r = 0; r < team->team_size; ++r) {                                                    \
      memcpy(&x, team->shared->slots + (size_t)r * PORTA_TEAM_SLOT_BYTES, sizeof(R##_value));      \
      R##_join(&acc, &x);                                                                          \
    }                                                                                              \
    porta_team_barrier(team);                                                                      \
    *v = acc;                                                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION void R##_vector_reduce(porta_team *team,                                   \
                                               R##_value *v){PORTA_VECTOR_REDUCE_BODY_(            \
      R, team, v)} PORTA_INLINE_FUNCTION void R##_team_vector_reduce(porta_team *team,             \
                                                                     R##_value *v) {               \
    R##_vector_reduce(team, v);                                                                    \
    R##_team_reduce(team, v);                                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION void R##_team_scan(porta_team *team, R##_value *v, R##_value *total) {     \
    R##_value excl, all, x;                                                                        \
    R##_init(&excl);                                                                               \
    if (team->team_size == 1) {                                                                    \
      if (total) *total = *v;                                                                      \
      *v = excl;                                                                                   \
      return;                                                                                      \
    }                                                                                              \
    if (team->vector_lane == 0)                                                                    \
      memcpy(team->shared->slots + (size_t)team->team_rank * PORTA_TEAM_SLOT_BYTES, v,             \
             sizeof(R##_value));                                                                   \
    porta_team_barrier(team);                                                                      \
    R##_init(&all);                                                                                \
    for (int r = 0; r < team->team_size; ++r) {                                                    \
      memcpy(&x, team->shared->slots + (size_t)r * PORTA_TEAM_SLOT_BYTES, sizeof(R##_value));      \
      if (r < team->team_rank) R##_join(&excl, &x);                                                \
      R##_join(&all, &x);                                                                          \
    }                                                                                              \
    porta_team_barrier(team);                                                                      \
    *v = excl;                                                                                     \
    if (total) *total = all;                                                                       \
  }

#define PORTA_REDUCERS_TEAM_OPS_ARITH_(NAME)                                                       \
  PORTA_REDUCER_TEAM_OPS(porta_sum_##NAME)                                                         \
  PORTA_REDUCER_TEAM_OPS(porta_prod_##NAME)                                                        \
  PORTA_REDUCER_TEAM_OPS(porta_min_##NAME)                                                         \
  PORTA_REDUCER_TEAM_OPS(porta_max_##NAME)                                                         \
  PORTA_REDUCER_TEAM_OPS(porta_minloc_##NAME)                                                      \
  PORTA_REDUCER_TEAM_OPS(porta_maxloc_##NAME)                                                      \
  PORTA_REDUCER_TEAM_OPS(porta_land_##NAME)                                                        \
  PORTA_REDUCER_TEAM_OPS(porta_lor_##NAME)

PORTA_REDUCERS_TEAM_OPS_ARITH_(f64)
PORTA_REDUCERS_TEAM_OPS_ARITH_(f32)
PORTA_REDUCERS_TEAM_OPS_ARITH_(i64)
PORTA_REDUCERS_TEAM_OPS_ARITH_(i32)
PORTA_REDUCERS_TEAM_OPS_ARITH_(u64)
PORTA_REDUCERS_TEAM_OPS_ARITH_(u32)
PORTA_REDUCERS_TEAM_OPS_ARITH_(u8)
PORTA_REDUCER_TEAM_OPS(porta_band_i64)
PORTA_REDUCER_TEAM_OPS(porta_bor_i64)
PORTA_REDUCER_TEAM_OPS(porta_band_i32)
PORTA_REDUCER_TEAM_OPS(porta_bor_i32)
PORTA_REDUCER_TEAM_OPS(porta_band_u64)
PORTA_REDUCER_TEAM_OPS(porta_bor_u64)
PORTA_REDUCER_TEAM_OPS(porta_band_u32)
PORTA_REDUCER_TEAM_OPS(porta_bor_u32)
PORTA_REDUCER_TEAM_OPS(porta_band_u8)
PORTA_REDUCER_TEAM_OPS(porta_bor_u8)

/* ---- nested reductions and scans (the body follows the macro) ---- */

/** Reduce over [B, E) split across the team's threads; afterwards ACC (declared by the
 *  caller, type R_value) holds the team-wide result on every member. */
#define PORTA_TEAM_THREAD_REDUCE(team, I, B, E, R, ACC)                                            \
  for (int porta_once_ = (R##_init(&(ACC)), 1); porta_once_;                                       \
       porta_once_ = 0, R##_team_reduce((team), &(ACC)))                                           \
  PORTA_TEAM_THREAD_RANGE(team, I, B, E)

/** Reduce over [B, E) split across the calling thread's vector lanes. */
#define PORTA_THREAD_VECTOR_REDUCE(team, I, B, E, R, ACC)                                          \
  for (int porta_once_ = (R##_init(&(ACC)), 1); porta_once_;                                       \
       porta_once_ = 0, R##_vector_reduce((team), &(ACC)))                                         \
  PORTA_THREAD_VECTOR_RANGE(team, I, B, E)

/** Reduce over [B, E) split across all lanes of the team. */
#define PORTA_TEAM_VECTOR_REDUCE(team, I, B, E, R, ACC)                                            \
  for (int porta_once_ = (R##_init(&(ACC)), 1); porta_once_;                                       \
       porta_once_ = 0, R##_team_vector_reduce((team), &(ACC)))                                    \
  PORTA_TEAM_VECTOR_RANGE(team, I, B, E)

typedef struct porta_team_scan_state_ {
  int pass;
  int64_t lo, hi;
} porta_team_scan_state_;

PORTA_INLINE_FUNCTION porta_team_scan_state_ porta_team_scan_begin_(porta_team *team, int64_t b,
                                                                    int64_t e) {
  porta_team_scan_state_ s;
  int64_t n = e > b ? e - b : 0, q = n / team->team_size, r = n % team->team_size;
  s.pass = 0;
  s.lo = b + q * team->team_rank + (team->team_rank < r ? team->team_rank : r);
  s.hi = s.lo + q + (team->team_rank < r ? 1 : 0);
  return s;
}

/** Scan over [B, E) across the team's threads (each takes a contiguous block). The body
 *  runs twice per index: FINAL == 0 to sum, then FINAL != 0 with *UPDATE-style prefix in
 *  UPDATE (exclusive before the body adds its value). Afterwards UPDATE holds the total
 *  on every member. UPDATE is an lvalue of type R_value declared by the caller. */
#define PORTA_TEAM_THREAD_SCAN(team, I, B, E, R, UPDATE, FINAL)                                    \
  for (porta_team_scan_state_ porta_scan_ = porta_team_scan_begin_((team), (B), (E));              \
       porta_scan_.pass < 2; ++porta_scan_.pass)                                                   \
    for (int FINAL = (porta_scan_.pass == 0 ? (R##_init(&(UPDATE)), 0) : 1), porta_once_ = 1;      \
         porta_once_;                                                                              \
         porta_once_ = 0, (FINAL ? PORTA_TEAM_BROADCAST((team), (UPDATE), (team)->team_size - 1)   \
                                 : R##_team_scan((team), &(UPDATE), NULL)))                        \
      for (int64_t I = porta_scan_.lo; I < porta_scan_.hi; ++I)

/** Scan over [B, E) across the calling thread's vector lanes (one pass with FINAL set on the
 *  host); afterwards UPDATE holds the total. */
#define PORTA_THREAD_VECTOR_SCAN(team, I, B, E, R, UPDATE, FINAL)                                  \
  for (int FINAL = (R##_init(&(UPDATE)), 1), porta_once_ = ((void)(team), 1); porta_once_;         \
       porta_once_ = 0)                                                                            \
    for (int64_t I = (B); I < (E); ++I)

#endif /* PORTA_TEAM_H */
