/** @file test_scratch_size.c
 *  porta_scratch_size(bytes): the bytes one scratch allocation of `bytes` uses, so that a
 *  request summed from it fits a team's allocations exactly (Kokkos's shmem_size):
 *  - the value: a multiple of PORTA_SCRATCH_ALIGN, at least `bytes`, less than bytes + align;
 *  - a team policy requesting the sum for allocations of 29, 3, 16 and 8 bytes gets every one
 *    of them, aligned, on every back end, at levels 0 and 1, team-shared and per thread;
 *  - the sum over-asks by the last allocation's padding only: a request one byte short of the
 *    end of the last allocation makes that one NULL (no back end gives more than asked).
 */
#include "harness.h"

#define NSIZES 4
static const size_t sizes[NSIZES] = {29, 3, 16, 8};

typedef struct {
  porta_view_i64 got; /**< (league): allocations that came back usable, team and thread */
  int level;
} fit_args;

PORTA_TEAM_FOR(fit_k, fit_args, a, t) {
  const size_t sz[NSIZES] = {29, 3, 16, 8};
  int64_t team_ok = 0, thread_ok = 0;
  for (int k = 0; k < NSIZES; ++k) {
    char *p = (char *)porta_team_scratch(t, a->level, sz[k]);
    team_ok += p != NULL && ((uintptr_t)p % PORTA_SCRATCH_ALIGN) == 0;
    char *q = (char *)porta_thread_scratch(t, a->level, sz[k]);
    thread_ok += q != NULL && ((uintptr_t)q % PORTA_SCRATCH_ALIGN) == 0;
    if (q) q[sz[k] - 1] = (char)k; /* the last byte is this thread's */
  }
  PORTA_SINGLE_PER_TEAM(t) { PORTA_AT1(a->got, t->league_rank) = team_ok * 10 + thread_ok; }
}

static int64_t run(int level, size_t short_by) {
  const int64_t league = 6;
  fit_args a;
  a.level = level;
  PT_OK(porta_view_i64_create1(&a.got, "got", league));
  size_t need = 0;
  for (int k = 0; k < NSIZES; ++k) need += porta_scratch_size(sizes[k]);
  porta_team_policy p = porta_team_policy_make(league, PORTA_AUTO, 1);
  p = porta_team_scratch_request(p, level, need - short_by, need - short_by);
  PT_OK(PORTA_PARALLEL_FOR(fit_k, porta_exec_default(), p, &a));
  porta_mirror_i64 h;
  PT_OK(porta_view_i64_create_mirror(&h, &a.got));
  PT_OK(porta_deep_copy(h, a.got));
  int64_t first = PORTA_S1(h, 0), same = 1;
  for (int64_t i = 1; i < league; ++i) same &= PORTA_S1(h, i) == first;
  PT_CHECK(same);
  porta_mirror_i64_release(&h);
  porta_view_i64_release(&a.got);
  return first;
}

static void test_value(void) {
  PT_EQ_I64((int64_t)porta_scratch_size(0), 0);
  for (size_t b = 1; b < 100; ++b) {
    const size_t s = porta_scratch_size(b);
    PT_CHECK(s % PORTA_SCRATCH_ALIGN == 0 && s >= b && s < b + PORTA_SCRATCH_ALIGN);
  }
}

static void test_fits(void) {
  for (int level = 0; level < 2; ++level) {
    PT_EQ_I64(run(level, 0), 10 * NSIZES + NSIZES);
    const size_t last = sizes[NSIZES - 1], pad = porta_scratch_size(last) - last;
    PT_EQ_I64(run(level, pad), 10 * NSIZES + NSIZES);
    PT_EQ_I64(run(level, pad + 1), 10 * (NSIZES - 1) + (NSIZES - 1));
  }
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_value);
  PT_RUN(test_fits);
  PT_END();
}
