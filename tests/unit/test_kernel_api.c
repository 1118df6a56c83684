/** @file test_kernel_api.c
 *  The kernel macros' contract with user code, on every back end:
 *  - hygiene: argument structs named `args`, `result` and `L` (names the generated launchers
 *    once used for their own parameters) compile and run;
 *  - each kernel macro defines NAME_args_t (and NAME_value_t for reductions), the types that
 *    typed launches check, and PORTA_DECLARE_KERNEL(NAME, ARGS_T[, R]) repeats them;
 *  - typed launches (PORTA_PARALLEL_FOR / REDUCE / SCAN) for every pattern, the policy's type
 *    picking range, box or team; the result contract: *result is overwritten, never read (a
 *    garbage value before the call does not leak in; an empty range gives the identity; a
 *    failed launch leaves it); the label is the kernel's name or the _LABELED form's;
 *  - porta_exec_query: the traits of the execution space match what the back end does (one
 *    thread, host threads, a device), and the staging space is host-accessible.
 */
#include <float.h>

#include "harness.h"

typedef struct {
  porta_view_f64 x;
  double a;
} args;
typedef struct {
  porta_view_f64 x;
} result;
typedef struct {
  porta_view_i64 hits;
} L;

PORTA_FOR(scale_args, args, p, i) { PORTA_AT1(p->x, i) *= p->a; }
PORTA_REDUCE(sum_result, result, p, i, porta_sum_f64, acc) { *acc += PORTA_AT1(p->x, i); }
PORTA_MDFOR3(count_l, L, p, i, j, k) {
  porta_atomic_add_i64(&PORTA_AT1(p->hits, 0), 1 + 0 * (i + j + k));
}

/* A declaration beside the definition repeats the same types (allowed in C11 and C++). */
PORTA_DECLARE_KERNEL(scale_args, args)
PORTA_DECLARE_KERNEL(sum_result, result, porta_sum_f64)

#ifndef __cplusplus
_Static_assert(_Generic((scale_args_args_t *)0, args * : 1, default : 0), "NAME_args_t");
_Static_assert(_Generic((sum_result_value_t *)0, double * : 1, default : 0), "NAME_value_t");
_Static_assert(_Generic((count_l_args_t *)0, L * : 1, default : 0), "NAME_args_t (MD)");
#endif

static void test_hygiene(void) {
  porta_exec ex = porta_exec_default();
  const int64_t n = 1000;
  args a;
  result r;
  L l;
  PT_OK(porta_view_f64_create1(&a.x, "x", n));
  PT_OK(porta_view_i64_create1(&l.hits, "hits", 1));
  porta_mirror_f64 hx;
  PT_OK(porta_view_f64_create_mirror_view(&hx, &a.x));
  for (int64_t i = 0; i < n; ++i) hx.data[i] = (double)(i + 1);
  PT_OK(porta_deep_copy(a.x, hx));
  a.a = 2.0;
  PT_OK(porta_parallel_for("scale", ex, porta_range(0, n), &scale_args, &a));
  r.x = a.x;
  double sum = -1;
  PT_OK(porta_parallel_reduce("sum", ex, porta_range(0, n), &sum_result, &r, &sum));
  PT_EQ_F64(sum, 2.0 * (double)n * (double)(n + 1) / 2);
  PT_OK(porta_view_i64_fill(l.hits, 0));
  PT_OK(porta_parallel_for_md("count", ex, porta_mdrange3(0, 3, 1, 6, 2, 9), &count_l, &l));
  /* the typed launch's checks name no type of their own either */
  const L *cl = &l;
  PT_OK(PORTA_PARALLEL_FOR_LABELED("count", count_l, ex, porta_mdrange3(0, 3, 1, 6, 2, 9), cl));
  porta_mirror_i64 hh;
  PT_OK(porta_view_i64_create_mirror_view(&hh, &l.hits));
  PT_OK(porta_deep_copy(hh, l.hits));
  PT_EQ_I64(hh.data[0], 2 * 3 * 5 * 7);
  porta_mirror_i64_release(&hh);
  porta_mirror_f64_release(&hx);
  porta_view_i64_release(&l.hits);
  porta_view_f64_release(&a.x);
}

PORTA_REDUCE(min_of, args, p, i, porta_min_f64, acc) {
  if (PORTA_AT1(p->x, i) < *acc) *acc = PORTA_AT1(p->x, i);
}
PORTA_SCAN(prefix_of, args, p, i, porta_sum_f64, upd, fin) {
  (void)fin;
  *upd += PORTA_AT1(p->x, i);
}
PORTA_MDREDUCE2(box_sum, args, p, i, j, porta_sum_f64, acc) {
  *acc += PORTA_AT1(p->x, i) * (double)(j + 1);
}
PORTA_TEAM_REDUCE(team_sum, args, p, t, porta_sum_f64, acc) {
  PORTA_TEAM_THREAD_RANGE(t, i, 0, 10) { *acc += PORTA_AT1(p->x, t->league_rank * 10 + i); }
}

