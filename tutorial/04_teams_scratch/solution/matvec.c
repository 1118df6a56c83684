/** Exercise 04, solution: hierarchical parallelism. y = A x with a team policy: one team per
 *  block of rows, the team's threads over the rows, each thread's vector lanes over the
 *  columns, x staged in team scratch memory, and the block's partial sums kept in scratch.
 *
 *  The serial original:
 *
 *    for (r = 0; r < nrows; ++r) {
 *      double dot = 0;
 *      for (k = 0; k < ncols; ++k) dot += A[r][k] * x[k];
 *      y[r] = dot;
 *    }
 *    for (b = 0; b < nblocks; ++b) block_sum[b] = sum of y[r] over the rows of block b;
 *
 *  Answer: y and block_sum equal the serial loops' exactly (A and x hold small integers, so
 *  every sum is exact in any order): sum(y)=-18 sum(|y|)=15634.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutorial.h"

typedef struct {
  porta_view_f64 A;         /**< (nrows, ncols) */
  porta_view_f64 x;         /**< (ncols) */
  porta_view_f64 y;         /**< (nrows) */
  porta_view_f64 block_sum; /**< (league size): the sum of y over each block of rows */
  int64_t nrows, ncols, rows_per_team;
} matvec_args;

/* Kokkos: parallel_for(TeamPolicy<>(league, team_size, vector_length)
 *                        .set_scratch_size(0, PerTeam(bytes)),
 *                      KOKKOS_LAMBDA(const member_type &team) { ... }); */
PORTA_TEAM_FOR(matvec_k, matvec_args, a, team) {
  const int64_t row0 = team->league_rank * a->rows_per_team;
  const int64_t row1 = row0 + a->rows_per_team < a->nrows ? row0 + a->rows_per_team : a->nrows;

  /* Team scratch (Kokkos: team.team_scratch(0)): every member makes the same calls, in the
   * same order, and gets the same pointers. NULL if the policy asked for too little. */
  double *xs = (double *)porta_team_scratch(team, 0, (size_t)a->ncols * sizeof(double));
  double *ys = (double *)porta_team_scratch(team, 0, (size_t)a->rows_per_team * sizeof(double));

  /* 1. The whole team (every lane of every thread) copies x into scratch: x is read once per
   *    block instead of once per row. Then wait until all of it is there. */
  PORTA_TEAM_VECTOR_RANGE(team, k, 0, a->ncols) { xs[k] = PORTA_AT1(a->x, k); }
  porta_team_barrier(team);

  /* 2. The block's rows over the team's threads (Kokkos: TeamThreadRange); each row's dot
   *    product over the thread's vector lanes (ThreadVectorRange with a reduction). */
  PORTA_TEAM_THREAD_RANGE(team, r, row0, row1) {
    double dot;
    PORTA_THREAD_VECTOR_REDUCE(team, k, 0, a->ncols, porta_sum_f64, dot) {
      dot += PORTA_AT2(a->A, r, k) * xs[k];
    }
    PORTA_SINGLE_PER_THREAD(team) { ys[r - row0] = dot; } /* Kokkos: single(PerThread(team)) */
  }
  porta_team_barrier(team); /* every row's result is in ys */

  /* 3. Out of scratch: y, and the block's sum as a team-wide reduction over every lane
   *    (Kokkos: parallel_reduce(TeamVectorRange(team, n), ...)); every member must reach it. */
  PORTA_TEAM_VECTOR_RANGE(team, r, row0, row1) { PORTA_AT1(a->y, r) = ys[r - row0]; }
  double bsum;
  PORTA_TEAM_VECTOR_REDUCE(team, r, 0, row1 - row0, porta_sum_f64, bsum) { bsum += ys[r]; }
  PORTA_SINGLE_PER_TEAM(team) { PORTA_AT1(a->block_sum, team->league_rank) = bsum; }
}

