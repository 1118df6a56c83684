/** @file bench_timing.c
 *  The benchmarks' timing harness and table helpers (bench_timing.h). */
#include "bench_timing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

static int cmp_double(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

double bench_median(const double *t, int k, double *min_out) {
  double *s = (double *)malloc((size_t)k * sizeof(double));
  double med;
  memcpy(s, t, (size_t)k * sizeof(double));
  qsort(s, (size_t)k, sizeof(double), cmp_double);
  med = k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
  if (min_out) *min_out = s[0];
  free(s);
  return med;
}

double bench_paired_median(const double *x, const double *y, int k, int ratio) {
  double *q = (double *)malloc((size_t)k * sizeof(double)), med;
  for (int i = 0; i < k; ++i) q[i] = ratio ? x[i] / y[i] : x[i] - y[i];
  med = bench_median(q, k, NULL);
  free(q);
  return med;
}

void bench_row_stats(bench_row *r, const double *tp, const double *th, int reps) {
  r->p_med = bench_median(tp, reps, &r->p_min);
  r->h_med = bench_median(th, reps, &r->h_min);
  r->ratio = bench_paired_median(th, tp, reps, 1);
  r->ran = 1;
}

void bench_crit_ratio(bench_row *r, double need, const char *what) {
  r->has_crit = 1;
  r->crit_ok = r->ratio >= need;
  snprintf(r->accept, sizeof r->accept, ">= %.2f %s: %.3f %s", need, what, r->ratio,
           r->crit_ok ? "PASS" : "MISS");
}

int bench_porta_set(int r) { return r < 0 ? 1 : r % 2; }
int bench_porta_first(int r) { return !bench_porta_set(r); }

void bench_abba(int reps, int warm_porta_first, bench_side_fn side, void *ctx, double *tp,
                double *th) {
  for (int r = -1; r < reps; ++r) {
    const int porta_first = r < 0 ? warm_porta_first : bench_porta_first(r);
    for (int s = 0; s < 2; ++s) {
      const int porta = (s == 0) == porta_first;
      const double t = side(ctx, porta, r);
      if (r >= 0) (porta ? tp : th)[r] = t;
    }
  }
}

void bench_note_rc(const char *prog, int *porta_rc, int rc) {
  if (rc != PORTA_SUCCESS) {
    if (!*porta_rc) fprintf(stderr, "%s: %s\n", prog, porta_last_error_message());
    *porta_rc |= 1;
  }
}

void bench_fmt_time(char *buf, size_t len, double t, int us) {
  if (us)
    snprintf(buf, len, "%.3f us", t * 1e6);
  else
    snprintf(buf, len, "%.3f ms", t * 1e3);
}

void bench_fmt_rate(char *buf, size_t len, double bytes, double t, double scale, int digits) {
  if (bytes > 0 && t > 0)
    snprintf(buf, len, "%.*f", digits, bytes / t * scale);
  else
    snprintf(buf, len, "-");
}

void bench_print_bits(const char *who, double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  printf(" %s %.17g (0x%016llx);", who, v, (unsigned long long)u);
}
