/** @file test_team_scratch.c
 *  Team and thread scratch: levels 0 and 1 (values survive, NULL past the request, aligned),
 *  and the AUTO team size with level-0 scratch that limits it on the GPU (the team-size
 *  queries of a policy with scratch, AUTO launching with the recommended size, requests no
 *  team can hold refused before any launch).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "team_test_util.h"

/* ------------------------------------------------------------------------------------------ */
/* Scratch                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* Sizes in int64 elements: level-0 team scratch in two pieces, level-0 per thread, level 1. */
#define PT_T0A 10
#define PT_T0B 27
#define PT_P0 5
#define PT_T1 1000
#define PT_P1 101
/* the two level-0 pieces, each with its alignment padding (80 + 224 bytes) */
#define PT_T0_BYTES                                                                                \
  (porta_scratch_size(PT_T0A * sizeof(int64_t)) + porta_scratch_size(PT_T0B * sizeof(int64_t)))

typedef struct {
  porta_view_i64 flags;  /**< (league, member): bits for the pointers that were as expected */
  porta_view_i64 errors; /**< (league, member): values not read back */
  int32_t requested;     /**< 0: the policy asked for no scratch */
} scratch_args;

#define PT_ALIGNED(p) (((uintptr_t)(p) % PORTA_SCRATCH_ALIGN) == 0)

PORTA_TEAM_FOR(scratch_k, scratch_args, a, t) {
  const int64_t lr = t->league_rank;
  const int rank = t->team_rank;
  int64_t flags = 0, errors = 0;
  if (!a->requested) {
    flags |= porta_team_scratch(t, 0, 8) == NULL;
    flags |= (int64_t)(porta_team_scratch(t, 1, 8) == NULL) << 1;
    flags |= (int64_t)(porta_thread_scratch(t, 0, 8) == NULL) << 2;
    flags |= (int64_t)(porta_thread_scratch(t, 1, 8) == NULL) << 3;
    PORTA_SINGLE_PER_THREAD(t) { PORTA_AT2(a->flags, lr, rank) = flags; }
    return;
  }
  int64_t *t0a = (int64_t *)porta_team_scratch(t, 0, PT_T0A * sizeof(int64_t));
  int64_t *t0b = (int64_t *)porta_team_scratch(t, 0, PT_T0B * sizeof(int64_t));
  int64_t *p0 = (int64_t *)porta_thread_scratch(t, 0, PT_P0 * sizeof(int64_t));
  int64_t *t1 = (int64_t *)porta_team_scratch(t, 1, PT_T1 * sizeof(int64_t));
  int64_t *p1 = (int64_t *)porta_thread_scratch(t, 1, PT_P1 * sizeof(int64_t));
  /* every request is used up: one more byte is refused */
  void *x0 = porta_team_scratch(t, 0, 1);
  void *x1 = porta_thread_scratch(t, 1, 1);
  void *x2 = porta_team_scratch(t, 1, 1);
  void *x3 = porta_thread_scratch(t, 0, 1);
  flags |= (int64_t)(t0a != NULL && PT_ALIGNED(t0a));
  flags |= (int64_t)(t0b != NULL && PT_ALIGNED(t0b)) << 1;
  flags |= (int64_t)(p0 != NULL && PT_ALIGNED(p0)) << 2;
  flags |= (int64_t)(t1 != NULL && PT_ALIGNED(t1)) << 3;
  flags |= (int64_t)(p1 != NULL && PT_ALIGNED(p1)) << 4;
  flags |= (int64_t)(x0 == NULL && x1 == NULL && x2 == NULL && x3 == NULL) << 5;
  if ((flags & 31) == 31) {
    /* team scratch: written by whichever member owns the index, read by every member */
    PORTA_TEAM_THREAD_RANGE(t, k, 0, PT_T0A) { t0a[k] = -(lr * 1000 + k); }
    PORTA_TEAM_THREAD_RANGE(t, k, 0, PT_T0B) { t0b[k] = lr * 1000 + k; }
    PORTA_TEAM_THREAD_RANGE(t, k, 0, PT_T1) { t1[k] = lr * 100000 + k; }
    /* thread scratch: private, so other members' writes must not show */
    PORTA_SINGLE_PER_THREAD(t) {
      for (int k = 0; k < PT_P0; ++k) p0[k] = rank * 1000 + k + lr;
      for (int k = 0; k < PT_P1; ++k) p1[k] = -(rank * 1000 + k + lr);
    }
    porta_team_barrier(t);
    for (int k = 0; k < PT_T0A; ++k) errors += t0a[k] != -(lr * 1000 + k);
    for (int k = 0; k < PT_T0B; ++k) errors += t0b[k] != lr * 1000 + k;
    for (int k = 0; k < PT_T1; ++k) errors += t1[k] != lr * 100000 + k;
    for (int k = 0; k < PT_P0; ++k) errors += p0[k] != rank * 1000 + k + lr;
    for (int k = 0; k < PT_P1; ++k) errors += p1[k] != -(rank * 1000 + k + lr);
  }
  PORTA_SINGLE_PER_THREAD(t) {
    PORTA_AT2(a->flags, lr, rank) = flags;
    PORTA_AT2(a->errors, lr, rank) = errors;
  }
}