int main(int argc, char **argv) {
  TUT_CHECK(porta_initialize(&argc, &argv));
  const porta_exec space = porta_exec_default();
  matvec_args a;
  a.nrows = 1000;
  a.ncols = 300;
  a.rows_per_team = 16;
  const int64_t league = (a.nrows + a.rows_per_team - 1) / a.rows_per_team; /* the last: 8 rows */
  int ok = 1;

  TUT_CHECK(porta_view_f64_create2(&a.A, "A", a.nrows, a.ncols));
  TUT_CHECK(porta_view_f64_create1(&a.x, "x", a.ncols));
  TUT_CHECK(porta_view_f64_create1(&a.y, "y", a.nrows));
  TUT_CHECK(porta_view_f64_create1(&a.block_sum, "block_sum", league));
  porta_mirror_f64 hx;
  porta_mirror_f64 hy;
  porta_mirror_f64 hA;
  porta_mirror_f64 hb;
  TUT_CHECK(porta_view_f64_create_mirror_view(&hA, &a.A));
  TUT_CHECK(porta_view_f64_create_mirror_view(&hx, &a.x));
  TUT_CHECK(porta_view_f64_create_mirror_view(&hy, &a.y));
  TUT_CHECK(porta_view_f64_create_mirror_view(&hb, &a.block_sum));
  for (int64_t r = 0; r < a.nrows; ++r)
    for (int64_t k = 0; k < a.ncols; ++k) PORTA_S2(hA, r, k) = (double)((r * 7 + k * 3) % 11 - 5);
  for (int64_t k = 0; k < a.ncols; ++k) PORTA_S1(hx, k) = (double)(k % 5 - 2);
  TUT_CHECK(porta_deep_copy(a.A, hA));
  TUT_CHECK(porta_deep_copy(a.x, hx));

  /* The policy: `league` teams of up to 4 threads with 8 vector lanes each (on the host a
   * team is team_size OpenMP threads and the lanes are a plain loop; on a GPU threads are
   * threadIdx.y and lanes threadIdx.x), and level-0 team scratch for x and the block's rows.
   * porta_scratch_size(bytes) is what one allocation of `bytes` uses, alignment included. */
  const int vector_length = 8;
  const size_t scratch = porta_scratch_size((size_t)a.ncols * sizeof(double)) +
                         porta_scratch_size((size_t)a.rows_per_team * sizeof(double));
  porta_team_policy policy = porta_team_policy_make(league, 1, vector_length);
  policy = porta_team_scratch_request(policy, 0, scratch, 0);
  int team_size = porta_team_size_max(space, policy); /* 1 on serial, the threads on OpenMP */
  if (team_size > 4) team_size = 4;
  if (team_size < 1) team_size = 1;
  policy.team_size = team_size;
  TUT_CHECK(PORTA_PARALLEL_FOR(matvec_k, space, policy, &a));

  TUT_CHECK(porta_deep_copy(hy, a.y));
  TUT_CHECK(porta_deep_copy(hb, a.block_sum));
  /* The serial loops. */
  int64_t bad = 0;
  double sum = 0.0, sum_abs = 0.0;
  for (int64_t b = 0; b < league; ++b) {
    double bs = 0.0;
    for (int64_t r = b * a.rows_per_team; r < a.nrows && r < (b + 1) * a.rows_per_team; ++r) {
      double dot = 0.0;
      for (int64_t k = 0; k < a.ncols; ++k) dot += PORTA_S2(hA, r, k) * PORTA_S1(hx, k);
      if (PORTA_S1(hy, r) != dot) {
        if (bad < 3) fprintf(stderr, "y(%lld) = %g, want %g\n", (long long)r, PORTA_S1(hy, r), dot);
        ++bad;
      }
      bs += dot;
      sum += PORTA_S1(hy, r);
      sum_abs += PORTA_S1(hy, r) < 0 ? -PORTA_S1(hy, r) : PORTA_S1(hy, r);
    }
    if (PORTA_S1(hb, b) != bs) {
      if (bad < 3)
        fprintf(stderr, "block_sum(%lld) = %g, want %g\n", (long long)b, PORTA_S1(hb, b), bs);
      ++bad;
    }
  }
  if (bad) ok = 0;

  printf("04_teams_scratch: backend=%s league=%lld team_size=%d vector_length=%d sum(y)=%.0f "
         "sum(|y|)=%.0f errors=%lld %s\n",
         porta_backend_name(space.backend), (long long)league, team_size, vector_length, sum,
         sum_abs, (long long)bad, ok ? "PASS" : "FAIL");
  porta_mirror_f64_release(&hA);
  porta_mirror_f64_release(&hx);
  porta_mirror_f64_release(&hy);
  porta_mirror_f64_release(&hb);
  porta_view_f64_release(&a.A);
  porta_view_f64_release(&a.x);
  porta_view_f64_release(&a.y);
  porta_view_f64_release(&a.block_sum);
  TUT_CHECK(porta_finalize());
  return ok ? 0 : 1;
}
