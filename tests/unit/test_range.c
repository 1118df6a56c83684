/** @file test_range.c
 *  Range policies: parallel_for visits every index of [begin, end) exactly once (static and
 *  dynamic schedules, sizes that do not divide the thread count, non-zero begin, empty ranges);
 *  parallel_reduce with every built-in reducer for every element type, checked against a serial
 *  loop with exact answers, in normal and deterministic mode, with identities on empty ranges;
 *  custom reducers (a struct of several values, PORTA_DEFINE_SUM_REDUCER); parallel_scan,
 *  exclusive and inclusive, element by element; and the argument errors of the launch calls.
 */
#include <math.h>
#include <stdint.h>

#include "harness.h"

/** Largest range the tests use: a prime, so it divides no thread count. */
#define PT_BIG 1000003

/** A fixed pseudo-random 64-bit value per index (splitmix64). */
static uint64_t pt_hash(int64_t i) {
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E8D5ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------------------------ */
/* parallel_for                                                                                */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_i64 count; /**< visits per index */
  porta_view_i64 value; /**< what the body computed at the index */
} visit_args;

PORTA_FOR(visit_k, visit_args, a, i) {
  porta_atomic_add_i64(&PORTA_AT1(a->count, i), 1);
  PORTA_AT1(a->value, i) = 3 * i + 1;
}

/** Run visit_k over [b, b+n) with `policy` and check every index of the view. */
static void check_visits(porta_range_policy policy, int64_t b, int64_t n) {
  visit_args a;
  const int64_t len = b + n + 3;
  PT_OK(porta_view_i64_create1(&a.count, "count", len));
  PT_OK(porta_view_i64_create1(&a.value, "value", len));
  PT_OK(porta_view_i64_fill(a.value, -7));
  PT_OK(porta_parallel_for("visit", porta_exec_default(), policy, &visit_k, &a));
  int64_t bad_count = 0, bad_value = 0;
  for (int64_t i = 0; i < len; ++i) {
    int in = i >= b && i < b + n;
    if (a.count.data[i] != (in ? 1 : 0)) ++bad_count;
    if (a.value.data[i] != (in ? 3 * i + 1 : -7)) ++bad_value;
  }
  if (bad_count || bad_value)
    fprintf(stderr,
            "  visits over [%lld, %lld) schedule %d chunk %lld: %lld bad counts, %lld "
            "bad values\n",
            (long long)b, (long long)(b + n), (int)policy.schedule, (long long)policy.chunk,
            (long long)bad_count, (long long)bad_value);
  PT_EQ_I64(bad_count, 0);
  PT_EQ_I64(bad_value, 0);
  porta_view_i64_release(&a.count);
  porta_view_i64_release(&a.value);
}

static void test_for_static(void) {
  static const int64_t sizes[] = {0, 1, 2, 3, 7, 1000, PT_BIG};
  static const int64_t begins[] = {0, 5};
  for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s)
    for (int k = 0; k < 2; ++k)
      check_visits(porta_range(begins[k], begins[k] + sizes[s]), begins[k], sizes[s]);
}

static void test_for_dynamic(void) {
  static const int64_t sizes[] = {0, 1, 7, 1000, PT_BIG};
  static const int64_t chunks[] = {0, 1, 7, 4096};
  for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s)
    for (int c = 0; c < 4; ++c)
      check_visits(porta_range_schedule(11, 11 + sizes[s], PORTA_SCHEDULE_DYNAMIC, chunks[c]), 11,
                   sizes[s]);
}

/* ------------------------------------------------------------------------------------------ */
/* parallel_reduce with the built-in reducers                                                  */
/* ------------------------------------------------------------------------------------------ */

/* Data sets the reducer tests write into the view before each reduction. */
enum {
  PT_GENERAL,
  PT_PROD,
  PT_LOC,
  PT_LOGIC_ALL,
  PT_LOGIC_ONE_ZERO,
  PT_LOGIC_NONE,
  PT_BITS_AND,
  PT_BITS_OR
};

/** Stamp, for element type T with suffix TN: an args struct and one kernel per arithmetic
 *  reducer, each written the way a user writes the body. */