static void test_scratch(void) {
  pt_shape shapes[4];
  const int ns = pt_shapes(shapes);
  for (int s = 0; s < ns; ++s)
    for (int l = 0; l < PT_NLEAGUES; ++l)
      for (int req = 0; req < 2; ++req) {
        const int64_t L = pt_leagues[l];
        const int ts = shapes[s].resolved;
        scratch_args a;
        a.requested = req;
        PT_OK(porta_view_i64_create2(&a.flags, "flags", L, ts));
        PT_OK(porta_view_i64_create2(&a.errors, "errors", L, ts));
        porta_team_policy p =
            porta_team_policy_make(L, shapes[s].team_size, shapes[s].vector_length);
        if (req) {
          p = porta_team_scratch_request(p, 0, PT_T0_BYTES, PT_P0 * sizeof(int64_t));
          p = porta_team_scratch_request(p, 1, PT_T1 * sizeof(int64_t), PT_P1 * sizeof(int64_t));
        }
        PT_OK(porta_parallel_for_team("scratch", porta_exec_default(), p, &scratch_k, &a));
        int64_t bad = 0;
        for (int64_t lr = 0; lr < L; ++lr)
          for (int r = 0; r < ts; ++r) {
            bad += PORTA_S2(a.flags, lr, r) != (req ? 63 : 15);
            bad += PORTA_S2(a.errors, lr, r) != 0;
          }
        report_bad(req ? "scratch" : "scratch not requested", bad, &shapes[s], L);
        porta_view_i64_release(&a.flags);
        porta_view_i64_release(&a.errors);
      }
}

/* ------------------------------------------------------------------------------------------ */
/* AUTO team size with level-0 scratch; the team-size queries                                  */
/* ------------------------------------------------------------------------------------------ */

/* Level-0 scratch per thread and per team (bytes): 256 threads of it (the GPU's usual AUTO)
 * would need 1.5 MiB of shared memory, far past any GPU's limit per block. */
#define PT_BIG_P0 (6 * 1024)
#define PT_BIG_T0 (2 * 1024)
#define PT_BIG_NP (PT_BIG_P0 / 8)
#define PT_BIG_NT (PT_BIG_T0 / 8)
#define PT_BIG_LEAGUE 37

typedef struct {
  porta_view_i64 out;     /**< (league, member): what the member read back from its scratch */
  porta_view_i64 members; /**< (league): the team size the kernel ran with */
} big_args;

/** What member `rank` of league rank `lr` reads back: its own per-thread scratch, written as
 *  lr * 7 + rank * 3 + k, and the team scratch, written as lr + k by all members. */
static int64_t pt_big_expected(int64_t lr, int64_t rank) {
  const int64_t np = PT_BIG_NP, nt = PT_BIG_NT;
  return np * (lr * 7 + rank * 3) + np * (np - 1) / 2 + nt * lr + nt * (nt - 1) / 2;
}

