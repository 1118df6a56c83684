/** @file test_view_launch.c
 *  Views and launches: empty views (copies, fills, subviews, mirrors, growth) and empty
 *  launches (no body runs; identities from reduce, md-reduce and scan, deterministic too), and
 *  launch-descriptor mismatches (wrong pattern, wrong policy or rank, backwards ranges, no
 *  result, a missing back end) that are refused without touching the view.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "view_test_util.h"

/* ------------------------------------------------------------------------------------------ */
/* kernels                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Counts the indices it visits; reads the view when it has elements. */
typedef struct {
  porta_view_f64 v;
} count_args;
PORTA_REDUCE(count_k, count_args, a, i, porta_sum_i64, acc) {
  const double x = PORTA_AT1(a->v, i); /* a body run on an empty view reads out of bounds */
  *acc += x == 0.0 ? 1 : 1000;
}
PORTA_MDREDUCE2(count2_k, count_args, a, i, j, porta_sum_i64, acc) {
  (void)i;
  (void)j;
  *acc += 1;
}
PORTA_SCAN(count_scan_k, count_args, a, i, porta_sum_i64, upd, fin) {
  (void)i;
  *upd += 1;
}
PORTA_FOR(write_one_k, count_args, a, i) { PORTA_AT1(a->v, i) = 1.0; }
PORTA_MDFOR3(write_one3_k, count_args, a, i, j, k) {
  (void)i;
  (void)j;
  (void)k;
  PORTA_AT1(a->v, 0) = 1.0;
}

/* ------------------------------------------------------------------------------------------ */
/* empty views and empty launches                                                              */
/* ------------------------------------------------------------------------------------------ */

