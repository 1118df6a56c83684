/** @file test_team_policy.c
 *  The team policy itself: every league rank is run once by team_size members with the right
 *  ranks and sizes; the team barrier; parallel_reduce over a team policy (sums, a nested team
 *  reduction and a max-location, normal and deterministic; a league of thousands, whose GPU
 *  reduction joins thousands of block partials, right and the same bits every time); the
 *  policy errors and empty leagues; the team-size queries. Each test runs with the shapes of
 *  team_test_util.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "team_test_util.h"

/* ------------------------------------------------------------------------------------------ */
/* League ranks, team ranks, sizes                                                             */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_i64 visits, mask, info, errors;
  int32_t ts;
} league_args;

PORTA_TEAM_FOR(league_k, league_args, a, t) {
  const int64_t lr = t->league_rank;
  if (t->team_rank < 0 || t->team_rank >= t->team_size || t->team_size != a->ts || lr < 0 ||
      lr >= t->league_size || t->vector_lane < 0 || t->vector_lane >= t->vector_length) {
    porta_atomic_add_i64(&PORTA_AT1(a->errors, 0), 1);
    return;
  }
  PORTA_SINGLE_PER_THREAD(t) {
    porta_atomic_add_i64(&PORTA_AT1(a->visits, lr), 1);
    if (t->team_rank < 63) porta_atomic_or_i64(&PORTA_AT1(a->mask, lr), (int64_t)1 << t->team_rank);
    PORTA_AT3(a->info, lr, t->team_rank, 0) = t->league_size;
    PORTA_AT3(a->info, lr, t->team_rank, 1) = t->vector_length;
  }
}