PORTA_TEAM_FOR(big_scratch_k, big_args, a, t) {
  const int64_t lr = t->league_rank;
  const int rank = t->team_rank;
  int64_t *mine = (int64_t *)porta_thread_scratch(t, 0, PT_BIG_P0);
  int64_t *team = (int64_t *)porta_team_scratch(t, 0, PT_BIG_T0);
  int64_t sum = -1;
  if (mine && team) {
    PORTA_THREAD_VECTOR_RANGE(t, k, 0, PT_BIG_NP) { mine[k] = lr * 7 + rank * 3 + k; }
    PORTA_TEAM_VECTOR_RANGE(t, k, 0, PT_BIG_NT) { team[k] = lr + k; }
    porta_team_barrier(t);
    sum = 0;
    for (int k = 0; k < PT_BIG_NP; ++k) sum += mine[k];
    for (int k = 0; k < PT_BIG_NT; ++k) sum += team[k];
  }
  PORTA_SINGLE_PER_THREAD(t) { PORTA_AT2(a->out, lr, rank) = sum; }
  PORTA_SINGLE_PER_TEAM(t) { PORTA_AT1(a->members, lr) = t->team_size; }
}

/** The same scratch use, reduced: the sum over every member of every team of what it read. */
PORTA_DEFINE_SUM_REDUCER(pt_wide, double, 16) /* 128 bytes of reduction slot per member */
PORTA_TEAM_REDUCE(big_scratch_red_k, big_args, a, t, pt_wide, acc) {
  (void)a;
  const int64_t lr = t->league_rank;
  const int rank = t->team_rank;
  int64_t *mine = (int64_t *)porta_thread_scratch(t, 0, PT_BIG_P0);
  int64_t *team = (int64_t *)porta_team_scratch(t, 0, PT_BIG_T0);
  if (!mine || !team) {
    acc->v[1] += 1; /* counts failures */
    return;
  }
  PORTA_THREAD_VECTOR_RANGE(t, k, 0, PT_BIG_NP) { mine[k] = lr * 7 + rank * 3 + k; }
  PORTA_TEAM_VECTOR_RANGE(t, k, 0, PT_BIG_NT) { team[k] = lr + k; }
  porta_team_barrier(t);
  int64_t sum = 0;
  for (int k = 0; k < PT_BIG_NP; ++k) sum += mine[k];
  for (int k = 0; k < PT_BIG_NT; ++k) sum += team[k];
  acc->v[0] += (double)sum;
  acc->v[15] += 1.0;
}

/** porta_team_policy_team_size_max / _recommended and AUTO with scratch that limits the team
 *  size on the GPU: the sizes fit porta_team_level0_limit, the largest is the largest, AUTO
 *  launches with the recommended size and computes the right values; an explicit size past the
 *  largest and a request no team can hold fail before any launch, naming the label, the bytes
 *  and the limit. On the host the limit is the scratch cap and the sizes are the thread limits. */
