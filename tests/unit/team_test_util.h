/** @file team_test_util.h
 *  What the team-policy tests share (test_team_policy.c, test_team_scratch.c,
 *  test_team_nested.c, test_team_collectives.c): the league sizes and team
 *  shapes every test runs (team size 1, the largest team size (2 with two OpenMP threads),
 *  PORTA_AUTO, the largest with 4 lanes), a pseudo-random value per index and the report of a
 *  count of wrong values. The functions are static inline, so a program that uses only some of
 *  them gets no unused-function warnings.
 */
#ifndef PORTA_TEAM_TEST_UTIL_H
#define PORTA_TEAM_TEST_UTIL_H

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
static inline int pt_team_max(int vector_length) {
  int max = porta_team_size_max(porta_exec_default(), porta_team_policy_make(1, 1, vector_length));
  return max < 32 ? max : 32;
}

/** The shapes every test runs: 1, the largest team, AUTO, and the largest with 4 lanes. */
static inline int pt_shapes(pt_shape *s) {
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

static inline void report_bad(const char *what, int64_t bad, const pt_shape *s, int64_t league) {
  if (bad)
    fprintf(stderr, "  %s: %lld bad (team size %d, vector length %d, league %lld)\n", what,
            (long long)bad, (int)s->team_size, (int)s->vector_length, (long long)league);
  PT_EQ_I64(bad, 0);
}

#endif /* PORTA_TEAM_TEST_UTIL_H */
