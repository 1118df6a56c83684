/** @file test_atomic.c
 *  Porta atomics on the host: the semantics of every function for every type, checked one call at
 *  a time, then the same operations hammered from all OpenMP threads with exactly known results
 *  (integer sums, float sums of exactly representable values, min/max, CAS counters, the values
 *  the fetch forms return) and a 24-byte struct updated through the lock table.
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "porta/atomic.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/** Iterations of each parallel test: large enough that unprotected updates would collide. */
#define PT_N 1000000

static int pt_threads_(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* ------------------------------------------------------------------------------------------ */
/* Sequential semantics, stamped for every type                                                */
/* ------------------------------------------------------------------------------------------ */

/* Values are small and non-negative so that they mean the same for every type. */
#define PT_SEQ_TEST_(s, T, U, DT, DU)                                                              \
  static void test_seq_##s(void) {                                                                 \
    T x = (T)10, e;                                                                                \
    PT_EQ_F64(porta_atomic_fetch_add_##s(&x, (T)5), 10);                                           \
    PT_EQ_F64(x, 15);                                                                              \
    PT_EQ_F64(porta_atomic_add_fetch_##s(&x, (T)5), 20);                                           \
    PT_EQ_F64(x, 20);                                                                              \
    porta_atomic_add_##s(&x, (T)1);                                                                \
    PT_EQ_F64(x, 21);                                                                              \
    PT_EQ_F64(porta_atomic_fetch_sub_##s(&x, (T)1), 21);                                           \
    PT_EQ_F64(x, 20);                                                                              \
    PT_EQ_F64(porta_atomic_sub_fetch_##s(&x, (T)4), 16);                                           \
    PT_EQ_F64(x, 16);                                                                              \
    porta_atomic_sub_##s(&x, (T)6);                                                                \
    PT_EQ_F64(x, 10);                                                                              \
    PT_EQ_F64(porta_atomic_fetch_min_##s(&x, (T)3), 10);                                           \
    PT_EQ_F64(x, 3);                                                                               \
    PT_EQ_F64(porta_atomic_fetch_min_##s(&x, (T)7), 3);                                            \
    PT_EQ_F64(x, 3);                                                                               \
    PT_EQ_F64(porta_atomic_min_fetch_##s(&x, (T)2), 2);                                            \
    PT_EQ_F64(porta_atomic_min_fetch_##s(&x, (T)9), 2);                                            \
    porta_atomic_min_##s(&x, (T)1);                                                                \
    PT_EQ_F64(x, 1);                                                                               \
    porta_atomic_min_##s(&x, (T)5);                                                                \
    PT_EQ_F64(x, 1);                                                                               \
    PT_EQ_F64(porta_atomic_fetch_max_##s(&x, (T)9), 1);                                            \
    PT_EQ_F64(x, 9);                                                                               \
    PT_EQ_F64(porta_atomic_fetch_max_##s(&x, (T)4), 9);                                            \
    PT_EQ_F64(x, 9);                                                                               \
    PT_EQ_F64(porta_atomic_max_fetch_##s(&x, (T)4), 9);                                            \
    PT_EQ_F64(porta_atomic_max_fetch_##s(&x, (T)11), 11);                                          \
    porta_atomic_max_##s(&x, (T)12);                                                               \
    PT_EQ_F64(x, 12);                                                                              \
    porta_atomic_max_##s(&x, (T)0);                                                                \
    PT_EQ_F64(x, 12);                                                                              \
    PT_EQ_F64(porta_atomic_exchange_##s(&x, (T)7), 12);                                            \
    PT_EQ_F64(x, 7);                                                                               \
    PT_EQ_F64(porta_atomic_compare_exchange_##s(&x, (T)7, (T)8), 7);                               \
    PT_EQ_F64(x, 8);                                                                               \
    PT_EQ_F64(porta_atomic_compare_exchange_##s(&x, (T)7, (T)9), 8);                               \
    PT_EQ_F64(x, 8);                                                                               \
    e = (T)8;                                                                                      \
    PT_EQ_I64(porta_atomic_compare_exchange_strong_##s(&x, &e, (T)11), 1);                         \
    PT_EQ_F64(x, 11);                                                                              \
    PT_EQ_F64(e, 8);                                                                               \
    e = (T)5;                                                                                      \
    PT_EQ_I64(porta_atomic_compare_exchange_strong_##s(&x, &e, (T)13), 0);                         \
    PT_EQ_F64(x, 11);                                                                              \
    PT_EQ_F64(e, 11);                                                                              \
    PT_EQ_F64(porta_atomic_load_##s(&x), 11);                                                      \
    porta_atomic_store_##s(&x, (T)4);                                                              \
    PT_EQ_F64(x, 4);                                                                               \
    PT_EQ_F64(porta_atomic_load_##s(&x), 4);                                                       \
  }
PORTA_ATOMIC_TYPES(PT_SEQ_TEST_)

#define PT_BITWISE_TEST_(s, T, U, DT, DU)                                                          \
  static void test_bitwise_##s(void) {                                                             \
    T x = (T)0xF0;                                                                                 \
    PT_EQ_I64(porta_atomic_fetch_and_##s(&x, (T)0x3C), 0xF0);                                      \
    PT_EQ_I64(x, 0x30);                                                                            \
    PT_EQ_I64(porta_atomic_fetch_or_##s(&x, (T)0x05), 0x30);                                       \
    PT_EQ_I64(x, 0x35);                                                                            \
    PT_EQ_I64(porta_atomic_and_fetch_##s(&x, (T)0x1F), 0x15);                                      \
    PT_EQ_I64(porta_atomic_or_fetch_##s(&x, (T)0x40), 0x55);                                       \
    porta_atomic_and_##s(&x, (T)0x0F);                                                             \
    PT_EQ_I64(x, 0x05);                                                                            \
    porta_atomic_or_##s(&x, (T)0x60);                                                              \
    PT_EQ_I64(x, 0x65);                                                                            \
    x = (T) ~(T)0; /* all bits: -1 or the maximum */                                               \
    porta_atomic_and_##s(&x, (T)((U)1 << (sizeof(T) * 8 - 1)));                                    \
    PT_CHECK(x == (T)((U)1 << (sizeof(T) * 8 - 1)));                                               \
  }
PORTA_ATOMIC_INT_TYPES(PT_BITWISE_TEST_)

/** Signed integers: negative values, and wrapping (not undefined) overflow. */
static void test_signed(void) {
  int32_t a = -5;
  int64_t b = -5;
  PT_EQ_I64(porta_atomic_fetch_min_i32(&a, -7), -5);
  PT_EQ_I64(a, -7);
  PT_EQ_I64(porta_atomic_min_fetch_i32(&a, 3), -7);
  PT_EQ_I64(porta_atomic_max_fetch_i32(&a, -8), -7);
  PT_EQ_I64(porta_atomic_max_fetch_i32(&a, 2), 2);
  PT_EQ_I64(porta_atomic_sub_fetch_i32(&a, 10), -8);
  PT_EQ_I64(porta_atomic_add_fetch_i32(&a, -1), -9);
  a = INT32_MAX;
  PT_EQ_I64(porta_atomic_fetch_add_i32(&a, 1), INT32_MAX);
  PT_EQ_I64(a, INT32_MIN);
  PT_EQ_I64(porta_atomic_sub_fetch_i32(&a, 1), INT32_MAX);
  PT_EQ_I64(porta_atomic_add_fetch_i32(&a, 2), INT32_MIN + 1);

  PT_EQ_I64(porta_atomic_fetch_min_i64(&b, -7), -5);
  PT_EQ_I64(b, -7);
  PT_EQ_I64(porta_atomic_min_fetch_i64(&b, INT64_MIN), INT64_MIN);
  PT_EQ_I64(porta_atomic_max_fetch_i64(&b, -1), -1);
  PT_EQ_I64(porta_atomic_max_fetch_i64(&b, INT64_MAX), INT64_MAX);
  PT_EQ_I64(porta_atomic_add_fetch_i64(&b, 1), INT64_MIN);
  PT_EQ_I64(porta_atomic_fetch_sub_i64(&b, 1), INT64_MIN);
  PT_EQ_I64(b, INT64_MAX);
  PT_EQ_I64(porta_atomic_exchange_i64(&b, -3), INT64_MAX);
  PT_EQ_I64(porta_atomic_compare_exchange_i64(&b, -3, -4), -3);
  PT_EQ_I64(b, -4);
}

/** Unsigned integers: wraparound of sub/add and comparisons above the signed range. */
static void test_unsigned(void) {
  uint32_t a = 0;
  uint64_t b = 0;
  PT_EQ_I64(porta_atomic_fetch_sub_u32(&a, 1), 0);
  PT_CHECK(a == UINT32_MAX);
  PT_EQ_I64(porta_atomic_add_fetch_u32(&a, 2), 1);
  porta_atomic_sub_u32(&a, 3);
  PT_CHECK(a == UINT32_MAX - 1);
  a = 5;
  porta_atomic_max_u32(&a, UINT32_C(0x80000000));
  PT_CHECK(a == UINT32_C(0x80000000));
  porta_atomic_min_u32(&a, UINT32_C(0x80000001));
  PT_CHECK(a == UINT32_C(0x80000000));
  PT_CHECK(porta_atomic_min_fetch_u32(&a, 7) == 7);

  PT_CHECK(porta_atomic_sub_fetch_u64(&b, 1) == UINT64_MAX);
  PT_CHECK(porta_atomic_fetch_add_u64(&b, 1) == UINT64_MAX);
  PT_CHECK(b == 0);
  b = 5;
  PT_CHECK(porta_atomic_max_fetch_u64(&b, UINT64_C(1) << 63) == UINT64_C(1) << 63);
  PT_CHECK(porta_atomic_fetch_min_u64(&b, UINT64_MAX) == UINT64_C(1) << 63);
  PT_CHECK(b == UINT64_C(1) << 63);
  PT_CHECK(porta_atomic_exchange_u64(&b, UINT64_MAX) == UINT64_C(1) << 63);
  PT_CHECK(porta_atomic_compare_exchange_u64(&b, UINT64_MAX, 3) == UINT64_MAX);
  PT_CHECK(b == 3);
}

/** Floating point: negative values, fractions, NaN and signed zeros. */
static void test_float_values(void) {
  float f = -1.5f;
  double d = -1.5;
  PT_EQ_F64(porta_atomic_fetch_min_f32(&f, -2.25f), -1.5);
  PT_EQ_F64(f, -2.25);
  PT_EQ_F64(porta_atomic_max_fetch_f32(&f, -3.0f), -2.25);
  PT_EQ_F64(porta_atomic_max_fetch_f32(&f, 0.5f), 0.5);
  PT_EQ_F64(porta_atomic_sub_fetch_f32(&f, 0.75f), -0.25);
  PT_EQ_F64(porta_atomic_add_fetch_f32(&f, 0.125f), -0.125);

  PT_EQ_F64(porta_atomic_fetch_min_f64(&d, -2.25), -1.5);
  PT_EQ_F64(d, -2.25);
  PT_EQ_F64(porta_atomic_min_fetch_f64(&d, -1e300), -1e300);
  PT_EQ_F64(porta_atomic_max_fetch_f64(&d, 1e-300), 1e-300);
  PT_EQ_F64(porta_atomic_exchange_f64(&d, -0.375), 1e-300);
  PT_EQ_F64(porta_atomic_add_fetch_f64(&d, 0.125), -0.25);
  PT_EQ_F64(porta_atomic_fetch_sub_f64(&d, -1.0), -0.25);
  PT_EQ_F64(d, 0.75);

  /* A NaN argument leaves min/max targets unchanged; a NaN target stays. */
  d = 2.0;
  porta_atomic_min_f64(&d, NAN);
  PT_EQ_F64(d, 2.0);
  porta_atomic_max_f64(&d, NAN);
  PT_EQ_F64(d, 2.0);
  d = NAN;
  porta_atomic_min_f64(&d, 1.0);
  PT_CHECK(isnan(d));
  f = NAN;
  porta_atomic_max_f32(&f, 1.0f);
  PT_CHECK(isnan(f));

  /* Compare-exchange compares bits: NaN matches itself, -0.0 does not match +0.0. */
  PT_CHECK(isnan(porta_atomic_compare_exchange_f32(&f, NAN, 1.0f)));
  PT_EQ_F64(f, 1.0);
  d = NAN;
  PT_CHECK(isnan(porta_atomic_compare_exchange_f64(&d, NAN, 2.0)));
  PT_EQ_F64(d, 2.0);
  d = 0.0;
  PT_EQ_F64(porta_atomic_compare_exchange_f64(&d, -0.0, 3.0), 0.0);
  PT_EQ_F64(d, 0.0);
  PT_CHECK(!signbit(d));
  {
    double expected = -0.0;
    PT_EQ_I64(porta_atomic_compare_exchange_strong_f64(&d, &expected, 3.0), 0);
    PT_CHECK(!signbit(expected));
    PT_EQ_I64(porta_atomic_compare_exchange_strong_f64(&d, &expected, 3.0), 1);
    PT_EQ_F64(d, 3.0);
  }
  {
    float expected = 1.0f;
    f = 1.0f;
    PT_EQ_I64(porta_atomic_compare_exchange_strong_f32(&f, &expected, 0.5f), 1);
    PT_EQ_F64(f, 0.5);
    PT_EQ_F64(porta_atomic_load_f32(&f), 0.5);
    porta_atomic_store_f32(&f, -4.0f);
    PT_EQ_F64(porta_atomic_exchange_f32(&f, 8.0f), -4.0);
    PT_EQ_F64(f, 8.0);
  }
}

/** The lock hash: in range, a function of the address, and spread over the table. */
static void test_lock_index(void) {
  static double objects[4096];
  static unsigned char used[PORTA_ATOMIC_LOCK_COUNT];
  int distinct = 0;
  PT_EQ_I64(PORTA_ATOMIC_LOCK_COUNT, 4096);
  for (int i = 0; i < 4096; ++i) {
    uint32_t k = porta_atomic_lock_index(&objects[i]);
    PT_CHECK(k < PORTA_ATOMIC_LOCK_COUNT);
    PT_EQ_I64(k, porta_atomic_lock_index(&objects[i]));
    if (!used[k]) ++distinct;
    used[k] = 1;
  }
  /* Consecutive doubles spread over most of the table (a random map would reach about 63%). */
  PT_CHECK(distinct > 2048);
  /* Locks are taken, released and taken again. */
  porta_atomic_lock(&objects[0]);
  porta_atomic_unlock(&objects[0]);
  porta_atomic_lock(&objects[0]);
  porta_atomic_unlock(&objects[0]);
  porta_atomic_fence();
}

/* ------------------------------------------------------------------------------------------ */
/* Many threads at once                                                                        */
/* ------------------------------------------------------------------------------------------ */

/** Integer sums are exact, whatever the interleaving. */
static void test_parallel_int_sums(void) {
  int64_t s64 = 0;
  uint64_t su64 = 0;
  int32_t c32 = 0;
  uint32_t cu32 = 0, down = PT_N;
  PORTA_OMP(parallel for)
  for (int64_t i = 0; i < PT_N; ++i) {
    porta_atomic_add_i64(&s64, i);
    porta_atomic_fetch_add_u64(&su64, (uint64_t)i * 3);
    porta_atomic_add_fetch_i32(&c32, 1);
    porta_atomic_add_u32(&cu32, 1);
    porta_atomic_sub_u32(&down, 1);
  }
  PT_EQ_I64(s64, (int64_t)PT_N * (PT_N - 1) / 2);
  PT_CHECK(su64 == (uint64_t)3 * PT_N * (PT_N - 1) / 2);
  PT_EQ_I64(c32, PT_N);
  PT_EQ_I64(cu32, PT_N);
  PT_EQ_I64(down, 0);
}

/** Floating-point sums of exactly representable values are exact. */
static void test_parallel_float_sums(void) {
  double d = 0.0, down = PT_N * 0.25;
  float f = 0.0f, g = 0.0f;
  PORTA_OMP(parallel for)
  for (int64_t i = 0; i < PT_N; ++i) {
    porta_atomic_add_f64(&d, 0.5);
    porta_atomic_sub_f64(&down, 0.25);
    porta_atomic_add_f32(&f, 0.5f);
    porta_atomic_add_fetch_f32(&g, 1.0f); /* integers below 2^24 are exact in float */
  }
  PT_EQ_F64(d, PT_N * 0.5);
  PT_EQ_F64(down, 0.0);
  PT_EQ_F64(f, PT_N * 0.5);
  PT_EQ_F64(g, PT_N);
}

/** Min and max over a permutation of 0..N-1, shifted negative for the signed types. */
static void test_parallel_minmax(void) {
  int32_t mn32 = INT32_MAX, mx32 = INT32_MIN;
  int64_t mn64 = INT64_MAX, mx64 = INT64_MIN;
  uint32_t mnu32 = UINT32_MAX, mxu32 = 0;
  uint64_t mnu64 = UINT64_MAX, mxu64 = 0;
  float mnf = INFINITY, mxf = -INFINITY;
  double mnd = INFINITY, mxd = -INFINITY;
  PORTA_OMP(parallel for)
  for (int64_t i = 0; i < PT_N; ++i) {
    int64_t v = (i * 7919) % PT_N; /* 7919 is prime and does not divide N: a permutation */
    porta_atomic_min_i32(&mn32, (int32_t)(v - PT_N / 2));
    porta_atomic_max_i32(&mx32, (int32_t)(v - PT_N / 2));
    porta_atomic_fetch_min_i64(&mn64, v - PT_N);
    porta_atomic_max_fetch_i64(&mx64, v - PT_N);
    porta_atomic_min_u32(&mnu32, (uint32_t)v + 10);
    porta_atomic_max_u32(&mxu32, (uint32_t)v + 10);
    porta_atomic_min_u64(&mnu64, (uint64_t)v << 32);
    porta_atomic_max_u64(&mxu64, (uint64_t)v << 32);
    porta_atomic_min_f32(&mnf, (float)v * -0.5f);
    porta_atomic_max_f32(&mxf, (float)v * -0.5f);
    porta_atomic_min_fetch_f64(&mnd, (double)v - 0.25);
    porta_atomic_fetch_max_f64(&mxd, (double)v - 0.25);
  }
  PT_EQ_I64(mn32, -(PT_N / 2));
  PT_EQ_I64(mx32, PT_N / 2 - 1);
  PT_EQ_I64(mn64, -PT_N);
  PT_EQ_I64(mx64, -1);
  PT_EQ_I64(mnu32, 10);
  PT_EQ_I64(mxu32, PT_N - 1 + 10);
  PT_CHECK(mnu64 == 0);
  PT_CHECK(mxu64 == (uint64_t)(PT_N - 1) << 32);
  PT_EQ_F64(mnf, (PT_N - 1) * -0.5);
  PT_EQ_F64(mxf, 0.0);
  PT_EQ_F64(mnd, -0.25);
  PT_EQ_F64(mxd, PT_N - 1.25);
}

/* Counters moved only by fetch_max (up) and fetch_min (down): an iteration counts when the value
 * it read is the one fetch_max/fetch_min replaced, so a lost update would leave the count short. */
#define PT_MINMAX_COUNTER_(s, T, U, DT, DU)                                                        \
  static void pt_minmax_counter_##s(int64_t *up, int64_t *down) {                                  \
    T hi = (T)0, lo = (T)PT_N;                                                                     \
    PORTA_OMP(parallel for)                                                                        \
    for (int64_t i = 0; i < PT_N; ++i) {                                                           \
      T o;                                                                                         \
      do o = porta_atomic_load_##s(&hi);                                                           \
      while (porta_atomic_fetch_max_##s(&hi, (T)(o + 1)) != o);                                    \
      do o = porta_atomic_load_##s(&lo);                                                           \
      while (porta_atomic_fetch_min_##s(&lo, (T)(o - 1)) != o);                                    \
    }                                                                                              \
    *up = (int64_t)hi;                                                                             \
    *down = (int64_t)lo;                                                                           \
  }
PORTA_ATOMIC_TYPES(PT_MINMAX_COUNTER_)

#define PT_CHECK_MINMAX_COUNTER_(s, T, U, DT, DU)                                                  \
  {                                                                                                \
    int64_t up_##s = -1, down_##s = -1;                                                            \
    pt_minmax_counter_##s(&up_##s, &down_##s);                                                     \
    PT_EQ_I64(up_##s, PT_N);                                                                       \
    PT_EQ_I64(down_##s, 0);                                                                        \
  }

static void test_parallel_minmax_counters(void) { PORTA_ATOMIC_TYPES(PT_CHECK_MINMAX_COUNTER_) }

/** Counters incremented only through compare-exchange loops; tokens passed through exchange. */
static void test_parallel_cas_exchange(void) {
  int64_t c64 = 0, token = -1, token_sum = 0;
  uint32_t cu32 = 0;
  double cd = 0.0;
  PORTA_OMP(parallel for)
  for (int64_t i = 0; i < PT_N; ++i) {
    int64_t old = porta_atomic_load_i64(&c64), seen;
    while ((seen = porta_atomic_compare_exchange_i64(&c64, old, old + 1)) != old) old = seen;
    uint32_t e = porta_atomic_load_u32(&cu32);
    while (!porta_atomic_compare_exchange_strong_u32(&cu32, &e, e + 1)) {
    }
    double de = porta_atomic_load_f64(&cd);
    while (!porta_atomic_compare_exchange_strong_f64(&cd, &de, de + 1.0)) {
    }
    /* Every value written is returned by exactly one later exchange (or is the last one). */
    porta_atomic_add_i64(&token_sum, porta_atomic_exchange_i64(&token, i));
  }
  PT_EQ_I64(c64, PT_N);
  PT_EQ_I64(cu32, PT_N);
  PT_EQ_F64(cd, PT_N);
  PT_EQ_I64(token_sum + token, -1 + (int64_t)PT_N * (PT_N - 1) / 2);
}

/** The fetch forms return each intermediate value exactly once. */
static void test_parallel_fetch_returns(void) {
  uint32_t *seen = (uint32_t *)calloc(PT_N, sizeof(uint32_t));
  int64_t c = 0, d = 0, old_sum = 0, new_sum = 0, float_sum = 0, sub_sum = 0, bad = 0, missing = 0;
  int32_t c32 = PT_N;
  double cd = 0.0;
  PT_CHECK(seen != NULL);
  if (!seen) return;
  PORTA_OMP(parallel for reduction(+ : old_sum, new_sum, float_sum, sub_sum, bad))
  for (int64_t i = 0; i < PT_N; ++i) {
    int64_t old = porta_atomic_fetch_add_i64(&c, 1);
    old_sum += old;
    if (old < 0 || old >= PT_N)
      ++bad;
    else
      bad += porta_atomic_fetch_add_u32(&seen[old], 1) != 0;
    new_sum += porta_atomic_add_fetch_i64(&d, 1);
    float_sum += (int64_t)porta_atomic_fetch_add_f64(&cd, 1.0);
    sub_sum += porta_atomic_fetch_sub_i32(&c32, 1);
  }
  for (int64_t i = 0; i < PT_N; ++i) missing += seen[i] != 1;
  PT_EQ_I64(c, PT_N);
  PT_EQ_I64(old_sum, (int64_t)PT_N * (PT_N - 1) / 2);
  PT_EQ_I64(new_sum, (int64_t)PT_N * (PT_N + 1) / 2);
  PT_EQ_I64(float_sum, (int64_t)PT_N * (PT_N - 1) / 2);
  PT_EQ_I64(sub_sum, (int64_t)PT_N * (PT_N + 1) / 2);
  PT_EQ_I64(bad, 0);
  PT_EQ_I64(missing, 0);
  PT_EQ_I64(c32, 0);
  free(seen);
}

/** Bits set and cleared from many threads: each of the 64 bits is touched by many iterations. */
static void test_parallel_bitwise(void) {
  uint64_t set = 0, clear = UINT64_MAX;
  int32_t set32 = 0;
  int64_t first_setters = 0;
  PORTA_OMP(parallel for reduction(+ : first_setters))
  for (int64_t i = 0; i < PT_N; ++i) {
    uint64_t bit = UINT64_C(1) << (i % 64);
    first_setters += (porta_atomic_fetch_or_u64(&set, bit) & bit) == 0;
    porta_atomic_and_u64(&clear, ~bit);
    porta_atomic_or_i32(&set32, (int32_t)(UINT32_C(1) << (i % 31)));
  }
  PT_CHECK(set == UINT64_MAX);
  PT_CHECK(clear == 0);
  PT_EQ_I64(set32, INT32_MAX);
  PT_EQ_I64(first_setters, 64); /* fetch_or saw each bit clear exactly once */
}

/** A 24-byte object, which has no atomic instruction, updated through the lock table. */
typedef struct pt_triple {
  int64_t count;
  double sum;
  int64_t check;
} pt_triple;

#define PT_NOBJ 37

static void test_parallel_lock_table(void) {
  pt_triple one = {0, 0.0, 0};
  pt_triple many[PT_NOBJ];
  memset(many, 0, sizeof many);
  PT_EQ_I64(sizeof(pt_triple), 24);
  PORTA_OMP(parallel for)
  for (int64_t i = 0; i < PT_N; ++i) {
    PORTA_ATOMIC_UPDATE(&one, one.count += 1; one.sum += 0.5; one.check = 3 * one.count);
    pt_triple *t = &many[i % PT_NOBJ];
    /* The statements may hold commas and blocks. */
    PORTA_ATOMIC_UPDATE(t, {
      int64_t a = 1, b = 2;
      t->count += a;
      t->sum += 0.25 * (double)b;
      t->check += a + b;
    });
  }
  PT_EQ_I64(one.count, PT_N);
  PT_EQ_F64(one.sum, PT_N * 0.5);
  PT_EQ_I64(one.check, 3 * (int64_t)PT_N);
  int64_t total = 0;
  for (int k = 0; k < PT_NOBJ; ++k) {
    int64_t expect = PT_N / PT_NOBJ + (k < PT_N % PT_NOBJ);
    PT_EQ_I64(many[k].count, expect);
    PT_EQ_F64(many[k].sum, 0.5 * (double)expect);
    PT_EQ_I64(many[k].check, 3 * expect);
    total += many[k].count;
  }
  PT_EQ_I64(total, PT_N);
}

/** Message passing through relaxed atomics and fences: the reader sees the writer's data once it
 *  sees the flag (needs two threads; a single thread checks the sequential result only). */
static void test_parallel_fence(void) {
  int64_t data[64];
  int32_t flag = 0;
  int64_t wrong = 0;
  for (int k = 0; k < 64; ++k) data[k] = -1;
  PORTA_OMP(parallel num_threads(2) reduction(+ : wrong)) {
    int me = 0, team = 1;
#ifdef _OPENMP
    me = omp_get_thread_num();
    team = omp_get_num_threads();
#endif
    if (me == 0) {
      for (int k = 0; k < 64; ++k) porta_atomic_store_i64(&data[k], k * k);
      porta_atomic_fence();
      porta_atomic_store_i32(&flag, 1);
    }
    if (me == team - 1) {
      while (porta_atomic_load_i32(&flag) == 0) {
      }
      porta_atomic_fence();
      for (int k = 0; k < 64; ++k) wrong += porta_atomic_load_i64(&data[k]) != k * k;
    }
  }
  PT_EQ_I64(flag, 1);
  PT_EQ_I64(wrong, 0);
}

#define PT_RUN_SEQ_(s, T, U, DT, DU) PT_RUN(test_seq_##s);
#define PT_RUN_BITWISE_(s, T, U, DT, DU) PT_RUN(test_bitwise_##s);

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  printf("atomics with %d thread(s)\n", pt_threads_());
  PORTA_ATOMIC_TYPES(PT_RUN_SEQ_)
  PORTA_ATOMIC_INT_TYPES(PT_RUN_BITWISE_)
  PT_RUN(test_signed);
  PT_RUN(test_unsigned);
  PT_RUN(test_float_values);
  PT_RUN(test_lock_index);
  PT_RUN(test_parallel_int_sums);
  PT_RUN(test_parallel_float_sums);
  PT_RUN(test_parallel_minmax);
  PT_RUN(test_parallel_minmax_counters);
  PT_RUN(test_parallel_cas_exchange);
  PT_RUN(test_parallel_fetch_returns);
  PT_RUN(test_parallel_bitwise);
  PT_RUN(test_parallel_lock_table);
  PT_RUN(test_parallel_fence);
  PT_END();
}