static void test_empty(void) {
  porta_view_f64 e1, e2, e3, f;
  PT_OK(porta_view_f64_create1(&e1, "empty1", 0));
  PT_OK(porta_view_f64_create2(&e2, "empty2", 0, 5));
  PT_OK(porta_view_f64_create2(&e3, "empty3", 5, 0));
  PT_EQ_I64(porta_size(e1), 0);
  PT_EQ_I64(porta_extent(e1, 0), 0);
  PT_EQ_I64(porta_size(e2), 0);
  PT_EQ_I64(porta_extent(e2, 1), 5);
  PT_EQ_I64(porta_size(e3), 0);
  PT_EQ_I64(porta_extent(e3, 0), 5);
  PT_EQ_I64(porta_view_meta_span_bytes(&e2.m), 0);
  PT_CHECK(porta_view_meta_contiguous(&e3.m));
  /* copies, fills and subviews of nothing succeed */
  PT_OK(porta_view_f64_create1(&f, "empty_f", 0));
  PT_OK(porta_deep_copy(f, e1));
  PT_OK(porta_view_f64_fill(e2, 3.0));
  porta_view_f64 s;
  porta_slice sl[2];
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_range(0, 0);
  PT_OK(porta_view_f64_subview(&s, &e3, sl));
  PT_EQ_I64(porta_rank(s), 2);
  PT_EQ_I64(porta_size(s), 0);
  porta_view_f64_release(&s);
  /* mirrors of nothing */
  porta_mirror_f64 m;
  PT_OK(porta_view_f64_create_mirror(&m, &e2));
  PT_EQ_I64(porta_size(m), 0);
  PT_EQ_I64(porta_extent(m, 1), 5);
  porta_mirror_f64_release(&m);
  /* an empty view grows */
  const int64_t four[1] = {4};
  PT_OK(porta_view_f64_resize(&e1, 1, four));
  PT_EQ_I64(porta_size(e1), 4);
  for (int64_t k = 0; k < 4; ++k) PT_EQ_F64(e1.data[k], 0.0);

  /* no body runs on an empty range: the count is the identity */
  count_args a;
  a.v = f;
  int64_t count = -1;
  const porta_exec ex = porta_exec_default();
  PT_OK(porta_parallel_reduce("count_empty", ex, porta_range(0, porta_extent(f, 0)), &count_k, &a,
                              &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce("count_empty", ex, porta_range(7, 7), &count_k, &a, &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce("count_empty", ex,
                              porta_range_schedule(3, 3, PORTA_SCHEDULE_DYNAMIC, 1), &count_k, &a,
                              &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce_md("count2_empty", ex, porta_mdrange2(0, 0, 0, 5), &count2_k, &a,
                                 &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce_md("count2_empty", ex, porta_mdrange2(0, 3, 2, 2), &count2_k, &a,
                                 &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_scan("scan_empty", ex, porta_range(4, 4), &count_scan_k, &a, &count));
  PT_EQ_I64(count, 0);
  /* and with deterministic reductions */
  porta_set_deterministic(1);
  count = -1;
  PT_OK(porta_parallel_reduce("count_empty_det", ex, porta_range(9, 9), &count_k, &a, &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce_md("count2_empty_det", ex, porta_mdrange2(1, 1, 0, 3), &count2_k, &a,
                                 &count));
  PT_EQ_I64(count, 0);
  porta_set_deterministic(0);
  /* writers over empty ranges touch nothing: e1 (4 elements, 0 everywhere) stays 0 */
  a.v = e1;
  PT_OK(porta_parallel_for("write_empty", ex, porta_range(2, 2), &write_one_k, &a));
  PT_OK(porta_parallel_for_md("write_empty3", ex, porta_mdrange3(0, 2, 0, 0, 0, 2), &write_one3_k,
                              &a));
  for (int64_t k = 0; k < 4; ++k) PT_EQ_F64(e1.data[k], 0.0);
  /* the counters do count on non-empty ranges */
  count = -1;
  PT_OK(porta_parallel_reduce("count", ex, porta_range(0, 4), &count_k, &a, &count));
  PT_EQ_I64(count, 4);
  count = -1;
  PT_OK(porta_parallel_reduce_md("count2", ex, porta_mdrange2(1, 4, 2, 7), &count2_k, &a, &count));
  PT_EQ_I64(count, 15);
  count = -1;
  PT_OK(porta_parallel_scan("scan", ex, porta_range(4, 10), &count_scan_k, &a, &count));
  PT_EQ_I64(count, 6);
  PT_OK(porta_parallel_for_md("write3", ex, porta_mdrange3(0, 2, 0, 1, 0, 2), &write_one3_k, &a));
  PT_EQ_F64(e1.data[0], 1.0);

  porta_view_f64_release(&e1);
  porta_view_f64_release(&e2);
  porta_view_f64_release(&e3);
  porta_view_f64_release(&f);
}

/* ------------------------------------------------------------------------------------------ */
/* launch errors                                                                               */
/* ------------------------------------------------------------------------------------------ */

static void test_launch_errors(void) {
  count_args a;
  const porta_exec ex = porta_exec_default();
  int64_t count = 0;
  PT_OK(porta_view_f64_create1(&a.v, "launch_v", 4));
  /* a reduce kernel launched as a for, and the other way round */
  porta_error_clear();
  PT_EXPECT_CODE(porta_parallel_for("mismatch", ex, porta_range(0, 4), &count_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("count_k");
  PT_MSG_HAS("mismatch");
  porta_error_clear();
  PT_EXPECT_CODE(
      porta_parallel_reduce("mismatch2", ex, porta_range(0, 4), &write_one_k, &a, &count),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("write_one_k");
  PT_EXPECT_CODE(porta_parallel_scan("mismatch3", ex, porta_range(0, 4), &count_k, &a, &count),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* a range kernel over an mdrange, an mdrange kernel of the wrong rank */
  PT_EXPECT_CODE(
      porta_parallel_for_md("mismatch4", ex, porta_mdrange2(0, 1, 0, 1), &write_one_k, &a),
      PORTA_ERROR_INVALID_ARGUMENT);
  porta_error_clear();
  PT_EXPECT_CODE(
      porta_parallel_for_md("mismatch5", ex, porta_mdrange2(0, 1, 0, 1), &write_one3_k, &a),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("write_one3_k");
  /* begin > end */
  porta_error_clear();
  PT_EXPECT_CODE(porta_parallel_for("backwards", ex, porta_range(5, 3), &write_one_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("backwards");
  PT_EXPECT_CODE(porta_parallel_reduce("backwards", ex, porta_range(1, 0), &count_k, &a, &count),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce_md("backwards_md", ex, porta_mdrange2(0, 2, 3, 1), &count2_k,
                                          &a, &count),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* no result pointer */
  PT_EXPECT_CODE(porta_parallel_reduce("no_result", ex, porta_range(0, 4), &count_k, &a, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* the CUDA back end, where it is not there */
  if (!porta_backend_available(PORTA_BACKEND_CUDA)) {
    porta_error_clear();
    PT_EXPECT_CODE(porta_parallel_for("on_cuda", porta_exec_backend(PORTA_BACKEND_CUDA),
                                      porta_range(0, 4), &write_one_k, &a),
                   PORTA_ERROR_UNSUPPORTED);
    PT_MSG_HAS("cuda");
    PT_MSG_HAS("on_cuda");
    if (!write_one_k.launch[PORTA_BACKEND_CUDA]) PT_MSG_HAS("write_one_k");
    porta_error_clear();
    PT_EXPECT_CODE(porta_parallel_reduce("on_cuda_reduce", porta_exec_backend(PORTA_BACKEND_CUDA),
                                         porta_range(0, 4), &count_k, &a, &count),
                   PORTA_ERROR_UNSUPPORTED);
    if (!count_k.launch[PORTA_BACKEND_CUDA]) PT_MSG_HAS("count_k");
  }
  /* the view was never written by any of the refused launches */
  int64_t bad = 0;
  for (int k = 0; k < 4; ++k) bad += a.v.data[k] != 0.0;
  PT_EQ_I64(bad, 0);
  /* and a correct launch still works afterwards */
  PT_OK(porta_parallel_reduce("count_ok", ex, porta_range(0, 4), &count_k, &a, &count));
  PT_EQ_I64(count, 4);
  porta_view_f64_release(&a.v);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_empty);
  PT_RUN(test_launch_errors);
  PT_END();
}
