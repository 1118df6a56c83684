/** @file test_team_collectives.c
 *  SINGLE per team and per thread, broadcast, and the stamped R_team_reduce / R_team_scan
 *  collectives (a custom reducer among them). Each test runs with the shapes of
 *  team_test_util.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "team_test_util.h"

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

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_single_broadcast_collectives);
  PT_END();
}