#define PT_ARITH_KERNELS_(TN, T)                                                                   \
  typedef struct {                                                                                 \
    porta_view_##TN x;                                                                             \
  } red_args_##TN;                                                                                 \
  PORTA_REDUCE(sum_##TN, red_args_##TN, a, i, porta_sum_##TN, acc) { *acc += PORTA_AT1(a->x, i); } \
  PORTA_REDUCE(prod_##TN, red_args_##TN, a, i, porta_prod_##TN, acc) {                             \
    *acc *= PORTA_AT1(a->x, i);                                                                    \
  }                                                                                                \
  PORTA_REDUCE(min_##TN, red_args_##TN, a, i, porta_min_##TN, acc) {                               \
    T x_ = PORTA_AT1(a->x, i);                                                                     \
    if (x_ < *acc) *acc = x_;                                                                      \
  }                                                                                                \
  PORTA_REDUCE(max_##TN, red_args_##TN, a, i, porta_max_##TN, acc) {                               \
    T x_ = PORTA_AT1(a->x, i);                                                                     \
    if (x_ > *acc) *acc = x_;                                                                      \
  }                                                                                                \
  PORTA_REDUCE(minloc_##TN, red_args_##TN, a, i, porta_minloc_##TN, acc) {                         \
    T x_ = PORTA_AT1(a->x, i);                                                                     \
    if (x_ < acc->val) {                                                                           \
      acc->val = x_;                                                                               \
      acc->loc = i;                                                                                \
    }                                                                                              \
  }                                                                                                \
  PORTA_REDUCE(maxloc_##TN, red_args_##TN, a, i, porta_maxloc_##TN, acc) {                         \
    T x_ = PORTA_AT1(a->x, i);                                                                     \
    if (x_ > acc->val) {                                                                           \
      acc->val = x_;                                                                               \
      acc->loc = i;                                                                                \
    }                                                                                              \
  }                                                                                                \
  PORTA_REDUCE(land_##TN, red_args_##TN, a, i, porta_land_##TN, acc) {                             \
    *acc = (T)(*acc && PORTA_AT1(a->x, i));                                                        \
  }                                                                                                \
  PORTA_REDUCE(lor_##TN, red_args_##TN, a, i, porta_lor_##TN, acc) {                               \
    *acc = (T)(*acc || PORTA_AT1(a->x, i));                                                        \
  }

#define PT_BITS_KERNELS_(TN, T)                                                                    \
  PORTA_REDUCE(band_##TN, red_args_##TN, a, i, porta_band_##TN, acc) {                             \
    *acc = (T)(*acc & PORTA_AT1(a->x, i));                                                         \
  }                                                                                                \
  PORTA_REDUCE(bor_##TN, red_args_##TN, a, i, porta_bor_##TN, acc) {                               \
    *acc = (T)(*acc | PORTA_AT1(a->x, i));                                                         \
  }

PT_ARITH_KERNELS_(f64, double)
PT_ARITH_KERNELS_(f32, float)
PT_ARITH_KERNELS_(i64, int64_t)
PT_ARITH_KERNELS_(i32, int32_t)
PT_ARITH_KERNELS_(u64, uint64_t)
PT_ARITH_KERNELS_(u32, uint32_t)
PT_ARITH_KERNELS_(u8, uint8_t)
PT_BITS_KERNELS_(i64, int64_t)
PT_BITS_KERNELS_(i32, int32_t)
PT_BITS_KERNELS_(u64, uint64_t)
PT_BITS_KERNELS_(u32, uint32_t)
PT_BITS_KERNELS_(u8, uint8_t)

/** "General" values per type: sums stay exact (floats: multiples of 1/4 resp. small integers;
 *  signed integers: no overflow; unsigned: wrap-around, which is well defined). */
static double gen_f64(int64_t i) { return (double)((int64_t)(pt_hash(i) % 2001) - 1000) * 0.25; }
static float gen_f32(int64_t i) { return (float)((int64_t)(pt_hash(i) % 201) - 100); }
static int64_t gen_i64(int64_t i) { return (int64_t)(pt_hash(i) % 2000001) - 1000000; }
static int32_t gen_i32(int64_t i) { return (int32_t)((int64_t)(pt_hash(i) % 2001) - 1000); }
static uint64_t gen_u64(int64_t i) { return pt_hash(i); }
static uint32_t gen_u32(int64_t i) { return (uint32_t)(pt_hash(i) >> 17); }
static uint8_t gen_u8(int64_t i) { return (uint8_t)(pt_hash(i) >> 40); }

/** Write data set `kind` of length n into x (IS_SIGNED: -1 factors in the product set). */
#define PT_FILL_(TN, T, IS_SIGNED)                                                                 \
  static void fill_##TN(T *x, int64_t n, int kind) {                                               \
    for (int64_t i = 0; i < n; ++i) {                                                              \
      switch (kind) {                                                                              \
      case PT_GENERAL: x[i] = gen_##TN(i); break;                                                  \
      case PT_PROD: x[i] = (T)1; break;                                                            \
      case PT_LOC: x[i] = (T)(5 + pt_hash(i) % 13); break;                                         \
      case PT_LOGIC_ALL: x[i] = (T)(1 + i % 3); break;                                             \
      case PT_LOGIC_ONE_ZERO: x[i] = (T)(1 + i % 3); break;                                        \
      case PT_LOGIC_NONE: x[i] = (T)0; break;                                                      \
      case PT_BITS_AND: x[i] = (T)(0x770 | (pt_hash(i) & 0xF)); break;                             \
      default: x[i] = (T)(1u << ((i * 7) % 6)); break;                                             \
      }                                                                                            \
    }                                                                                              \
    if (n == 0) return;                                                                            \
    if (kind == PT_PROD) {                                                                         \
      for (int j = 0; j < 5; ++j) x[(j * 7919 + 3) % n] = (T)2;                                    \
      if (IS_SIGNED)                                                                               \
        for (int j = 0; j < 3; ++j) x[(j * 104729 + 5) % n] = (T)(IS_SIGNED ? -1 : 1);             \
    } else if (kind == PT_LOC) {                                                                   \
      /* ties for the minimum and the maximum, spread over the range */                            \
      int64_t mins[3], maxs[4];                                                                    \
      mins[0] = n - 1;                                                                             \
      mins[1] = 2 * n / 3;                                                                         \
      mins[2] = n / 2 + 1 < n ? n / 2 + 1 : n - 1;                                                 \
      maxs[0] = n >= 2 ? n - 2 : 0;                                                                \
      maxs[1] = n / 3 + 1 < n ? n / 3 + 1 : 0;                                                     \
      maxs[2] = n / 3 + 2 < n ? n / 3 + 2 : 0;                                                     \
      maxs[3] = 3 * n / 4;                                                                         \
      for (int j = 0; j < 3; ++j) x[mins[j]] = (T)1;                                               \
      for (int j = 0; j < 4; ++j) x[maxs[j]] = (T)40;                                              \
    } else if (kind == PT_LOGIC_ONE_ZERO) {                                                        \
      x[n / 2] = (T)0;                                                                             \
    } else if (kind == PT_BITS_AND) {                                                              \
      x[n - 1] = (T)0x735; /* the last index clears bit 6 */                                       \
    } else if (kind == PT_BITS_OR) {                                                               \
      x[n - 1] = (T)0x40; /* the last index sets bit 6 */                                          \
    }                                                                                              \
  }

