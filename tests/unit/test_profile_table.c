/** @file test_profile_table.c
 *  The built-in per-kernel time table (--porta-profile): calls counted per
 *  label and pattern, looked up with porta_profile_table_entry, and the table
 *  printed by porta_profiling_finalize (rows, columns, sorted by total time).
 *  Then, without --porta-profile and without tools, profiling is off.
 *  No timing is asserted beyond times being non-negative and consistent.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct tp_args {
  porta_view_i64 x;
} tp_args;

PORTA_FOR(tp_fill, tp_args, a, i) { PORTA_AT1(a->x, i) = i; }

PORTA_REDUCE(tp_sum, tp_args, a, i, porta_sum_i64, acc) { *acc += PORTA_AT1(a->x, i); }

PORTA_SCAN(tp_scan, tp_args, a, i, porta_sum_i64, upd, is_final) {
  (void)is_final;
  *upd += PORTA_AT1(a->x, i);
}

static const int64_t N = 1000;

static void test_counts(void) {
  PT_CHECK(porta_profiling_enabled() != 0);
  PT_EQ_I64(porta_profiling_table_enabled(), 1);
  PT_EQ_I64(porta_profiling_num_tools(), 0);
  tp_args a;
  PT_OK(porta_view_i64_create1(&a.x, "tp_x", N));
  porta_exec ex = porta_exec_default();
  for (int k = 0; k < 3; ++k)
    PT_OK(porta_parallel_for("tp_kernel", ex, porta_range(0, N), &tp_fill, &a));
  int64_t s = 0;
  for (int k = 0; k < 2; ++k) {
    PT_OK(porta_parallel_reduce("tp_reduce", ex, porta_range(0, N), &tp_sum, &a, &s));
    PT_EQ_I64(s, N * (N - 1) / 2);
  }
  PT_OK(porta_parallel_scan("tp_scan", ex, porta_range(0, N), &tp_scan, &a, &s));
  PT_EQ_I64(s, N * (N - 1) / 2);
  /* One label, two patterns: two rows, summed by the lookup. */
  PT_OK(porta_parallel_for("tp_shared", ex, porta_range(0, N), &tp_fill, &a));
  PT_OK(porta_parallel_reduce("tp_shared", ex, porta_range(0, N), &tp_sum, &a, &s));
  /* A failed launch (bad range) is not counted. */
  PT_EXPECT_CODE(porta_parallel_for("tp_kernel", ex, porta_range(5, 1), &tp_fill, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  porta_view_i64_release(&a.x);

  int64_t calls = -1;
  double seconds = -1.0;
  PT_OK(porta_profile_table_entry("tp_kernel", &calls, &seconds));
  PT_EQ_I64(calls, 3);
  PT_CHECK(seconds >= 0.0);
  PT_OK(porta_profile_table_entry("tp_reduce", &calls, NULL));
  PT_EQ_I64(calls, 2);
  PT_OK(porta_profile_table_entry("tp_scan", &calls, NULL));
  PT_EQ_I64(calls, 1);
  PT_OK(porta_profile_table_entry("tp_shared", &calls, NULL));
  PT_EQ_I64(calls, 2);
  PT_EXPECT_CODE(porta_profile_table_entry("tp_never_ran", &calls, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_CHECK(strstr(porta_last_error_message(), "tp_never_ran") != NULL);
  /* Fences and copies are not kernels. */
  PT_OK(porta_fence("tp_fence"));
  PT_EXPECT_CODE(porta_profile_table_entry("tp_fence", &calls, NULL), PORTA_ERROR_INVALID_ARGUMENT);
}

/** A printed row: label, type, calls, total s, mean us, %. */
typedef struct row {
  char label[64], type[16];
  long long calls;
  double total, mean, pct;
} row;

static void test_printed_table(void) {
  FILE *f = tmpfile();
  PT_CHECK(f != NULL);
  if (!f) return;
  porta_profiling_finalize(f);
  PT_EQ_I64(porta_profiling_enabled(), 0);
  PT_EQ_I64(porta_profiling_table_enabled(), 0);
  rewind(f);
  char line[512];
  PT_CHECK(fgets(line, sizeof line, f) != NULL);
  PT_CHECK(strstr(line, "5 kernel(s), 8 launch(es)") != NULL);
  PT_CHECK(fgets(line, sizeof line, f) != NULL);
  PT_CHECK(strstr(line, "label") && strstr(line, "type") && strstr(line, "calls") &&
           strstr(line, "total s") && strstr(line, "mean us") && strstr(line, "%"));
  row rows[8];
  int n = 0;
  while (n < 8 && fgets(line, sizeof line, f)) {
    row *r = &rows[n];
    if (sscanf(line, "%63s %15s %lld %lf %lf %lf", r->label, r->type, &r->calls, &r->total,
               &r->mean, &r->pct) == 6)
      ++n;
  }
  fclose(f);
  PT_EQ_I64(n, 5);
  int found = 0;
  double pct = 0.0;
  for (int i = 0; i < n; ++i) {
    const row *r = &rows[i];
    pct += r->pct;
    if (i > 0) PT_CHECK(rows[i - 1].total >= r->total); /* sorted by total time */
    PT_CHECK(r->mean >= 0.0);
    if (!strcmp(r->label, "tp_kernel")) {
      PT_CHECK(!strcmp(r->type, "for"));
      PT_EQ_I64(r->calls, 3);
      found |= 1;
    } else if (!strcmp(r->label, "tp_reduce")) {
      PT_CHECK(!strcmp(r->type, "reduce"));
      PT_EQ_I64(r->calls, 2);
      found |= 2;
    } else if (!strcmp(r->label, "tp_scan")) {
      PT_CHECK(!strcmp(r->type, "scan"));
      PT_EQ_I64(r->calls, 1);
      found |= 4;
    } else if (!strcmp(r->label, "tp_shared")) {
      PT_CHECK(!strcmp(r->type, "for") || !strcmp(r->type, "reduce"));
      PT_EQ_I64(r->calls, 1);
      found |= !strcmp(r->type, "for") ? 8 : 16;
    }
  }
  PT_EQ_I64(found, 31);
  /* The percentages add up (unless every time rounded to zero). */
  PT_CHECK(pct == 0.0 || (pct > 99.9 && pct < 100.1));
  /* Off now: lookups fail, a second finalise does nothing. */
  PT_EXPECT_CODE(porta_profile_table_entry("tp_kernel", NULL, NULL), PORTA_ERROR_INVALID_ARGUMENT);
  porta_profiling_finalize(stdout);
}

/** Initialised again without --porta-profile and without tools: off, one branch. */
static void test_off(void) {
  PT_OK(porta_finalize());
  PT_OK(porta_initialize(NULL, NULL));
  PT_EQ_I64(porta_profiling_enabled(), 0);
  PT_EQ_I64(porta_profiling_table_enabled(), 0);
  tp_args a;
  PT_OK(porta_view_i64_create1(&a.x, "tp_x", N));
  PT_OK(porta_parallel_for("tp_kernel", porta_exec_default(), porta_range(0, N), &tp_fill, &a));
  porta_view_i64_release(&a.x);
  PT_EXPECT_CODE(porta_profile_table_entry("tp_kernel", NULL, NULL), PORTA_ERROR_INVALID_ARGUMENT);
  /* Regions work (and are checked) without tools too. */
  PT_OK(porta_push_region("r"));
  PT_OK(porta_pop_region());
  PT_EXPECT_CODE(porta_pop_region(), PORTA_ERROR_INVALID_ARGUMENT);
}

int main(int argc, char **argv) {
  /* This test is about the table alone: no tools from the caller's environment, and
   * PORTA_PROFILE only through the command line. */
  unsetenv("KOKKOS_TOOLS_LIBS");
  unsetenv("KOKKOS_PROFILE_LIBRARY");
  unsetenv("PORTA_PROFILE");
  char profile[] = "--porta-profile";
  char *args[16];
  int nargs = 0;
  for (int i = 0; i < argc && nargs < 14; ++i) args[nargs++] = argv[i];
  args[nargs++] = profile;
  args[nargs] = NULL;
  char **pargs = args;
  PT_BEGIN(nargs, pargs);
  PT_RUN(test_counts);
  PT_RUN(test_printed_table);
  PT_RUN(test_off);
  PT_END();
}