static void test_auto_team_size_scratch(void) {
  porta_exec ex = porta_exec_default();
  const size_t limit = porta_team_level0_limit(ex);
  const int threads = porta_team_size_max(ex, porta_team_policy_make(1, 1, 1));
  PT_CHECK(limit >= (size_t)48 * 1024);
  for (int vl = 1; vl <= 4; vl *= 4) {
    const porta_team_policy p = porta_team_scratch_request(
        porta_team_policy_make(PT_BIG_LEAGUE, PORTA_AUTO, vl), 0, PT_BIG_T0, PT_BIG_P0);
    int max = -1, rec = -1, max_red = -1, rec_red = -1;
    PT_OK(porta_team_policy_team_size_max(ex, p, &big_scratch_k, &max));
    PT_OK(porta_team_policy_team_size_recommended(ex, p, &big_scratch_k, &rec));
    PT_OK(porta_team_policy_team_size_max(ex, p, &big_scratch_red_k, &max_red));
    PT_OK(porta_team_policy_team_size_recommended(ex, p, &big_scratch_red_k, &rec_red));
    PT_EQ_I64(porta_team_size_max(ex, p), max); /* the parallel_for shortcut */
    PT_EQ_I64(porta_team_size_recommended(ex, p), rec);
    PT_CHECK(rec >= 1 && rec <= max && rec_red >= 1 && rec_red <= max_red && max_red <= max);
    /* the reduction's slots are counted: one reducer value per member */
    PT_EQ_I64(porta_team_policy_level0_bytes(p, 10, &big_scratch_red_k) -
                  porta_team_policy_level0_bytes(p, 10, &big_scratch_k),
              10 * (int64_t)sizeof(pt_wide_value));
    PT_EQ_I64(porta_team_policy_level0_bytes(p, 10, NULL),
              porta_team_policy_level0_bytes(p, 10, &big_scratch_k));
    PT_CHECK(porta_team_policy_level0_bytes(p, 1, &big_scratch_k) >= PT_BIG_T0 + PT_BIG_P0);
    PT_CHECK(porta_team_policy_level0_bytes(p, max, &big_scratch_k) <= limit);
    PT_CHECK(porta_team_policy_level0_bytes(p, max_red, &big_scratch_red_k) <= limit);
    if (ex.backend == PORTA_BACKEND_CUDA) {
      /* memory, not threads, decides: 256 threads would not fit, one more member does not */
      PT_CHECK(porta_team_policy_level0_bytes(p, 256 / vl, &big_scratch_k) > limit);
      PT_CHECK(porta_team_policy_level0_bytes(p, max + 1, &big_scratch_k) > limit);
      PT_CHECK(porta_team_policy_level0_bytes(p, max_red + 1, &big_scratch_red_k) > limit);
      PT_CHECK(max < 256 / vl);
      /* whole warps where that leaves at least one */
      const int warp = 32 / vl;
      PT_EQ_I64(rec, max >= warp ? max - max % warp : max);
      PT_EQ_I64(rec_red, max_red >= warp ? max_red - max_red % warp : max_red);
    } else {
      PT_EQ_I64(max, threads);
      PT_EQ_I64(max_red, threads);
      PT_EQ_I64(rec, 1);
      PT_EQ_I64(rec_red, 1);
    }

    /* AUTO: runs with the recommended size, every member's scratch is whole and private */
    for (int explicit_max = 0; explicit_max < 2; ++explicit_max) {
      const int ts = explicit_max ? max : rec;
      porta_team_policy q = p;
      if (explicit_max) q.team_size = max;
      big_args a;
      PT_OK(porta_view_i64_create2(&a.out, "big_out", PT_BIG_LEAGUE, ts));
      PT_OK(porta_view_i64_create1(&a.members, "big_members", PT_BIG_LEAGUE));
      PT_OK(porta_parallel_for_team("auto_scratch", ex, q, &big_scratch_k, &a));
      int64_t bad = 0;
      for (int64_t lr = 0; lr < PT_BIG_LEAGUE; ++lr) {
        bad += a.members.data[lr] != ts;
        for (int r = 0; r < ts; ++r) bad += PORTA_S2(a.out, lr, r) != pt_big_expected(lr, r);
      }
      if (bad)
        fprintf(stderr, "  auto scratch: %lld bad (team size %d, vector length %d)\n",
                (long long)bad, ts, vl);
      PT_EQ_I64(bad, 0);
      porta_view_i64_release(&a.out);
      porta_view_i64_release(&a.members);
    }
    /* the reduction with AUTO, and with its largest size */
    for (int explicit_max = 0; explicit_max < 2; ++explicit_max) {
      const int ts = explicit_max ? max_red : rec_red;
      porta_team_policy q = p;
      if (explicit_max) q.team_size = max_red;
      big_args a;
      pt_wide_value got;
      memset(&a, 0, sizeof a);
      memset(&got, 0xff, sizeof got);
      PT_OK(porta_parallel_reduce_team("auto_scratch_reduce", ex, q, &big_scratch_red_k, &a, &got));
      double want = 0;
      for (int64_t lr = 0; lr < PT_BIG_LEAGUE; ++lr)
        for (int r = 0; r < ts; ++r) want += (double)pt_big_expected(lr, r);
      PT_EQ_F64(got.v[0], want);
      PT_EQ_F64(got.v[1], 0.0);
      PT_EQ_F64(got.v[15], (double)PT_BIG_LEAGUE * ts);
    }

    /* an explicit size one past the largest: refused before the launch, naming the bytes */
    if (ex.backend == PORTA_BACKEND_CUDA && max < threads / vl) {
      char need[32], lim[32];
      snprintf(need, sizeof need, "%zu",
               (size_t)porta_team_policy_level0_bytes(p, max + 1, &big_scratch_k));
      snprintf(lim, sizeof lim, "%zu", limit);
      big_args a;
      PT_OK(porta_view_i64_create2(&a.out, "big_out", PT_BIG_LEAGUE, max + 1));
      PT_OK(porta_view_i64_create1(&a.members, "big_members", PT_BIG_LEAGUE));
      porta_team_policy q = p;
      q.team_size = max + 1;
      porta_error_clear();
      PT_EXPECT_CODE(porta_parallel_for_team("too_many_members", ex, q, &big_scratch_k, &a),
                     PORTA_ERROR_INVALID_ARGUMENT);
      const char *m = porta_last_error_message();
      PT_CHECK(strstr(m, "too_many_members") != NULL);
      PT_CHECK(strstr(m, "big_scratch_k") != NULL);
      PT_CHECK(strstr(m, need) != NULL);
      PT_CHECK(strstr(m, lim) != NULL);
      int64_t ran = 0;
      for (int64_t lr = 0; lr < PT_BIG_LEAGUE; ++lr) ran += a.members.data[lr];
      PT_EQ_I64(ran, 0);
      porta_view_i64_release(&a.out);
      porta_view_i64_release(&a.members);
    }
  }

  /* a request no team can hold: the queries and AUTO fail cleanly, nothing runs */
  porta_team_policy imp = porta_team_scratch_request(
      porta_team_policy_make(PT_BIG_LEAGUE, PORTA_AUTO, 1), 0, limit + 1, 0);
  char asked[32], lim[32];
  snprintf(asked, sizeof asked, "%zu", limit + 1);
  snprintf(lim, sizeof lim, "%zu", limit);
  int n = -1;
  PT_EXPECT_CODE(porta_team_policy_team_size_max(ex, imp, &big_scratch_k, &n),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EQ_I64(n, 0);
  n = -1;
  PT_EXPECT_CODE(porta_team_policy_team_size_recommended(ex, imp, &big_scratch_red_k, &n),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EQ_I64(n, 0);
  PT_EQ_I64(porta_team_size_max(ex, imp), 0);
  big_args a;
  PT_OK(porta_view_i64_create2(&a.out, "big_out", PT_BIG_LEAGUE, 1));
  PT_OK(porta_view_i64_create1(&a.members, "big_members", PT_BIG_LEAGUE));
  porta_error_clear();
  PT_EXPECT_CODE(porta_parallel_for_team("impossible_scratch", ex, imp, &big_scratch_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  const char *m = porta_last_error_message();
  PT_CHECK(strstr(m, "impossible_scratch") != NULL);
  PT_CHECK(strstr(m, asked) != NULL);
  PT_CHECK(strstr(m, lim) != NULL);
  pt_wide_value w;
  imp.team_size = 1;
  PT_EXPECT_CODE(
      porta_parallel_reduce_team("impossible_scratch", ex, imp, &big_scratch_red_k, &a, &w),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_CHECK(strstr(porta_last_error_message(), asked) != NULL);
  int64_t ran = 0;
  for (int64_t lr = 0; lr < PT_BIG_LEAGUE; ++lr) ran += a.members.data[lr];
  PT_EQ_I64(ran, 0);
  porta_view_i64_release(&a.out);
  porta_view_i64_release(&a.members);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_scratch);
  PT_RUN(test_auto_team_size_scratch);
  PT_END();
}
