/** @file test_team.c
 *  Team policies: every league rank is run once by team_size members; the team barrier; team
 *  and thread scratch at levels 0 and 1 (values survive, NULL past the request); nested
 *  TEAM_THREAD / THREAD_VECTOR / TEAM_VECTOR ranges, reductions and scans; SINGLE per team and
 *  per thread; broadcast; the stamped R_team_reduce / R_team_scan collectives; parallel_reduce
 *  over a team policy (normal and deterministic); and the policy errors. Each test runs with
 *  team size 1, the largest team size (2 with two OpenMP threads) and PORTA_AUTO.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/** League sizes: none, one, and counts that divide no team count. */
static const int64_t pt_leagues[] = {0, 1, 5, 1001};
#define PT_NLEAGUES ((int)(sizeof pt_leagues / sizeof pt_leagues[0]))

/** A (team size, vector length) request and the team size it resolves to. */
typedef struct {
  int32_t team_size, vector_length, resolved;
} pt_shape;

/** The largest team size for `vector_length` lanes, capped at 32 (GPUs allow far more; the
 *  host's is the thread count) so that per-member bit masks and result views stay small. */
static int pt_team_max(int vector_length) {
  int max = porta_team_size_max(porta_exec_default(), porta_team_policy_make(1, 1, vector_length));
  return max < 32 ? max : 32;
}

/** The shapes every test runs: 1, the largest team, AUTO, and the largest with 4 lanes. */
static int pt_shapes(pt_shape *s) {
  porta_exec ex = porta_exec_default();
  int auto_ts = porta_team_size_recommended(ex, porta_team_policy_make(1, PORTA_AUTO, PORTA_AUTO));
  static const int32_t req[4][2] = {{1, 1}, {0, 1}, {PORTA_AUTO, PORTA_AUTO}, {0, 4}};
  for (int k = 0; k < 4; ++k) {
    s[k].team_size = req[k][0] == 0 ? pt_team_max(req[k][1]) : req[k][0];
    s[k].vector_length = req[k][1];
    s[k].resolved = req[k][0] == PORTA_AUTO ? auto_ts : s[k].team_size;
  }
  return 4;
}

/** A pseudo-random value per index. */
PORTA_INLINE_FUNCTION int64_t pt_rand(int64_t i) {
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 12345;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (int64_t)((z ^ (z >> 31)) % 1000) - 400;
}

static void report_bad(const char *what, int64_t bad, const pt_shape *s, int64_t league) {
  if (bad)
    fprintf(stderr, "  %s: %lld bad (team size %d, vector length %d, league %lld)\n", what,
            (long long)bad, (int)s->team_size, (int)s->vector_length, (long long)league);
  PT_EQ_I64(bad, 0);
}

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
/* Nested ranges                                                                               */
/* ------------------------------------------------------------------------------------------ */

#define PT_M 37 /* TEAM_THREAD / TEAM_VECTOR range length */
#define PT_R 5  /* rows of the nested thread-vector ranges */
#define PT_C 13 /* columns */

typedef struct {
  porta_view_i64 tt; /**< (league, PT_M) visits of TEAM_THREAD_RANGE [3, PT_M + 3) */
  porta_view_i64 tv; /**< (league, PT_R, PT_C) TEAM_THREAD over rows, THREAD_VECTOR [2, PT_C + 2) */
  porta_view_i64 tvr; /**< (league, PT_M) visits of TEAM_VECTOR_RANGE [1, PT_M + 1) */
} nested_args;

