/** Exercise 05, begin: a histogram with atomics.
 *
 *  The serial original (sample i falls in bin(i) and weighs value(i)):
 *
 *    for (i = 0; i < n; ++i) {
 *      b = bin(i);
 *      count[b] += 1;
 *      weight[b] += value(i);
 *      if (i > last[b]) last[b] = i;
 *    }
 *
 *  In parallel two threads may update the same bin at once and lose an update (a data race).
 *  Atomic read-modify-write operations (Kokkos: atomic_add, atomic_max) make each update
 *  indivisible. Most samples fall in the first bins, so threads do collide.
 *  The kernel below is the serial loop's body as it stands: right on one thread, wrong (lost
 *  updates) on several. Fix the parts marked TODO(tutorial), then run with 2 threads
 *  (PORTA_BACKEND=openmp PORTA_NUM_THREADS=2) to see the difference.
 *  Answer: count, weight and last equal the serial loop's exactly in every bin (the weights
 *  are multiples of 1/4 with small sums: exact in any order); counts_total=2097152.
 */
#include <stdint.h>
#include <stdio.h>

#include "tutorial.h"

#define NBINS 64

/** A well-mixed 64-bit hash of the sample number (splitmix64's finaliser). Kernels call it,
 *  so it is a PORTA_INLINE_FUNCTION (host and device). */
PORTA_INLINE_FUNCTION uint64_t sample_hash(int64_t i) {
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/** The bin: u^2 / 2^18 for u uniform in [0, 4096), so low bins are the most crowded. */
PORTA_INLINE_FUNCTION int64_t sample_bin(uint64_t h) {
  const uint64_t u = (h >> 11) % 4096u;
  return (int64_t)((u * u) >> 18);
}
/** The weight: a multiple of 1/4 in [0, 250). */
PORTA_INLINE_FUNCTION double sample_value(uint64_t h) { return (double)((h >> 40) % 1000u) * 0.25; }

typedef struct {
  porta_view_i64 count, last;
  porta_view_f64 weight;
} hist_args;

PORTA_FOR(histogram_k, hist_args, a, i) {
  const uint64_t h = sample_hash(i);
  const int64_t b = sample_bin(h);
  /* TODO(tutorial): these three updates race when two threads hit the same bin. Make each
   * one atomic: porta_atomic_<op>_<type>(&element, value), with op add or max and type i64
   * or f64; the element's address is &PORTA_AT1(view, b). */
  PORTA_AT1(a->count, b) += 1;
  PORTA_AT1(a->weight, b) += sample_value(h);
  if (i > PORTA_AT1(a->last, b)) PORTA_AT1(a->last, b) = i;
}

int main(int argc, char **argv) {
  TUT_CHECK(porta_initialize(&argc, &argv));
  const porta_exec space = porta_exec_default();
  const int64_t n = (int64_t)1 << 21;
  int ok = 1;

  hist_args a;
  TUT_CHECK(porta_view_i64_create1(&a.count, "count", NBINS)); /* zero-filled */
  TUT_CHECK(porta_view_f64_create1(&a.weight, "weight", NBINS));
  TUT_CHECK(porta_view_i64_create1(&a.last, "last", NBINS));
  TUT_CHECK(porta_view_i64_fill(a.last, -1)); /* fill works in any memory space */

  TUT_CHECK(PORTA_PARALLEL_FOR(histogram_k, space, porta_range(0, n), &a));

  porta_mirror_i64 hl;
  porta_mirror_i64 hc;
  porta_mirror_f64 hw;
  TUT_CHECK(porta_view_i64_create_mirror_view(&hc, &a.count));
  TUT_CHECK(porta_view_f64_create_mirror_view(&hw, &a.weight));
  TUT_CHECK(porta_view_i64_create_mirror_view(&hl, &a.last));
  TUT_CHECK(porta_deep_copy(hc, a.count));
  TUT_CHECK(porta_deep_copy(hw, a.weight));
  TUT_CHECK(porta_deep_copy(hl, a.last));

  /* The serial loop, on the host. */
  int64_t count[NBINS], last[NBINS];
  double weight[NBINS];
  for (int b = 0; b < NBINS; ++b) {
    count[b] = 0;
    last[b] = -1;
    weight[b] = 0.0;
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t h = sample_hash(i);
    const int64_t b = sample_bin(h);
    count[b] += 1;
    weight[b] += sample_value(h);
    if (i > last[b]) last[b] = i;
  }
  int64_t bad = 0, total = 0;
  double weight_total = 0.0;
  for (int b = 0; b < NBINS; ++b) {
    if (PORTA_S1(hc, b) != count[b] || PORTA_S1(hw, b) != weight[b] || PORTA_S1(hl, b) != last[b]) {
      if (bad < 3)
        fprintf(stderr, "bin %d: count %lld weight %.2f last %lld, want %lld %.2f %lld\n", b,
                (long long)PORTA_S1(hc, b), PORTA_S1(hw, b), (long long)PORTA_S1(hl, b),
                (long long)count[b], weight[b], (long long)last[b]);
      ++bad;
    }
    total += PORTA_S1(hc, b);
    weight_total += PORTA_S1(hw, b);
  }
  if (bad || total != n) ok = 0;

  printf("05_atomics: backend=%s n=%lld bins=%d counts_total=%lld bin0_count=%lld "
         "weight_total=%.2f bad_bins=%lld %s\n",
         porta_backend_name(space.backend), (long long)n, NBINS, (long long)total,
         (long long)PORTA_S1(hc, 0), weight_total, (long long)bad, ok ? "PASS" : "FAIL");
  porta_mirror_i64_release(&hc);
  porta_mirror_f64_release(&hw);
  porta_mirror_i64_release(&hl);
  porta_view_i64_release(&a.count);
  porta_view_f64_release(&a.weight);
  porta_view_i64_release(&a.last);
  TUT_CHECK(porta_finalize());
  return ok ? 0 : 1;
}