static void test_league(void) {
  pt_shape shapes[4];
  const int ns = pt_shapes(shapes);
  for (int s = 0; s < ns; ++s)
    for (int l = 0; l < PT_NLEAGUES; ++l) {
      const int64_t L = pt_leagues[l];
      const int ts = shapes[s].resolved;
      league_args a;
      a.ts = ts;
      PT_OK(porta_view_i64_create1(&a.visits, "visits", L + 1));
      PT_OK(porta_view_i64_create1(&a.mask, "mask", L + 1));
      PT_OK(porta_view_i64_create3(&a.info, "info", L + 1, ts, 2));
      PT_OK(porta_view_i64_create1(&a.errors, "errors", 1));
      porta_team_policy p = porta_team_policy_make(L, shapes[s].team_size, shapes[s].vector_length);
      PT_OK(porta_parallel_for_team("league", porta_exec_default(), p, &league_k, &a));
      PT_EQ_I64(a.errors.data[0], 0);
      int64_t bad = 0;
      for (int64_t lr = 0; lr < L; ++lr) {
        bad += a.visits.data[lr] != ts;
        if (ts < 63) bad += a.mask.data[lr] != ((int64_t)1 << ts) - 1; /* one bit per member */
        for (int r = 0; r < ts; ++r) {
          bad += PORTA_S3(a.info, lr, r, 0) != L;
          int64_t vl = PORTA_S3(a.info, lr, r, 1);
          bad += vl < 1 || (shapes[s].vector_length > 0 && vl > shapes[s].vector_length);
        }
      }
      bad += a.visits.data[L] != 0; /* the guard entry past the league */
      report_bad("league", bad, &shapes[s], L);
      porta_view_i64_release(&a.visits);
      porta_view_i64_release(&a.mask);
      porta_view_i64_release(&a.info);
      porta_view_i64_release(&a.errors);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Barrier                                                                                     */
/* ------------------------------------------------------------------------------------------ */

#define PT_ROUNDS 4

typedef struct {
  porta_view_i64 out; /**< (league, member, round): the sum of every member's value */
} barrier_args;

PORTA_TEAM_FOR(barrier_k, barrier_args, a, t) {
  const int64_t lr = t->league_rank;
  int64_t *slot = (int64_t *)porta_team_scratch(t, 0, (size_t)t->team_size * sizeof(int64_t));
  for (int round = 0; round < PT_ROUNDS; ++round) {
    if (t->team_rank == (lr + round) % t->team_size) { /* one member is late to write */
      volatile int64_t spin = 0;
      for (int k = 0; k < 2000; ++k) spin = spin + k;
    }
    PORTA_SINGLE_PER_THREAD(t) { slot[t->team_rank] = lr * 1000 + t->team_rank * 10 + round + 1; }
    porta_team_barrier(t);
    int64_t s = 0;
    for (int r = 0; r < t->team_size; ++r) s += slot[r];
    porta_team_barrier(t); /* nobody overwrites a slot before everyone has read it */
    PORTA_SINGLE_PER_THREAD(t) { PORTA_AT3(a->out, lr, t->team_rank, round) = s; }
  }
}

static void test_barrier(void) {
  pt_shape shapes[4];
  const int ns = pt_shapes(shapes);
  for (int s = 0; s < ns; ++s)
    for (int l = 0; l < PT_NLEAGUES; ++l) {
      const int64_t L = pt_leagues[l];
      const int ts = shapes[s].resolved;
      barrier_args a;
      PT_OK(porta_view_i64_create3(&a.out, "out", L, ts, PT_ROUNDS));
      porta_team_policy p = porta_team_scratch_request(
          porta_team_policy_make(L, shapes[s].team_size, shapes[s].vector_length), 0,
          (size_t)ts * sizeof(int64_t), 0);
      PT_OK(porta_parallel_for_team("barrier", porta_exec_default(), p, &barrier_k, &a));
      int64_t bad = 0;
      for (int64_t lr = 0; lr < L; ++lr)
        for (int r = 0; r < ts; ++r)
          for (int round = 0; round < PT_ROUNDS; ++round) {
            int64_t want = 0;
            for (int q = 0; q < ts; ++q) want += lr * 1000 + q * 10 + round + 1;
            bad += PORTA_S3(a.out, lr, r, round) != want;
          }
      report_bad("barrier", bad, &shapes[s], L);
      porta_view_i64_release(&a.out);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* parallel_reduce over a team policy                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  int64_t m; /**< indices per league rank */
} tred_args;

/** Every member adds its share of the league rank's indices. */
PORTA_TEAM_REDUCE(tred_k, tred_args, a, t, porta_sum_i64, acc) {
  PORTA_TEAM_THREAD_RANGE(t, i, 0, a->m) {
    PORTA_SINGLE_PER_THREAD(t) { *acc += t->league_rank * a->m + i; }
  }
}

/** A nested team reduction, added once per team. */
PORTA_TEAM_REDUCE(tred_nested_k, tred_args, a, t, porta_sum_f64, acc) {
  double s;
  PORTA_TEAM_THREAD_REDUCE(t, i, 0, a->m, porta_sum_f64, s) {
    s += 0.5 * (double)(t->league_rank * a->m + i);
  }
  PORTA_SINGLE_PER_TEAM(t) { *acc += s; }
}

/** Location of the maximum over all league ranks (ties: smallest location). */
PORTA_TEAM_REDUCE(tred_maxloc_k, tred_args, a, t, porta_maxloc_i64, acc) {
  PORTA_TEAM_THREAD_RANGE(t, i, 0, a->m) {
    const int64_t k = t->league_rank * a->m + i;
    const int64_t v = k % 1000; /* maximum 999 first at k = 999 */
    PORTA_SINGLE_PER_THREAD(t) {
      if (v > acc->val || (v == acc->val && k < acc->loc)) {
        acc->val = v;
        acc->loc = k;
      }
    }
  }
}

static void test_team_reduce(void) {
  static const int64_t ms[] = {0, 1, 7, 129};
  pt_shape shapes[4];
  const int ns = pt_shapes(shapes);
  for (int det = 0; det < 2; ++det) {
    porta_set_deterministic(det);
    for (int s = 0; s < ns; ++s)
      for (int l = 0; l < PT_NLEAGUES; ++l)
        for (int mi = 0; mi < 4; ++mi) {
          const int64_t L = pt_leagues[l], n = L * ms[mi];
          tred_args a;
          a.m = ms[mi];
          porta_team_policy p =
              porta_team_policy_make(L, shapes[s].team_size, shapes[s].vector_length);
          int64_t got = -1;
          PT_OK(porta_parallel_reduce_team("team_reduce", porta_exec_default(), p, &tred_k, &a,
                                           &got));
          PT_EQ_I64(got, n * (n - 1) / 2);
          double gd = -1;
          PT_OK(porta_parallel_reduce_team("team_reduce_nested", porta_exec_default(), p,
                                           &tred_nested_k, &a, &gd));
          PT_EQ_F64(gd, 0.25 * (double)(n * (n - 1)));
          porta_i64_loc ml;
          PT_OK(porta_parallel_reduce_team("team_maxloc", porta_exec_default(), p, &tred_maxloc_k,
                                           &a, &ml));
          if (n == 0) {
            PT_EQ_I64(ml.val, INT64_MIN);
            PT_EQ_I64(ml.loc, INT64_MAX);
          } else {
            PT_EQ_I64(ml.val, n - 1 < 999 ? n - 1 : 999);
            PT_EQ_I64(ml.loc, n - 1 < 999 ? n - 1 : 999);
          }
        }
  }
  porta_set_deterministic(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Team reduction across many blocks: right, and the same bits every time                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  int64_t m;
} trep_args;

/** Values of very different sizes, so any change in the order of the joins changes the bits. */
PORTA_INLINE_FUNCTION double pt_trep_value(int64_t k) {
  const int64_t h = (k * 2654435761) % 1000003;
  return (h % 3 == 0 ? 1.0e10 : 1.0e-3) * (double)(h % 997 - 498);
}

PORTA_TEAM_REDUCE(trep_k, trep_args, a, t, porta_sum_f64, acc) {
  PORTA_TEAM_THREAD_RANGE(t, i, 0, a->m) {
    double s;
    PORTA_THREAD_VECTOR_REDUCE(t, j, 0, 8, porta_sum_f64, s) {
      s += pt_trep_value((t->league_rank * a->m + i) * 8 + j);
    }
    PORTA_SINGLE_PER_THREAD(t) { *acc += s; }
  }
}

/** A league of thousands (the last block joins thousands of block partials): the sum is right
 *  and three runs give the same bits, for several team shapes (vector lanes included). */
static void test_team_reduce_many_blocks(void) {
  porta_exec ex = porta_exec_default();
  static const int64_t leagues[] = {2500, 20001};
  static const int32_t shapes[3][2] = {{PORTA_AUTO, PORTA_AUTO}, {0, 4}, {0, 8}};
  for (int l = 0; l < 2; ++l) {
    trep_args a;
    a.m = 5;
    const int64_t n = leagues[l] * a.m * 8;
    double ref = 0, mag = 0;
    for (int64_t k = 0; k < n; ++k) {
      ref += pt_trep_value(k);
      mag += fabs(pt_trep_value(k));
    }
    for (int s = 0; s < 3; ++s) {
      const int vl = shapes[s][1];
      const int ts = shapes[s][0] == 0 ? pt_team_max(vl) : shapes[s][0];
      porta_team_policy p = porta_team_policy_make(leagues[l], ts, vl);
      double first = 0;
      for (int run = 0; run < 3; ++run) {
        double got = -1;
        PT_OK(porta_parallel_reduce_team("team_reduce_blocks", ex, p, &trep_k, &a, &got));
        if (run == 0) {
          first = got;
          if (!(fabs(got - ref) <= 1e-9 * mag))
            fprintf(stderr, "  league %lld team %d x %d: %.17g vs %.17g\n", (long long)leagues[l],
                    ts, vl, got, ref);
          PT_CHECK(fabs(got - ref) <= 1e-9 * mag);
        } else {
          PT_CHECK(memcmp(&got, &first, sizeof got) == 0);
        }
      }
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Errors and empty leagues                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_i64 v;
} range_args;

PORTA_FOR(range_k, range_args, a, i) { PORTA_AT1(a->v, i) = 1; }

static void test_errors(void) {
  porta_exec ex = porta_exec_default();
  const int max = porta_team_size_max(ex, porta_team_policy_make(4, 1, 1));
  const int ts_ok = pt_team_max(1);
  league_args a;
  a.ts = 1;
  PT_OK(porta_view_i64_create1(&a.visits, "visits", 4));
  PT_OK(porta_view_i64_create1(&a.mask, "mask", 4));
  PT_OK(porta_view_i64_create3(&a.info, "info", 4, ts_ok, 2));
  PT_OK(porta_view_i64_create1(&a.errors, "errors", 1));
  tred_args ta;
  ta.m = 3;
  int64_t r = 0;
  PT_EXPECT_CODE(
      porta_parallel_for_team("bad", ex, porta_team_policy_make(4, max + 1, 1), &league_k, &a),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce_team("bad", ex, porta_team_policy_make(4, max + 1, 1),
                                            &tred_k, &ta, &r),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for_team("bad", ex, porta_team_policy_make(4, 0, 1), &league_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for_team("bad", ex, porta_team_policy_make(4, 1, 3), &league_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for_team("bad", ex, porta_team_policy_make(4, 1, 0), &league_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(
      porta_parallel_for_team("bad", ex, porta_team_policy_make(-1, 1, 1), &league_k, &a),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(
      porta_parallel_reduce_team("bad", ex, porta_team_policy_make(4, 1, 1), &tred_k, &ta, NULL),
      PORTA_ERROR_INVALID_ARGUMENT);
  /* a team kernel over a range, a range kernel over a team policy, for vs reduce */
  range_args ra;
  PT_OK(porta_view_i64_create1(&ra.v, "r", 4));
  PT_EXPECT_CODE(porta_parallel_for("bad", ex, porta_range(0, 4), &league_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for_team("bad", ex, porta_team_policy_make(4, 1, 1), &range_k, &ra),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for_team("bad", ex, porta_team_policy_make(4, 1, 1), &tred_k, &ta),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(
      porta_parallel_reduce_team("bad", ex, porta_team_policy_make(4, 1, 1), &league_k, &a, &r),
      PORTA_ERROR_INVALID_ARGUMENT);
  /* nothing ran */
  int64_t ran = a.errors.data[0];
  for (int k = 0; k < 4; ++k) ran += a.visits.data[k] + ra.v.data[k];
  PT_EQ_I64(ran, 0);
  /* the largest team size (capped for the GPU) is accepted */
  a.ts = ts_ok;
  PT_OK(porta_parallel_for_team("max", ex, porta_team_policy_make(4, ts_ok, 1), &league_k, &a));
  for (int k = 0; k < 4; ++k) PT_EQ_I64(a.visits.data[k], ts_ok);
  PT_EQ_I64(a.errors.data[0], 0);
  porta_view_i64_release(&a.visits);
  porta_view_i64_release(&a.mask);
  porta_view_i64_release(&a.info);
  porta_view_i64_release(&a.errors);
  porta_view_i64_release(&ra.v);
}

/* ------------------------------------------------------------------------------------------ */
/* The team-size queries                                                                       */
/* ------------------------------------------------------------------------------------------ */

static void test_team_size_queries(void) {
  porta_exec ex = porta_exec_default();
  const int max = porta_team_size_max(ex, porta_team_policy_make(10, 1, 1));
  PT_CHECK(max >= 1);
  if (ex.backend == PORTA_BACKEND_OPENMP) PT_EQ_I64(max, porta_num_threads());
  if (ex.backend == PORTA_BACKEND_SERIAL) PT_EQ_I64(max, 1);
  const int rec = porta_team_size_recommended(ex, porta_team_policy_make(10, PORTA_AUTO, 1));
  PT_CHECK(rec >= 1 && rec <= max);
  /* PORTA_AUTO on the host is what Kokkos's OpenMP back end recommends: one thread per team
   * (its impl_thread_pool_size(2), always 1), the pool running one team per thread */
  if (!porta_exec_query(ex).on_device) PT_EQ_I64(rec, 1);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_team_size_queries);
  PT_RUN(test_league);
  PT_RUN(test_barrier);
  PT_RUN(test_team_reduce);
  PT_RUN(test_errors);
  PT_RUN(test_team_reduce_many_blocks);
  PT_END();
}
