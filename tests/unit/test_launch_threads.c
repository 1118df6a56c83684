/** @file test_launch_threads.c
 *  Where a host launch runs its body. On OpenMP with several threads: in a parallel region
 *  (omp_get_level() 1). With one thread (an MPI rank of one thread, the usual MPI-only run): on
 *  the calling thread, outside any region (level 0), as Serial, since libgomp builds and frees a
 *  team for every region even of one thread. Every host pattern reports the level its body saw
 *  (range for with the static and the dynamic schedule, reduce in default and deterministic
 *  mode, scan, mdrange for and reduce) and still visits every index exactly once with the
 *  right result. A CUDA body has no OpenMP level: that back end only checks the visits.
 */
#include <stdint.h>

#include "harness.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

/** The OpenMP nesting level the calling body runs at (0 outside any region); -1 on a device. */
PORTA_INLINE_FUNCTION int64_t pt_level(void) {
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
  return (int64_t)omp_get_level();
#else
  return -1;
#endif
}

typedef struct {
  porta_view_i64 level; /**< the level each index's body saw */
  porta_view_i64 count; /**< visits per index */
} lt_args;

PORTA_FOR(lt_for, lt_args, a, i) {
  PORTA_AT1(a->level, i) = pt_level();
  porta_atomic_add_i64(&PORTA_AT1(a->count, i), 1);
}

PORTA_REDUCE(lt_reduce, lt_args, a, i, porta_sum_i64, acc) {
  PORTA_AT1(a->level, i) = pt_level();
  porta_atomic_add_i64(&PORTA_AT1(a->count, i), 1);
  *acc += i;
}

PORTA_SCAN(lt_scan, lt_args, a, i, porta_sum_i64, upd, fin) {
  if (fin) {
    PORTA_AT1(a->level, i) = pt_level();
    porta_atomic_add_i64(&PORTA_AT1(a->count, i), 1);
  }
  *upd += 1;
}

PORTA_MDFOR2(lt_mdfor, lt_args, a, k, j) {
  PORTA_AT1(a->level, k * 100 + j) = pt_level();
  porta_atomic_add_i64(&PORTA_AT1(a->count, k * 100 + j), 1);
}

PORTA_MDREDUCE2(lt_mdreduce, lt_args, a, k, j, porta_sum_i64, acc) {
  PORTA_AT1(a->level, k * 100 + j) = pt_level();
  porta_atomic_add_i64(&PORTA_AT1(a->count, k * 100 + j), 1);
  *acc += 1;
}

/** Indices of the launches: [0, N) for ranges, k * 100 + j of the box [0, 50) x [0, 100). */
#define LT_N 5000

/** The level a host body should see on this back end and thread count. */
static int64_t expected_level(void) {
  if (porta_exec_default().backend != PORTA_BACKEND_OPENMP) return 0;
  return porta_num_threads() > 1 ? 1 : 0;
}

/** Clear the views, run `launch`, then check that every index ran once at the expected level. */
static void check(const char *what, lt_args *a, int (*launch)(lt_args *)) {
  PT_OK(porta_view_i64_fill(a->level, -7));
  PT_OK(porta_view_i64_fill(a->count, 0));
  PT_OK(launch(a));
  PT_OK(porta_fence("check"));
  const int device = porta_exec_default().backend == PORTA_BACKEND_CUDA;
  const int64_t want = expected_level();
  int64_t bad_count = 0, bad_level = 0;
  for (int64_t i = 0; i < LT_N; ++i) {
    bad_count += a->count.data[i] != 1;
    bad_level += !device && a->level.data[i] != want;
  }
  if (bad_count || bad_level)
    fprintf(stderr, "  %s: %lld indices not visited once, %lld not at level %lld (index 0: %lld)\n",
            what, (long long)bad_count, (long long)bad_level, (long long)want,
            (long long)a->level.data[0]);
  PT_EQ_I64(bad_count, 0);
  PT_EQ_I64(bad_level, 0);
}

static int run_for_static(lt_args *a) {
  return porta_parallel_for("lt_for", porta_exec_default(), porta_range(0, LT_N), &lt_for, a);
}

static int run_for_dynamic(lt_args *a) {
  return porta_parallel_for("lt_for_dyn", porta_exec_default(),
                            porta_range_schedule(0, LT_N, PORTA_SCHEDULE_DYNAMIC, 64), &lt_for, a);
}

static int run_reduce(lt_args *a) {
  int64_t sum = -1;
  int rc = porta_parallel_reduce("lt_reduce", porta_exec_default(), porta_range(0, LT_N),
                                 &lt_reduce, a, &sum);
  PT_EQ_I64(sum, (int64_t)LT_N * (LT_N - 1) / 2);
  return rc;
}

static int run_scan(lt_args *a) {
  int64_t total = -1;
  int rc = porta_parallel_scan("lt_scan", porta_exec_default(), porta_range(0, LT_N), &lt_scan, a,
                               &total);
  PT_EQ_I64(total, LT_N);
  return rc;
}

static int run_mdfor(lt_args *a) {
  return porta_parallel_for_md("lt_mdfor", porta_exec_default(), porta_mdrange2(0, 50, 0, 100),
                               &lt_mdfor, a);
}

static int run_mdreduce(lt_args *a) {
  int64_t cells = -1;
  int rc = porta_parallel_reduce_md("lt_mdreduce", porta_exec_default(),
                                    porta_mdrange2(0, 50, 0, 100), &lt_mdreduce, a, &cells);
  PT_EQ_I64(cells, LT_N);
  return rc;
}

static void test_every_pattern_runs_where_expected(void) {
  lt_args a;
  PT_OK(porta_view_i64_create1(&a.level, "level", LT_N));
  PT_OK(porta_view_i64_create1(&a.count, "count", LT_N));
  const int det = porta_deterministic();
  for (int mode = 0; mode < 2; ++mode) {
    porta_set_deterministic(mode);
    check("for, static", &a, run_for_static);
    check("for, dynamic", &a, run_for_dynamic);
    check("reduce", &a, run_reduce);
    check("scan", &a, run_scan);
    check("mdrange for", &a, run_mdfor);
    check("mdrange reduce", &a, run_mdreduce);
  }
  porta_set_deterministic(det);
  porta_view_i64_release(&a.level);
  porta_view_i64_release(&a.count);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_every_pattern_runs_where_expected);
  PT_END();
}