static void test_typed_launch(void) {
  const porta_exec ex = porta_exec_default();
  const int64_t n = 1000;
  args a;
  a.a = 3.0;
  PT_OK(porta_view_f64_create1(&a.x, "x", n));
  PT_OK(porta_view_f64_fill(a.x, 1.0));
  const args *ca = &a;
  PT_OK(PORTA_PARALLEL_FOR(scale_args, ex, porta_range(0, n), ca)); /* x = 3 */
  double garbage;
  const uint64_t bits = 0x7ff8dead0000beefull; /* a NaN: read by mistake, it would stay NaN */
  memcpy(&garbage, &bits, sizeof garbage);
  double sum = garbage, lo = garbage, total = garbage, box = garbage, team = garbage;
  PT_OK(PORTA_PARALLEL_REDUCE(min_of, ex, porta_range(0, n), &a, &lo));
  PT_EQ_F64(lo, 3.0);
  PT_OK(PORTA_PARALLEL_SCAN(prefix_of, ex, porta_range(0, n), &a, &total));
  PT_EQ_F64(total, 3.0 * (double)n);
  PT_OK(PORTA_PARALLEL_SCAN(prefix_of, ex, porta_range(0, n), &a, NULL));
  PT_OK(PORTA_PARALLEL_REDUCE(box_sum, ex, porta_mdrange2(0, n, 0, 4), &a, &box));
  PT_EQ_F64(box, 3.0 * (double)n * 10.0);
  PT_OK(PORTA_PARALLEL_REDUCE(team_sum, ex, porta_team_policy_make(n / 10, PORTA_AUTO, 1), &a,
                              &team));
  PT_EQ_F64(team, 3.0 * (double)n);
  /* empty ranges: the reducer's identity, whatever *result held */
  sum = garbage;
  lo = garbage;
  result r;
  r.x = a.x;
  PT_OK(PORTA_PARALLEL_REDUCE(sum_result, ex, porta_range(5, 5), &r, &sum));
  PT_EQ_F64(sum, 0.0);
  PT_OK(PORTA_PARALLEL_REDUCE(min_of, ex, porta_range(0, 0), &a, &lo));
  PT_CHECK(lo == HUGE_VAL || lo == DBL_MAX);
  box = garbage;
  PT_OK(PORTA_PARALLEL_REDUCE(box_sum, ex, porta_mdrange2(0, 0, 0, 4), &a, &box));
  PT_EQ_F64(box, 0.0);
  total = garbage;
  PT_OK(PORTA_PARALLEL_SCAN(prefix_of, ex, porta_range(7, 7), &a, &total));
  PT_EQ_F64(total, 0.0);
  porta_view_f64_release(&a.x);
}

/* The label: the kernel's name, or the caller's (_LABELED); a failed launch leaves *result. */
static void test_typed_labels(void) {
  const porta_exec ex = porta_exec_default();
  args a;
  a.a = 1.0;
  PT_OK(porta_view_f64_create1(&a.x, "x", 8));
  PT_OK(porta_view_f64_fill(a.x, 2.0));
  /* (the codes through a variable: PT_EXPECT_CODE would print the whole expansion) */
  int rc = PORTA_PARALLEL_FOR(scale_args, ex, porta_range(5, 2), &a);
  PT_EQ_I64(rc, PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("scale_args");
  rc = PORTA_PARALLEL_FOR_LABELED("scale_halo", scale_args, ex, porta_range(5, 2), &a);
  PT_EQ_I64(rc, PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("scale_halo");
  double lo = 7.0, total = -1.0;
  rc = PORTA_PARALLEL_REDUCE_LABELED("min_bad", min_of, ex, porta_range(5, 2), &a, &lo);
  PT_EQ_I64(rc, PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("min_bad");
  PT_EQ_F64(lo, 7.0);
  PT_OK(PORTA_PARALLEL_REDUCE_LABELED("min_ok", min_of, ex, porta_range(0, 8), &a, &lo));
  PT_EQ_F64(lo, 2.0);
  PT_OK(PORTA_PARALLEL_SCAN_LABELED("prefix_ok", prefix_of, ex, porta_range(0, 8), &a, &total));
  PT_EQ_F64(total, 16.0);
  porta_view_f64_release(&a.x);
}

static void test_traits(void) {
  const porta_exec ex = porta_exec_default();
  const porta_exec_traits t = porta_exec_query(ex);
  PT_EQ_I64(t.memory_space, porta_exec_memory_space(ex));
  PT_CHECK(porta_space_accessible(PORTA_BACKEND_SERIAL, t.staging_space));
  PT_CHECK(porta_space_accessible(ex.backend, t.staging_space));
  PT_EQ_I64(t.on_device, porta_device_id() >= 0);
  if (t.on_device) {
    PT_CHECK(!t.single_threaded && !t.host_threads && t.async_instances);
    PT_CHECK(!porta_space_accessible(PORTA_BACKEND_SERIAL, t.memory_space));
    /* the device's memory, what the apps check their arrays against: a GPU's, 1 GiB to 1 TiB */
    PT_CHECK(t.device_memory_bytes >= 1073741824.0 && t.device_memory_bytes <= 1099511627776.0);
  } else {
    PT_EQ_I64(t.device_memory_bytes, 0);
    PT_EQ_I64(t.staging_space, PORTA_HOST_SPACE);
    PT_EQ_I64(t.single_threaded, !t.host_threads || porta_num_threads() == 1);
    PT_CHECK(!t.async_instances);
    PT_CHECK(t.cheap_atomics || !t.single_threaded);
  }
  /* Serial is one thread everywhere; no back end is both on a device and host-threaded */
  const porta_exec_traits s = porta_exec_query(porta_exec_backend(PORTA_BACKEND_SERIAL));
  PT_CHECK(s.single_threaded && !s.on_device && !s.host_threads && !s.async_instances);
  PT_CHECK(!(t.on_device && t.host_threads));
  /* an unusable back end id: all zero, host spaces */
  porta_exec bad = ex;
  bad.backend = PORTA_NUM_BACKENDS;
  const porta_exec_traits z = porta_exec_query(bad);
  PT_CHECK(!z.on_device && !z.host_threads && !z.single_threaded && z.staging_space == 0);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_hygiene);
  PT_RUN(test_typed_launch);
  PT_RUN(test_typed_labels);
  PT_RUN(test_traits);
  PT_END();
}
