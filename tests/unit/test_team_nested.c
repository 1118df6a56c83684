/** @file test_team_nested.c
 *  Nested ranges inside a team: TEAM_THREAD / THREAD_VECTOR / TEAM_VECTOR loops, their
 *  reductions (in whole and in partial warps) and scans. Each test runs with the shapes of
 *  team_test_util.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "team_test_util.h"

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

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_nested_ranges);
  PT_RUN(test_nested_reduce);
  PT_RUN(test_vector_reduce_partial_warps);
  PT_RUN(test_nested_scan);
  PT_END();
}