PORTA_TEAM_FOR(nested_k, nested_args, a, t) {
  const int64_t lr = t->league_rank;
  PORTA_TEAM_THREAD_RANGE(t, i, 3, PT_M + 3) {
    PORTA_SINGLE_PER_THREAD(t) {
      porta_atomic_add_i64(&PORTA_AT2(a->tt, lr, i - 3), 1 + 100 * t->team_rank);
    }
  }
  PORTA_TEAM_THREAD_RANGE(t, r, 0, PT_R) {
    PORTA_THREAD_VECTOR_RANGE(t, c, 2, PT_C + 2) {
      porta_atomic_add_i64(&PORTA_AT3(a->tv, lr, r, c - 2), 1);
    }
  }
  PORTA_TEAM_VECTOR_RANGE(t, i, 1, PT_M + 1) {
    porta_atomic_add_i64(&PORTA_AT2(a->tvr, lr, i - 1), 1);
  }
}

static void test_nested_ranges(void) {
  pt_shape shapes[4];
  const int ns = pt_shapes(shapes);
  for (int s = 0; s < ns; ++s)
    for (int l = 0; l < PT_NLEAGUES; ++l) {
      const int64_t L = pt_leagues[l];
      const int ts = shapes[s].resolved;
      nested_args a;
      PT_OK(porta_view_i64_create2(&a.tt, "tt", L, PT_M));
      PT_OK(porta_view_i64_create3(&a.tv, "tv", L, PT_R, PT_C));
      PT_OK(porta_view_i64_create2(&a.tvr, "tvr", L, PT_M));
      porta_team_policy p = porta_team_policy_make(L, shapes[s].team_size, shapes[s].vector_length);
      PT_OK(porta_parallel_for_team("nested", porta_exec_default(), p, &nested_k, &a));
      int64_t bad = 0, members = 0;
      for (int64_t lr = 0; lr < L; ++lr) {
        for (int64_t i = 0; i < PT_M; ++i) {
          /* visited once (1 + 100 * member), and the work is shared by every member */
          const int64_t v = PORTA_S2(a.tt, lr, i);
          bad += v % 100 != 1 || v / 100 < 0 || v / 100 >= ts;
          if (v % 100 == 1 && v / 100 >= 0 && v / 100 < ts && v / 100 < 63)
            members |= (int64_t)1 << (v / 100);
          bad += PORTA_S2(a.tvr, lr, i) != 1;
        }
        for (int64_t r = 0; r < PT_R; ++r)
          for (int64_t c = 0; c < PT_C; ++c) bad += PORTA_S3(a.tv, lr, r, c) != 1;
      }
      /* every member got work (when there are enough indices and bits to tell) */
      if (L > 0 && ts <= PT_M && ts < 63) bad += members != ((int64_t)1 << ts) - 1;
      report_bad("nested ranges", bad, &shapes[s], L);
      porta_view_i64_release(&a.tt);
      porta_view_i64_release(&a.tv);
      porta_view_i64_release(&a.tvr);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Nested reductions                                                                           */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_i64 out;    /**< (league, member, 5) results every member sees */
  porta_view_i64 rowsum; /**< (league, PT_R) THREAD_VECTOR_REDUCE per row */
} nred_args;

PORTA_TEAM_FOR(nred_k, nred_args, a, t) {
  const int64_t lr = t->league_rank;
  const int rank = t->team_rank;
  int64_t s;
  double mx;
  porta_i64_loc ml;
  int64_t tvs;
  PORTA_TEAM_THREAD_REDUCE(t, i, 0, PT_M, porta_sum_i64, s) { s += lr * PT_M + i; }
  PORTA_TEAM_THREAD_REDUCE(t, i, 0, PT_M, porta_max_f64, mx) {
    double v = (double)((i * 7) % PT_M) + 0.5 * (double)lr;
    if (v > mx) mx = v;
  }
  /* the minimum (0) occurs at every index that is a multiple of 5: the first is 0 */
  PORTA_TEAM_THREAD_REDUCE(t, i, 0, PT_M, porta_minloc_i64, ml) {
    int64_t v = (i % 5) + lr;
    if (v < ml.val || (v == ml.val && i < ml.loc)) {
      ml.val = v;
      ml.loc = i;
    }
  }
  PORTA_TEAM_VECTOR_REDUCE(t, i, 0, PT_M, porta_sum_i64, tvs) { tvs += i * i + lr; }
  PORTA_SINGLE_PER_THREAD(t) {
    PORTA_AT3(a->out, lr, rank, 0) = s;
    PORTA_AT3(a->out, lr, rank, 1) = (int64_t)(mx * 2);
    PORTA_AT3(a->out, lr, rank, 2) = ml.val;
    PORTA_AT3(a->out, lr, rank, 3) = ml.loc;
    PORTA_AT3(a->out, lr, rank, 4) = tvs;
  }
  PORTA_TEAM_THREAD_RANGE(t, r, 0, PT_R) {
    int64_t rs;
    PORTA_THREAD_VECTOR_REDUCE(t, c, 0, PT_C, porta_sum_i64, rs) { rs += r * PT_C + c + lr; }
    PORTA_SINGLE_PER_THREAD(t) { PORTA_AT2(a->rowsum, lr, r) = rs; }
  }
}

static void test_nested_reduce(void) {
  pt_shape shapes[4];
  const int ns = pt_shapes(shapes);
  for (int s = 0; s < ns; ++s)
    for (int l = 0; l < PT_NLEAGUES; ++l) {
      const int64_t L = pt_leagues[l];
      const int ts = shapes[s].resolved;
      nred_args a;
      PT_OK(porta_view_i64_create3(&a.out, "out", L, ts, 5));
      PT_OK(porta_view_i64_create2(&a.rowsum, "rowsum", L, PT_R));
      porta_team_policy p = porta_team_policy_make(L, shapes[s].team_size, shapes[s].vector_length);
      PT_OK(porta_parallel_for_team("nested_reduce", porta_exec_default(), p, &nred_k, &a));
      int64_t bad = 0;
      for (int64_t lr = 0; lr < L; ++lr) {
        const int64_t want_s = lr * PT_M * PT_M + PT_M * (PT_M - 1) / 2;
        const int64_t want_mx = (PT_M - 1) * 2 + lr; /* 2 * (PT_M - 1 + lr / 2) */
        const int64_t want_tvs = (PT_M - 1) * PT_M * (2 * PT_M - 1) / 6 + lr * PT_M;
        for (int r = 0; r < ts; ++r) {
          bad += PORTA_S3(a.out, lr, r, 0) != want_s;
          bad += PORTA_S3(a.out, lr, r, 1) != want_mx;
          bad += PORTA_S3(a.out, lr, r, 2) != lr;
          bad += PORTA_S3(a.out, lr, r, 3) != 0;
          bad += PORTA_S3(a.out, lr, r, 4) != want_tvs;
        }
        for (int r = 0; r < PT_R; ++r)
          bad += PORTA_S2(a.rowsum, lr, r) != r * PT_C * PT_C + PT_C * (PT_C - 1) / 2 + lr * PT_C;
      }
      report_bad("nested reductions", bad, &shapes[s], L);
      porta_view_i64_release(&a.out);
      porta_view_i64_release(&a.rowsum);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Vector reductions in whole and in partial warps                                            */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_i64 rowsum; /**< (league, rows) */
  int64_t rows, cols;
} vred_args;

/* rows = team size + 3: the first pass over the rows fills every warp, the second only the
 * warp of members 0..2, where the butterfly must keep to each member's own lanes (on a GPU the
 * two cases take different shuffle masks). */
PORTA_TEAM_FOR(vred_k, vred_args, a, t) {
  const int64_t lr = t->league_rank;
  PORTA_TEAM_THREAD_RANGE(t, r, 0, a->rows) {
    int64_t rs;
    PORTA_THREAD_VECTOR_REDUCE(t, c, 0, a->cols, porta_sum_i64, rs) {
      rs += pt_rand(lr * 7919 + r * 31 + c);
    }
    PORTA_SINGLE_PER_THREAD(t) { PORTA_AT2(a->rowsum, lr, r) = rs; }
  }
}

static void test_vector_reduce_partial_warps(void) {
  porta_exec ex = porta_exec_default();
  for (int vl = 2; vl <= 32; vl *= 2) {
    int ts = pt_team_max(vl);
    if (ts > 64 / vl) ts = 64 / vl; /* two warps on a GPU */
    vred_args a;
    a.rows = ts + 3;
    a.cols = 2 * vl + 3; /* lanes run different trip counts too */
    const int64_t L = 7;
    PT_OK(porta_view_i64_create2(&a.rowsum, "rowsum", L, a.rows));
    PT_OK(porta_parallel_for_team("vector_reduce_partial", ex, porta_team_policy_make(L, ts, vl),
                                  &vred_k, &a));
    int64_t bad = 0;
    for (int64_t lr = 0; lr < L; ++lr)
      for (int64_t r = 0; r < a.rows; ++r) {
        int64_t want = 0;
        for (int64_t c = 0; c < a.cols; ++c) want += pt_rand(lr * 7919 + r * 31 + c);
        bad += PORTA_S2(a.rowsum, lr, r) != want;
      }
    pt_shape sh = {ts, vl, ts};
    report_bad("vector reduce in partial warps", bad, &sh, L);
    porta_view_i64_release(&a.rowsum);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Nested scans                                                                                */
/* ------------------------------------------------------------------------------------------ */

#define PT_SCAN_MAX 103

typedef struct {
  porta_view_i64 in;   /**< (league, PT_SCAN_MAX) */
  porta_view_i64 ex;   /**< exclusive TEAM_THREAD_SCAN */
  porta_view_i64 inc;  /**< inclusive TEAM_THREAD_SCAN */
  porta_view_i64 tot;  /**< (league, member, 2): the totals each member sees */
  porta_view_i64 vin;  /**< (league, PT_R, PT_C) */
  porta_view_i64 vex;  /**< exclusive THREAD_VECTOR_SCAN per row */
  porta_view_i64 vtot; /**< (league, PT_R) */
  int64_t n;           /**< TEAM_THREAD_SCAN length */
} nscan_args;

PORTA_TEAM_FOR(nscan_k, nscan_args, a, t) {
  const int64_t lr = t->league_rank;
  int64_t upd = 0, upd2 = 0;
  PORTA_TEAM_THREAD_SCAN(t, i, 0, a->n, porta_sum_i64, upd, fin) {
    if (fin) PORTA_AT2(a->ex, lr, i) = upd;
    upd += PORTA_AT2(a->in, lr, i);
  }
  PORTA_TEAM_THREAD_SCAN(t, i, 0, a->n, porta_sum_i64, upd2, fin) {
    upd2 += PORTA_AT2(a->in, lr, i);
    if (fin) PORTA_AT2(a->inc, lr, i) = upd2;
  }
  PORTA_SINGLE_PER_THREAD(t) {
    PORTA_AT3(a->tot, lr, t->team_rank, 0) = upd;
    PORTA_AT3(a->tot, lr, t->team_rank, 1) = upd2;
  }
  PORTA_TEAM_THREAD_RANGE(t, r, 0, PT_R) {
    int64_t vu;
    PORTA_THREAD_VECTOR_SCAN(t, c, 0, PT_C, porta_sum_i64, vu, fin) {
      if (fin) PORTA_AT3(a->vex, lr, r, c) = vu;
      vu += PORTA_AT3(a->vin, lr, r, c);
    }
    PORTA_SINGLE_PER_THREAD(t) { PORTA_AT2(a->vtot, lr, r) = vu; }
  }
}

static void test_nested_scan(void) {
  static const int64_t lengths[] = {0, 1, 2, 7, PT_SCAN_MAX};
  pt_shape shapes[4];
  const int ns = pt_shapes(shapes);
  for (int s = 0; s < ns; ++s)
    for (int l = 0; l < PT_NLEAGUES; ++l)
      for (int n = 0; n < 5; ++n) {
        const int64_t L = pt_leagues[l];
        const int ts = shapes[s].resolved;
        nscan_args a;
        a.n = lengths[n];
        PT_OK(porta_view_i64_create2(&a.in, "in", L, PT_SCAN_MAX));
        PT_OK(porta_view_i64_create2(&a.ex, "ex", L, PT_SCAN_MAX));
        PT_OK(porta_view_i64_create2(&a.inc, "inc", L, PT_SCAN_MAX));
        PT_OK(porta_view_i64_create3(&a.tot, "tot", L, ts, 2));
        PT_OK(porta_view_i64_create3(&a.vin, "vin", L, PT_R, PT_C));
        PT_OK(porta_view_i64_create3(&a.vex, "vex", L, PT_R, PT_C));
        PT_OK(porta_view_i64_create2(&a.vtot, "vtot", L, PT_R));
        for (int64_t lr = 0; lr < L; ++lr) {
          for (int64_t i = 0; i < PT_SCAN_MAX; ++i) PORTA_S2(a.in, lr, i) = pt_rand(lr * 1000 + i);
          for (int64_t r = 0; r < PT_R; ++r)
            for (int64_t c = 0; c < PT_C; ++c)
              PORTA_S3(a.vin, lr, r, c) = pt_rand(((lr + 77) * PT_R + r) * PT_C + c);
        }
        PT_OK(porta_view_i64_fill(a.ex, -1));
        PT_OK(porta_view_i64_fill(a.inc, -1));
        porta_team_policy p =
            porta_team_policy_make(L, shapes[s].team_size, shapes[s].vector_length);
        PT_OK(porta_parallel_for_team("nested_scan", porta_exec_default(), p, &nscan_k, &a));
        int64_t bad = 0;
        for (int64_t lr = 0; lr < L; ++lr) {
          int64_t run = 0;
          for (int64_t i = 0; i < PT_SCAN_MAX; ++i) {
            if (i < a.n) {
              bad += PORTA_S2(a.ex, lr, i) != run;
              run += PORTA_S2(a.in, lr, i);
              bad += PORTA_S2(a.inc, lr, i) != run;
            } else {
              bad += PORTA_S2(a.ex, lr, i) != -1 || PORTA_S2(a.inc, lr, i) != -1; /* untouched */
            }
          }
          for (int r = 0; r < ts; ++r) {
            bad += PORTA_S3(a.tot, lr, r, 0) != run;
            bad += PORTA_S3(a.tot, lr, r, 1) != run;
          }
          for (int r = 0; r < PT_R; ++r) {
            int64_t vrun = 0;
            for (int c = 0; c < PT_C; ++c) {
              bad += PORTA_S3(a.vex, lr, r, c) != vrun;
              vrun += PORTA_S3(a.vin, lr, r, c);
            }
            bad += PORTA_S2(a.vtot, lr, r) != vrun;
          }
        }
        report_bad("nested scans", bad, &shapes[s], L);
        porta_view_i64_release(&a.in);
        porta_view_i64_release(&a.ex);
        porta_view_i64_release(&a.inc);
        porta_view_i64_release(&a.tot);
        porta_view_i64_release(&a.vin);
        porta_view_i64_release(&a.vex);
        porta_view_i64_release(&a.vtot);
      }
}

/* ------------------------------------------------------------------------------------------ */
/* Single, broadcast, the stamped collectives                                                  */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  double a;
  int64_t b;
  double c[3];
} pt_bcast;

/** A custom reducer with team collectives: sum and max at once. */
typedef struct {
  int64_t sum, max;
} sm_value;
PORTA_INLINE_FUNCTION void sm_init(sm_value *v) {
  v->sum = 0;
  v->max = INT64_MIN;
}
PORTA_INLINE_FUNCTION void sm_join(sm_value *d, const sm_value *s) {
  d->sum += s->sum;
  if (s->max > d->max) d->max = s->max;
}
PORTA_REDUCER_TEAM_OPS(sm)

#define PT_NCOLL 17

typedef struct {
  porta_view_i64 single_team, single_thread; /**< (league) counters */
  porta_view_i64 totals;                     /**< (2): all SINGLE_PER_TEAM, all PER_THREAD */
  porta_view_i64 out;                        /**< (league, member, PT_NCOLL) */
} coll_args;

PORTA_TEAM_FOR(coll_k, coll_args, a, t) {
  const int64_t lr = t->league_rank;
  const int rank = t->team_rank, ts = t->team_size;
  PORTA_SINGLE_PER_TEAM(t) {
    porta_atomic_add_i64(&PORTA_AT1(a->single_team, lr), 1);
    porta_atomic_add_i64(&PORTA_AT1(a->totals, 0), 1);
  }
  PORTA_SINGLE_PER_THREAD(t) {
    porta_atomic_add_i64(&PORTA_AT1(a->single_thread, lr), 1);
    porta_atomic_add_i64(&PORTA_AT1(a->totals, 1), 1);
  }
  /* broadcast from the first and from the last member */
  int64_t x = rank == 0 ? lr * 100 + 7 : -1;
  PORTA_TEAM_BROADCAST(t, x, 0);
  int64_t y = rank == ts - 1 ? lr * 100 + 9 : -1;
  PORTA_TEAM_BROADCAST(t, y, ts - 1);
  pt_bcast b;
  b.a = rank == ts - 1 ? 0.5 * (double)lr : -1;
  b.b = rank == ts - 1 ? lr + 3 : -1;
  b.c[0] = b.c[1] = b.c[2] = rank == ts - 1 ? (double)lr + 0.25 : -1;
  PORTA_TEAM_BROADCAST(t, b, ts - 1);
  /* the stamped collectives */
  int64_t v = lr + rank + 1;
  porta_sum_i64_team_reduce(t, &v);
  double d = 0.5 * rank + (double)lr;
  porta_max_f64_team_reduce(t, &d);
  porta_i64_loc loc;
  loc.val = 3;
  loc.loc = ts - 1 - rank; /* a tie: the smallest location wins */
  porta_minloc_i64_team_reduce(t, &loc);
  int64_t e = lr + rank + 1, total = -1;
  porta_sum_i64_team_scan(t, &e, &total);
  int64_t e2 = rank + 1;
  porta_sum_i64_team_scan(t, &e2, NULL);
  sm_value sm;
  sm.sum = rank + 1;
  sm.max = lr * 10 + rank;
  sm_team_reduce(t, &sm);
  sm_value sx, sv;
  sx.sum = rank + 1;
  sx.max = lr * 10 + rank;
  sm_team_scan(t, &sx, NULL);
  sv.sum = t->vector_lane == 0 ? rank + 1 : 0;
  sv.max = lr * 10 + rank;
  sm_team_vector_reduce(t, &sv);
  int64_t tv = t->vector_lane == 0 ? 2 * rank + 1 : 0; /* one value per member */
  porta_sum_i64_team_vector_reduce(t, &tv);
  PORTA_SINGLE_PER_THREAD(t) {
    PORTA_AT3(a->out, lr, rank, 0) = x;
    PORTA_AT3(a->out, lr, rank, 1) = y;
    PORTA_AT3(a->out, lr, rank, 2) = (int64_t)(b.a * 2) + 1000 * b.b;
    PORTA_AT3(a->out, lr, rank, 3) =
        (b.c[0] == (double)lr + 0.25 && b.c[1] == b.c[0] && b.c[2] == b.c[0]);
    PORTA_AT3(a->out, lr, rank, 4) = v;
    PORTA_AT3(a->out, lr, rank, 5) = (int64_t)(d * 2);
    PORTA_AT3(a->out, lr, rank, 6) = loc.val;
    PORTA_AT3(a->out, lr, rank, 7) = loc.loc;
    PORTA_AT3(a->out, lr, rank, 8) = e;
    PORTA_AT3(a->out, lr, rank, 9) = total;
    PORTA_AT3(a->out, lr, rank, 10) = e2;
    PORTA_AT3(a->out, lr, rank, 11) = sm.sum;
    PORTA_AT3(a->out, lr, rank, 12) = sm.max;
    PORTA_AT3(a->out, lr, rank, 13) = tv;
    PORTA_AT3(a->out, lr, rank, 14) = sx.sum;
    PORTA_AT3(a->out, lr, rank, 15) = sx.max;
    PORTA_AT3(a->out, lr, rank, 16) = sv.sum * 1000000 + sv.max;
  }
}

static void test_single_broadcast_collectives(void) {
  pt_shape shapes[4];
  const int ns = pt_shapes(shapes);
  for (int s = 0; s < ns; ++s)
    for (int l = 0; l < PT_NLEAGUES; ++l) {
      const int64_t L = pt_leagues[l];
      const int ts = shapes[s].resolved;
      coll_args a;
      PT_OK(porta_view_i64_create1(&a.single_team, "single_team", L + 1));
      PT_OK(porta_view_i64_create1(&a.single_thread, "single_thread", L + 1));
      PT_OK(porta_view_i64_create1(&a.totals, "totals", 2));
      PT_OK(porta_view_i64_create3(&a.out, "out", L, ts, PT_NCOLL));
      porta_team_policy p = porta_team_policy_make(L, shapes[s].team_size, shapes[s].vector_length);
      PT_OK(porta_parallel_for_team("collectives", porta_exec_default(), p, &coll_k, &a));
      int64_t bad = 0;
      PT_EQ_I64(a.totals.data[0], L);
      PT_EQ_I64(a.totals.data[1], L * ts);
      for (int64_t lr = 0; lr < L; ++lr) {
        bad += a.single_team.data[lr] != 1;
        bad += a.single_thread.data[lr] != ts;
        int64_t sum = 0;
        for (int q = 0; q < ts; ++q) sum += lr + q + 1;
        for (int r = 0; r < ts; ++r) {
          int64_t o[PT_NCOLL];
          for (int k = 0; k < PT_NCOLL; ++k) o[k] = PORTA_S3(a.out, lr, r, k);
          int64_t excl = 0, excl2 = 0;
          for (int q = 0; q < r; ++q) {
            excl += lr + q + 1;
            excl2 += q + 1;
          }
          bad += o[0] != lr * 100 + 7;
          bad += o[1] != lr * 100 + 9;
          bad += o[2] != lr + 1000 * (lr + 3);
          bad += o[3] != 1;
          bad += o[4] != sum;
          bad += o[5] != (ts - 1) + 2 * lr;
          bad += o[6] != 3;
          bad += o[7] != 0;
          bad += o[8] != excl;
          bad += o[9] != sum;
          bad += o[10] != excl2;
          bad += o[11] != (int64_t)ts * (ts + 1) / 2;
          bad += o[12] != lr * 10 + ts - 1;
          bad += o[13] != (int64_t)ts * ts;
          bad += o[14] != excl2; /* custom reducer: exclusive scan */
          bad += o[15] != (r == 0 ? INT64_MIN : lr * 10 + r - 1);
          bad += o[16] != (int64_t)ts * (ts + 1) / 2 * 1000000 + lr * 10 + ts - 1;
        }
      }
      bad += a.single_team.data[L] != 0;
      report_bad("single / broadcast / collectives", bad, &shapes[s], L);
      porta_view_i64_release(&a.single_team);
      porta_view_i64_release(&a.single_thread);
      porta_view_i64_release(&a.totals);
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
  PT_RUN(test_scratch);
  PT_RUN(test_nested_ranges);
  PT_RUN(test_nested_reduce);
  PT_RUN(test_vector_reduce_partial_warps);
  PT_RUN(test_nested_scan);
  PT_RUN(test_single_broadcast_collectives);
  PT_RUN(test_team_reduce);
  PT_RUN(test_errors);
  PT_RUN(test_auto_team_size_scratch);
  PT_RUN(test_team_reduce_many_blocks);
  PT_END();
}