PT_FILL_(f64, double, 1)
PT_FILL_(f32, float, 1)
PT_FILL_(i64, int64_t, 1)
PT_FILL_(i32, int32_t, 1)
PT_FILL_(u64, uint64_t, 0)
PT_FILL_(u32, uint32_t, 0)
PT_FILL_(u8, uint8_t, 0)

/** Run kernel K of reducer R over `rp` into `got` (declared R_value). */
#define PT_REDUCE_(K, rp, a, got) PT_OK(porta_parallel_reduce(#K, ex, (rp), &K, &(a), &(got)))

/** The arithmetic reducers of type TN against serial loops. EQ compares two values exactly;
 *  LOWEST/HIGHEST are the max and min identities. */
#define PT_ARITH_TEST_(TN, T, EQ, LOWEST, HIGHEST)                                                 \
  static void test_reduce_##TN(void) {                                                             \
    static const int64_t sizes[] = {1, 2, 7, 4099, PT_BIG};                                        \
    porta_exec ex = porta_exec_default();                                                          \
    red_args_##TN a;                                                                               \
    PT_OK(porta_view_##TN##_create1(&a.x, "x", PT_BIG));                                           \
    T *x = a.x.data;                                                                               \
    for (int det = 0; det < 2; ++det) {                                                            \
      porta_set_deterministic(det);                                                                \
      for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s) {                            \
        const int64_t n = sizes[s];                                                                \
        const porta_range_policy rp = porta_range(0, n);                                           \
        T got, ref;                                                                                \
        porta_##TN##_loc gl;                                                                       \
        int64_t rloc;                                                                              \
        /* sum, also from a non-zero begin and with a dynamic schedule hint */                     \
        fill_##TN(x, n, PT_GENERAL);                                                               \
        ref = (T)0;                                                                                \
        for (int64_t i = 0; i < n; ++i) ref = (T)(ref + x[i]);                                     \
        PT_REDUCE_(sum_##TN, rp, a, got);                                                          \
        EQ(got, ref);                                                                              \
        PT_REDUCE_(sum_##TN, porta_range_schedule(0, n, PORTA_SCHEDULE_DYNAMIC, 3), a, got);       \
        EQ(got, ref);                                                                              \
        ref = (T)0;                                                                                \
        for (int64_t i = n / 3; i < n; ++i) ref = (T)(ref + x[i]);                                 \
        PT_REDUCE_(sum_##TN, porta_range(n / 3, n), a, got);                                       \
        EQ(got, ref);                                                                              \
        /* min, max */                                                                             \
        ref = x[0];                                                                                \
        for (int64_t i = 1; i < n; ++i) ref = x[i] < ref ? x[i] : ref;                             \
        PT_REDUCE_(min_##TN, rp, a, got);                                                          \
        EQ(got, ref);                                                                              \
        ref = x[0];                                                                                \
        for (int64_t i = 1; i < n; ++i) ref = x[i] > ref ? x[i] : ref;                             \
        PT_REDUCE_(max_##TN, rp, a, got);                                                          \
        EQ(got, ref);                                                                              \
        /* prod */                                                                                 \
        fill_##TN(x, n, PT_PROD);                                                                  \
        ref = (T)1;                                                                                \
        for (int64_t i = 0; i < n; ++i) ref = (T)(ref * x[i]);                                     \
        PT_REDUCE_(prod_##TN, rp, a, got);                                                         \
        EQ(got, ref);                                                                              \
        /* minloc, maxloc: ties resolve to the smallest index */                                   \
        fill_##TN(x, n, PT_LOC);                                                                   \
        ref = x[0];                                                                                \
        rloc = 0;                                                                                  \
        for (int64_t i = 1; i < n; ++i)                                                            \
          if (x[i] < ref) {                                                                        \
            ref = x[i];                                                                            \
            rloc = i;                                                                              \
          }                                                                                        \
        PT_REDUCE_(minloc_##TN, rp, a, gl);                                                        \
        EQ(gl.val, ref);                                                                           \
        PT_EQ_I64(gl.loc, rloc);                                                                   \
        if (n > 100) PT_EQ_I64(gl.loc, n / 2 + 1);                                                 \
        ref = x[0];                                                                                \
        rloc = 0;                                                                                  \
        for (int64_t i = 1; i < n; ++i)                                                            \
          if (x[i] > ref) {                                                                        \
            ref = x[i];                                                                            \
            rloc = i;                                                                              \
          }                                                                                        \
        PT_REDUCE_(maxloc_##TN, rp, a, gl);                                                        \
        EQ(gl.val, ref);                                                                           \
        PT_EQ_I64(gl.loc, rloc);                                                                   \
        if (n > 100) PT_EQ_I64(gl.loc, n / 3 + 1);                                                 \
        /* land, lor on the three logical data sets */                                             \
        for (int kind = PT_LOGIC_ALL; kind <= PT_LOGIC_NONE; ++kind) {                             \
          fill_##TN(x, n, kind);                                                                   \
          PT_REDUCE_(land_##TN, rp, a, got);                                                       \
          EQ(got, kind == PT_LOGIC_ALL ? 1 : 0);                                                   \
          PT_REDUCE_(lor_##TN, rp, a, got);                                                        \
          EQ(got, kind == PT_LOGIC_NONE || (kind == PT_LOGIC_ONE_ZERO && n == 1) ? 0 : 1);         \
        }                                                                                          \
      }                                                                                            \
      /* empty ranges give the identities */                                                       \
      {                                                                                            \
        const porta_range_policy e = porta_range(5, 5);                                            \
        T got;                                                                                     \
        porta_##TN##_loc gl;                                                                       \
        PT_REDUCE_(sum_##TN, e, a, got);                                                           \
        EQ(got, 0);                                                                                \
        PT_REDUCE_(prod_##TN, e, a, got);                                                          \
        EQ(got, 1);                                                                                \
        PT_REDUCE_(min_##TN, e, a, got);                                                           \
        EQ(got, HIGHEST);                                                                          \
        PT_REDUCE_(max_##TN, e, a, got);                                                           \
        EQ(got, LOWEST);                                                                           \
        PT_REDUCE_(minloc_##TN, e, a, gl);                                                         \
        EQ(gl.val, HIGHEST);                                                                       \
        PT_EQ_I64(gl.loc, INT64_MAX);                                                              \
        PT_REDUCE_(maxloc_##TN, e, a, gl);                                                         \
        EQ(gl.val, LOWEST);                                                                        \
        PT_EQ_I64(gl.loc, INT64_MAX);                                                              \
        PT_REDUCE_(land_##TN, e, a, got);                                                          \
        EQ(got, 1);                                                                                \
        PT_REDUCE_(lor_##TN, e, a, got);                                                           \
        EQ(got, 0);                                                                                \
      }                                                                                            \
    }                                                                                              \
    porta_set_deterministic(0);                                                                    \
    porta_view_##TN##_release(&a.x);                                                               \
  }

/** band / bor of integer type TN against serial loops, and their identities. */
#define PT_BITS_TEST_(TN, T)                                                                       \
  static void test_reduce_bits_##TN(void) {                                                        \
    static const int64_t sizes[] = {1, 2, 7, 4099, PT_BIG};                                        \
    porta_exec ex = porta_exec_default();                                                          \
    red_args_##TN a;                                                                               \
    PT_OK(porta_view_##TN##_create1(&a.x, "x", PT_BIG));                                           \
    T *x = a.x.data;                                                                               \
    for (int det = 0; det < 2; ++det) {                                                            \
      porta_set_deterministic(det);                                                                \
      for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s) {                            \
        const int64_t n = sizes[s];                                                                \
        T got, ref;                                                                                \
        fill_##TN(x, n, PT_BITS_AND);                                                              \
        ref = (T) ~(T)0;                                                                           \
        for (int64_t i = 0; i < n; ++i) ref = (T)(ref & x[i]);                                     \
        PT_REDUCE_(band_##TN, porta_range(0, n), a, got);                                          \
        PT_EQ_I64(got, ref);                                                                       \
        if (n > 100) PT_EQ_I64(got, (T)0x730);                                                     \
        fill_##TN(x, n, PT_BITS_OR);                                                               \
        ref = (T)0;                                                                                \
        for (int64_t i = 0; i < n; ++i) ref = (T)(ref | x[i]);                                     \
        PT_REDUCE_(bor_##TN, porta_range(0, n), a, got);                                           \
        PT_EQ_I64(got, ref);                                                                       \
        if (n > 100) PT_EQ_I64(got, 0x7F);                                                         \
      }                                                                                            \
      {                                                                                            \
        T got;                                                                                     \
        PT_REDUCE_(band_##TN, porta_range(0, 0), a, got);                                          \
        PT_EQ_I64(got, (T) ~(T)0);                                                                 \
        PT_REDUCE_(bor_##TN, porta_range(0, 0), a, got);                                           \
        PT_EQ_I64(got, 0);                                                                         \
      }                                                                                            \
    }                                                                                              \
    porta_set_deterministic(0);                                                                    \
    porta_view_##TN##_release(&a.x);                                                               \
  }

PT_ARITH_TEST_(f64, double, PT_EQ_F64, -HUGE_VAL, HUGE_VAL)
PT_ARITH_TEST_(f32, float, PT_EQ_F64, -HUGE_VALF, HUGE_VALF)
PT_ARITH_TEST_(i64, int64_t, PT_EQ_I64, INT64_MIN, INT64_MAX)
PT_ARITH_TEST_(i32, int32_t, PT_EQ_I64, INT32_MIN, INT32_MAX)
PT_ARITH_TEST_(u64, uint64_t, PT_EQ_I64, 0, UINT64_MAX)
PT_ARITH_TEST_(u32, uint32_t, PT_EQ_I64, 0, UINT32_MAX)
PT_ARITH_TEST_(u8, uint8_t, PT_EQ_I64, 0, UINT8_MAX)
PT_BITS_TEST_(i64, int64_t)
PT_BITS_TEST_(i32, int32_t)
PT_BITS_TEST_(u64, uint64_t)
PT_BITS_TEST_(u32, uint32_t)
PT_BITS_TEST_(u8, uint8_t)

/** Spot checks with hand-computed answers (not a serial loop over the same data). */
static void test_reduce_known_values(void) {
  porta_exec ex = porta_exec_default();
  red_args_i64 a;
  PT_OK(porta_view_i64_create1(&a.x, "x", PT_BIG));
  for (int64_t i = 0; i < PT_BIG; ++i) a.x.data[i] = i;
  for (int det = 0; det < 2; ++det) {
    porta_set_deterministic(det);
    int64_t s = -1;
    PT_REDUCE_(sum_i64, porta_range(0, PT_BIG), a, s);
    PT_EQ_I64(s, (int64_t)PT_BIG * (PT_BIG - 1) / 2);
    PT_REDUCE_(sum_i64, porta_range(17, 1017), a, s);
    PT_EQ_I64(s, (17 + 1016) * 1000 / 2);
    PT_REDUCE_(max_i64, porta_range(0, PT_BIG), a, s);
    PT_EQ_I64(s, PT_BIG - 1);
    PT_REDUCE_(min_i64, porta_range(3, PT_BIG), a, s);
    PT_EQ_I64(s, 3);
    porta_i64_loc l;
    PT_REDUCE_(maxloc_i64, porta_range(0, PT_BIG), a, l);
    PT_EQ_I64(l.val, PT_BIG - 1);
    PT_EQ_I64(l.loc, PT_BIG - 1);
    PT_REDUCE_(minloc_i64, porta_range(0, 7), a, l);
    PT_EQ_I64(l.val, 0);
    PT_EQ_I64(l.loc, 0);
  }
  porta_set_deterministic(0);
  porta_view_i64_release(&a.x);
}

/* ------------------------------------------------------------------------------------------ */
/* Custom reducers                                                                             */
/* ------------------------------------------------------------------------------------------ */

/** Several values reduced at once: sum and count of the positive values, and the maximum. */
typedef struct {
  double sum;
  double max;
  int64_t count;
} stats_value;
PORTA_INLINE_FUNCTION void stats_init(stats_value *v) {
  v->sum = 0;
  v->max = -HUGE_VAL;
  v->count = 0;
}
PORTA_INLINE_FUNCTION void stats_join(stats_value *d, const stats_value *s) {
  d->sum += s->sum;
  if (s->max > d->max) d->max = s->max;
  d->count += s->count;
}

PORTA_REDUCE(stats_k, red_args_f64, a, i, stats, acc) {
  double v = PORTA_AT1(a->x, i);
  if (v > 0) {
    acc->sum += v;
    acc->count += 1;
  }
  if (v > acc->max) acc->max = v;
}

PORTA_DEFINE_SUM_REDUCER(sum3, double, 3)

/** Count, sum and sum of squares in one pass. */
PORTA_REDUCE(moments_k, red_args_f64, a, i, sum3, acc) {
  double v = PORTA_AT1(a->x, i);
  acc->v[0] += 1;
  acc->v[1] += v;
  acc->v[2] += v * v;
}

static void test_reduce_custom(void) {
  static const int64_t sizes[] = {0, 1, 7, 4099, PT_BIG};
  porta_exec ex = porta_exec_default();
  red_args_f64 a;
  PT_OK(porta_view_f64_create1(&a.x, "x", PT_BIG));
  fill_f64(a.x.data, PT_BIG, PT_GENERAL);
  for (int det = 0; det < 2; ++det) {
    porta_set_deterministic(det);
    for (int s = 0; s < 5; ++s) {
      const int64_t n = sizes[s];
      stats_value ref, got;
      stats_init(&ref);
      for (int64_t i = 0; i < n; ++i) {
        double v = a.x.data[i];
        if (v > 0) {
          ref.sum += v;
          ref.count += 1;
        }
        if (v > ref.max) ref.max = v;
      }
      PT_REDUCE_(stats_k, porta_range(0, n), a, got);
      PT_EQ_F64(got.sum, ref.sum);
      PT_EQ_F64(got.max, ref.max);
      PT_EQ_I64(got.count, ref.count);

      sum3_value m, mr;
      sum3_init(&mr);
      for (int64_t i = 0; i < n; ++i) {
        mr.v[0] += 1;
        mr.v[1] += a.x.data[i];
        mr.v[2] += a.x.data[i] * a.x.data[i];
      }
      PT_REDUCE_(moments_k, porta_range(0, n), a, m);
      PT_EQ_F64(m.v[0], (double)n);
      PT_EQ_F64(m.v[1], mr.v[1]);
      PT_EQ_F64(m.v[2], mr.v[2]);
    }
  }
  porta_set_deterministic(0);
  porta_view_f64_release(&a.x);
}

/* ------------------------------------------------------------------------------------------ */
/* parallel_scan                                                                               */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_i64 in, out;
} scan_i64_args;

PORTA_SCAN(exscan_k, scan_i64_args, a, i, porta_sum_i64, upd, fin) {
  if (fin) PORTA_AT1(a->out, i) = *upd;
  *upd += PORTA_AT1(a->in, i);
}

PORTA_SCAN(inscan_k, scan_i64_args, a, i, porta_sum_i64, upd, fin) {
  *upd += PORTA_AT1(a->in, i);
  if (fin) PORTA_AT1(a->out, i) = *upd;
}

/** A running maximum: a scan with a reducer other than sum. */
PORTA_SCAN(runmax_k, scan_i64_args, a, i, porta_max_i64, upd, fin) {
  int64_t v = PORTA_AT1(a->in, i);
  if (v > *upd) *upd = v;
  if (fin) PORTA_AT1(a->out, i) = *upd;
}

typedef struct {
  porta_view_f64 in, out;
} scan_f64_args;

PORTA_SCAN(exscan_f64_k, scan_f64_args, a, i, porta_sum_f64, upd, fin) {
  if (fin) PORTA_AT1(a->out, i) = *upd;
  *upd += PORTA_AT1(a->in, i);
}

/** Scan [b, b+n) with kernel k; compare out[] on the range (and untouched outside) with a
 *  serial exclusive (incl = 0), inclusive (1) or running-max (2) loop. */
static void check_scan(const porta_kernel *k, int mode, scan_i64_args *a, int64_t b, int64_t n) {
  const int64_t len = porta_extent(a->out, 0);
  int64_t total = -99, run = mode == 2 ? INT64_MIN : 0, bad = 0;
  PT_OK(porta_view_i64_fill(a->out, -5));
  PT_OK(porta_parallel_scan("scan", porta_exec_default(), porta_range(b, b + n), k, a, &total));
  for (int64_t i = 0; i < len; ++i) {
    int64_t want = -5;
    if (i >= b && i < b + n) {
      int64_t v = a->in.data[i];
      if (mode == 0) {
        want = run;
        run += v;
      } else if (mode == 1) {
        run += v;
        want = run;
      } else {
        run = v > run ? v : run;
        want = run;
      }
    }
    if (a->out.data[i] != want) {
      if (bad < 3)
        fprintf(stderr, "  scan mode %d [%lld, %lld): out[%lld] = %lld, want %lld\n", mode,
                (long long)b, (long long)(b + n), (long long)i, (long long)a->out.data[i],
                (long long)want);
      ++bad;
    }
  }
  PT_EQ_I64(bad, 0);
  PT_EQ_I64(total, run);
}

static void test_scan_i64(void) {
  static const int64_t sizes[] = {0, 1, 2, 3, 7, 1000, PT_BIG};
  scan_i64_args a;
  PT_OK(porta_view_i64_create1(&a.in, "in", PT_BIG + 8));
  PT_OK(porta_view_i64_create1(&a.out, "out", PT_BIG + 8));
  for (int64_t i = 0; i < PT_BIG + 8; ++i) a.in.data[i] = (int64_t)(pt_hash(i) % 1001) - 300;
  for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s)
    for (int b = sizes[s] == PT_BIG ? 5 : 0; b <= 5; b += 5) {
      check_scan(&exscan_k, 0, &a, b, sizes[s]);
      check_scan(&inscan_k, 1, &a, b, sizes[s]);
      check_scan(&runmax_k, 2, &a, b, sizes[s]);
    }
  /* a known answer: the exclusive scan of 1, 2, 3, ... is the triangular numbers */
  for (int64_t i = 0; i < PT_BIG; ++i) a.in.data[i] = i + 1;
  int64_t total = 0;
  PT_OK(porta_parallel_scan("tri", porta_exec_default(), porta_range(0, PT_BIG), &exscan_k, &a,
                            &total));
  PT_EQ_I64(total, (int64_t)PT_BIG * (PT_BIG + 1) / 2);
  PT_EQ_I64(a.out.data[0], 0);
  PT_EQ_I64(a.out.data[500000], (int64_t)500000 * 500001 / 2);
  PT_EQ_I64(a.out.data[PT_BIG - 1], (int64_t)(PT_BIG - 1) * PT_BIG / 2);
  /* the total may be NULL, and an empty scan's total is the identity */
  PT_OK(porta_parallel_scan("nototal", porta_exec_default(), porta_range(0, 100), &inscan_k, &a,
                            NULL));
  PT_EQ_I64(a.out.data[99], 100 * 101 / 2);
  total = 12345;
  PT_OK(
      porta_parallel_scan("empty", porta_exec_default(), porta_range(7, 7), &exscan_k, &a, &total));
  PT_EQ_I64(total, 0);
  porta_view_i64_release(&a.in);
  porta_view_i64_release(&a.out);
}

static void test_scan_f64(void) {
  scan_f64_args a;
  const int64_t n = PT_BIG;
  PT_OK(porta_view_f64_create1(&a.in, "in", n));
  PT_OK(porta_view_f64_create1(&a.out, "out", n));
  fill_f64(a.in.data, n, PT_GENERAL);
  double total = -1, run = 0;
  PT_OK(porta_parallel_scan("scan_f64", porta_exec_default(), porta_range(0, n), &exscan_f64_k, &a,
                            &total));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (a.out.data[i] != run) ++bad;
    run += a.in.data[i];
  }
  PT_EQ_I64(bad, 0);
  PT_EQ_F64(total, run);
  porta_view_f64_release(&a.in);
  porta_view_f64_release(&a.out);
}

/* ------------------------------------------------------------------------------------------ */
/* Argument errors                                                                             */
/* ------------------------------------------------------------------------------------------ */

static void test_errors(void) {
  porta_exec ex = porta_exec_default();
  visit_args v;
  PT_OK(porta_view_i64_create1(&v.count, "count", 10));
  PT_OK(porta_view_i64_create1(&v.value, "value", 10));
  red_args_i64 r;
  PT_OK(porta_view_i64_create1(&r.x, "x", 10));
  int64_t out = 0;
  PT_EXPECT_CODE(porta_parallel_for("bad", ex, porta_range(5, 3), &visit_k, &v),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce("bad", ex, porta_range(5, 3), &sum_i64, &r, &out),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for("bad", ex,
                                    porta_range_schedule(0, 5, PORTA_SCHEDULE_DYNAMIC, -1),
                                    &visit_k, &v),
                 PORTA_ERROR_INVALID_ARGUMENT);
  porta_range_policy p = porta_range(0, 5);
  p.schedule = 42;
  PT_EXPECT_CODE(porta_parallel_for("bad", ex, p, &visit_k, &v), PORTA_ERROR_INVALID_ARGUMENT);
  /* a kernel launched as another pattern */
  PT_EXPECT_CODE(porta_parallel_for("bad", ex, porta_range(0, 5), &sum_i64, &r),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce("bad", ex, porta_range(0, 5), &visit_k, &v, &out),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_scan("bad", ex, porta_range(0, 5), &sum_i64, &r, &out),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for("bad", ex, porta_range(0, 5), NULL, &v),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce("bad", ex, porta_range(0, 5), &sum_i64, &r, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* nothing ran */
  for (int i = 0; i < 10; ++i) PT_EQ_I64(v.count.data[i], 0);
  porta_view_i64_release(&v.count);
  porta_view_i64_release(&v.value);
  porta_view_i64_release(&r.x);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_for_static);
  PT_RUN(test_for_dynamic);
  PT_RUN(test_reduce_f64);
  PT_RUN(test_reduce_f32);
  PT_RUN(test_reduce_i64);
  PT_RUN(test_reduce_i32);
  PT_RUN(test_reduce_u64);
  PT_RUN(test_reduce_u32);
  PT_RUN(test_reduce_u8);
  PT_RUN(test_reduce_bits_i64);
  PT_RUN(test_reduce_bits_i32);
  PT_RUN(test_reduce_bits_u64);
  PT_RUN(test_reduce_bits_u32);
  PT_RUN(test_reduce_bits_u8);
  PT_RUN(test_reduce_known_values);
  PT_RUN(test_reduce_custom);
  PT_RUN(test_scan_i64);
  PT_RUN(test_scan_f64);
  PT_RUN(test_errors);
  PT_END();
}
