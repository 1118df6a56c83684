/** @file test_mdrange.c
 *  Multi-dimensional ranges: PORTA_MDFOR2..6 visit every point of a box exactly once (non-zero
 *  lower bounds, extents that divide no thread count, empty boxes, tile hints), checked against
 *  a host loop over every element of the view; PORTA_MDREDUCE2..6 sums and maxima, exact (ranks
 *  4 to 6 against a host loop, in the default and the deterministic mode); a
 *  5-point stencil against a hand-written loop; and the policy errors (rank mismatch between
 *  kernel and policy, lower > upper, a box kernel launched over a range and vice versa).
 */
#include <stdint.h>

#include "harness.h"

/** Every kernel adds code(i...) + 1 to its point of a zero-filled view, so a missed point reads
 *  0 and a point visited twice reads twice the code. code = the indices as base-100 digits. */
typedef struct {
  porta_view_i64 v;
} md_args;

PORTA_MDFOR2(fill2, md_args, a, i0, i1) { PORTA_AT2(a->v, i0, i1) += i0 * 100 + i1 + 1; }

PORTA_MDFOR3(fill3, md_args, a, i0, i1, i2) {
  PORTA_AT3(a->v, i0, i1, i2) += (i0 * 100 + i1) * 100 + i2 + 1;
}

PORTA_MDFOR4(fill4, md_args, a, i0, i1, i2, i3) {
  PORTA_AT4(a->v, i0, i1, i2, i3) += ((i0 * 100 + i1) * 100 + i2) * 100 + i3 + 1;
}

PORTA_MDFOR5(fill5, md_args, a, i0, i1, i2, i3, i4) {
  PORTA_AT5(a->v, i0, i1, i2, i3, i4) += (((i0 * 100 + i1) * 100 + i2) * 100 + i3) * 100 + i4 + 1;
}

PORTA_MDFOR6(fill6, md_args, a, i0, i1, i2, i3, i4, i5) {
  PORTA_AT6(a->v, i0, i1, i2, i3, i4, i5) +=
      ((((i0 * 100 + i1) * 100 + i2) * 100 + i3) * 100 + i4) * 100 + i5 + 1;
}

static const porta_kernel *const fill_kernels[7] = {NULL,   NULL,   &fill2, &fill3,
                                                    &fill4, &fill5, &fill6};

/** Fill the box [lo, up) of rank `rank` through its kernel, in a view one larger than `up` in
 *  every dimension, and check every element of the view on the host. */
static void check_fill(int rank, const int64_t *lo, const int64_t *up, const int64_t *tile) {
  md_args a;
  int64_t ext[PORTA_MDRANGE_MAX_RANK], idx[PORTA_MDRANGE_MAX_RANK], total = 1;
  for (int r = 0; r < rank; ++r) {
    ext[r] = up[r] + 1;
    total *= ext[r];
    idx[r] = 0;
  }
  PT_OK(porta_view_i64_create(&a.v, "md", rank, ext, NULL));
  PT_OK(porta_view_i64_fill(a.v, 0));
  PT_OK(porta_parallel_for_md("fill", porta_exec_default(), porta_mdrange(rank, lo, up, tile),
                              fill_kernels[rank], &a));
  int64_t bad = 0, inside = 0;
  for (int64_t k = 0; k < total; ++k) {
    int64_t off = 0, code = 0;
    int in = 1;
    for (int r = 0; r < rank; ++r) {
      off += idx[r] * a.v.m.stride[r];
      code = code * 100 + idx[r];
      if (idx[r] < lo[r] || idx[r] >= up[r]) in = 0;
    }
    int64_t want = in ? code + 1 : 0;
    inside += in;
    if (a.v.data[off] != want) {
      if (bad < 3)
        fprintf(stderr, "  rank %d: element with code %lld holds %lld, want %lld\n", rank,
                (long long)code, (long long)a.v.data[off], (long long)want);
      ++bad;
    }
    for (int r = rank - 1; r >= 0; --r) { /* next multi-index, last index fastest */
      if (++idx[r] < ext[r]) break;
      idx[r] = 0;
    }
  }
  int64_t box = 1;
  for (int r = 0; r < rank; ++r) box *= up[r] - lo[r];
  PT_EQ_I64(inside, box);
  PT_EQ_I64(bad, 0);
  porta_view_i64_release(&a.v);
}

static void test_mdfor_all_ranks(void) {
  /* lower bounds non-zero, extents odd / prime so that they divide no thread count */
  static const int64_t lo[7][6] = {
      {0}, {0}, {3, 2}, {1, 2, 0}, {1, 0, 2, 1}, {1, 1, 0, 2, 1}, {1, 0, 1, 0, 2, 1}};
  static const int64_t up[7][6] = {
      {0}, {0}, {40, 37}, {12, 9, 13}, {6, 5, 7, 4}, {5, 4, 3, 5, 6}, {4, 3, 5, 3, 5, 4}};
  for (int rank = 2; rank <= 6; ++rank) check_fill(rank, lo[rank], up[rank], NULL);
}

static void test_mdfor_large_and_tiled(void) {
  int64_t lo[2], up[2], tile[2];
  lo[0] = 5;
  lo[1] = 7;
  up[0] = 306;
  up[1] = 410;
  check_fill(2, lo, up, NULL);
  tile[0] = 4;
  tile[1] = 32;
  check_fill(2, lo, up, tile); /* tiles are hints: same points */
  int64_t lo3[3], up3[3], tile3[3];
  lo3[0] = 0;
  lo3[1] = 3;
  lo3[2] = 1;
  up3[0] = 29;
  up3[1] = 34;
  up3[2] = 47;
  tile3[0] = 2;
  tile3[1] = 4;
  tile3[2] = 8;
  check_fill(3, lo3, up3, NULL);
  check_fill(3, lo3, up3, tile3);
  /* single points */
  lo[0] = 4;
  lo[1] = 9;
  up[0] = 5;
  up[1] = 10;
  check_fill(2, lo, up, NULL);
  static const int64_t lo6[6] = {2, 2, 2, 2, 2, 2}, up6[6] = {3, 3, 3, 3, 3, 3};
  check_fill(6, lo6, up6, NULL);
}

static void test_mdfor_empty(void) {
  /* empty in the first, a middle and the last dimension, and lower == upper == 0 */
  for (int rank = 2; rank <= 6; ++rank)
    for (int e = 0; e < rank; ++e) {
      int64_t lo[6], up[6];
      for (int r = 0; r < rank; ++r) {
        lo[r] = 1;
        up[r] = 4;
      }
      lo[e] = up[e] = 2;
      check_fill(rank, lo, up, NULL);
      lo[e] = up[e] = 0;
      check_fill(rank, lo, up, NULL);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* MDREDUCE                                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  int dummy;
} none_args;

PORTA_MDREDUCE2(sum2, none_args, a, i, j, porta_sum_f64, acc) { *acc += (double)(i * 1000 + j); }

PORTA_MDREDUCE3(sum3, none_args, a, i, j, k, porta_sum_f64, acc) {
  *acc += (double)(i * 1000000 + j * 1000 + k);
}

PORTA_MDREDUCE2(max2, none_args, a, i, j, porta_max_i64, acc) {
  int64_t v = i * 1000 + j;
  if (v > *acc) *acc = v;
}

typedef struct {
  porta_view_i64 v;
} count_args;

/** Integer count of points, from the data of a view (reads a view inside an MD reduction). */
PORTA_MDREDUCE3(count3, count_args, a, i, j, k, porta_sum_i64, acc) {
  *acc += PORTA_AT3(a->v, i, j, k);
}

/** code = the indices as base-16 digits, summed exactly (integers). */
PORTA_MDREDUCE4(sum4, none_args, a, i, j, k, l, porta_sum_i64, acc) {
  *acc += ((i * 16 + j) * 16 + k) * 16 + l;
}
PORTA_MDREDUCE5(sum5, none_args, a, i, j, k, l, m, porta_sum_i64, acc) {
  *acc += (((i * 16 + j) * 16 + k) * 16 + l) * 16 + m;
}
PORTA_MDREDUCE6(max6, none_args, a, i, j, k, l, m, n, porta_max_i64, acc) {
  const int64_t v = ((((i * 16 + j) * 16 + k) * 16 + l) * 16 + m) * 16 + n - 7 * (i == 2);
  if (v > *acc) *acc = v;
}

static void test_mdreduce_high_ranks(void) {
  porta_exec ex = porta_exec_default();
  none_args na = {0};
  /* lower bounds above 0, extents that divide no thread count, one box of 2049+ points */
  const int64_t lo[6] = {1, 0, 2, 3, 1, 0}, hi[6] = {4, 5, 9, 6, 4, 7};
  for (int det = 0; det < 2; ++det) {
    porta_set_deterministic(det);
    const porta_mdrange_policy p4 = porta_mdrange(4, lo, hi, NULL);
    int64_t ref = 0, got = -1;
    for (int64_t i = lo[0]; i < hi[0]; ++i)
      for (int64_t j = lo[1]; j < hi[1]; ++j)
        for (int64_t k = lo[2]; k < hi[2]; ++k)
          for (int64_t l = lo[3]; l < hi[3]; ++l) ref += ((i * 16 + j) * 16 + k) * 16 + l;
    PT_OK(porta_parallel_reduce_md("sum4", ex, p4, &sum4, &na, &got));
    PT_EQ_I64(got, ref);

    const porta_mdrange_policy p5 = porta_mdrange(5, lo, hi, NULL);
    ref = 0;
    got = -1;
    for (int64_t i = lo[0]; i < hi[0]; ++i)
      for (int64_t j = lo[1]; j < hi[1]; ++j)
        for (int64_t k = lo[2]; k < hi[2]; ++k)
          for (int64_t l = lo[3]; l < hi[3]; ++l)
            for (int64_t m = lo[4]; m < hi[4]; ++m)
              ref += (((i * 16 + j) * 16 + k) * 16 + l) * 16 + m;
    PT_OK(porta_parallel_reduce_md("sum5", ex, p5, &sum5, &na, &got));
    PT_EQ_I64(got, ref);

    const porta_mdrange_policy p6 = porta_mdrange(6, lo, hi, NULL);
    ref = INT64_MIN;
    got = 0;
    for (int64_t i = lo[0]; i < hi[0]; ++i)
      for (int64_t j = lo[1]; j < hi[1]; ++j)
        for (int64_t k = lo[2]; k < hi[2]; ++k)
          for (int64_t l = lo[3]; l < hi[3]; ++l)
            for (int64_t m = lo[4]; m < hi[4]; ++m)
              for (int64_t n = lo[5]; n < hi[5]; ++n) {
                const int64_t v =
                    ((((i * 16 + j) * 16 + k) * 16 + l) * 16 + m) * 16 + n - 7 * (i == 2);
                if (v > ref) ref = v;
              }
    PT_OK(porta_parallel_reduce_md("max6", ex, p6, &max6, &na, &got));
    PT_EQ_I64(got, ref);

    /* an empty box: the reducer's identity */
    const int64_t elo[4] = {0, 2, 0, 0}, ehi[4] = {3, 2, 3, 3};
    got = -1;
    PT_OK(porta_parallel_reduce_md("sum4", ex, porta_mdrange(4, elo, ehi, NULL), &sum4, &na, &got));
    PT_EQ_I64(got, 0);
  }
  porta_set_deterministic(0);
}

static void test_mdreduce(void) {
  porta_exec ex = porta_exec_default();
  none_args na;
  na.dummy = 0;
  for (int det = 0; det < 2; ++det) {
    porta_set_deterministic(det);
    /* rank 2 */
    static const int64_t b2[][4] = {{5, 306, 7, 410}, {0, 1, 0, 1},  {3, 4, 0, 2049},
                                    {0, 2049, 2, 3},  {4, 4, 0, 10}, {0, 10, 6, 6}};
    for (int c = 0; c < 6; ++c) {
      const int64_t l0 = b2[c][0], u0 = b2[c][1], l1 = b2[c][2], u1 = b2[c][3];
      double ref = 0, got = -1;
      int64_t maxref = INT64_MIN, gmax = 0;
      for (int64_t i = l0; i < u0; ++i)
        for (int64_t j = l1; j < u1; ++j) {
          ref += (double)(i * 1000 + j);
          if (i * 1000 + j > maxref) maxref = i * 1000 + j;
        }
      PT_OK(porta_parallel_reduce_md("sum2", ex, porta_mdrange2(l0, u0, l1, u1), &sum2, &na, &got));
      PT_EQ_F64(got, ref);
      /* closed form: sum_i sum_j (1000 i + j) */
      const double ni = (double)(u0 - l0), nj = (double)(u1 - l1);
      const double si = ni * (double)(l0 + u0 - 1) / 2, sj = nj * (double)(l1 + u1 - 1) / 2;
      PT_EQ_F64(got, 1000 * si * nj + sj * ni);
      PT_OK(
          porta_parallel_reduce_md("max2", ex, porta_mdrange2(l0, u0, l1, u1), &max2, &na, &gmax));
      PT_EQ_I64(gmax, maxref);
    }
    /* rank 3 */
    static const int64_t b3[][6] = {
        {1, 38, 2, 43, 3, 50}, {0, 1, 0, 1, 0, 1}, {0, 3, 0, 0, 0, 5}, {2, 5, 1, 4, 7, 2055}};
    for (int c = 0; c < 4; ++c) {
      const int64_t *b = b3[c];
      double ref = 0, got = -1;
      for (int64_t i = b[0]; i < b[1]; ++i)
        for (int64_t j = b[2]; j < b[3]; ++j)
          for (int64_t k = b[4]; k < b[5]; ++k) ref += (double)(i * 1000000 + j * 1000 + k);
      PT_OK(porta_parallel_reduce_md("sum3", ex, porta_mdrange3(b[0], b[1], b[2], b[3], b[4], b[5]),
                                     &sum3, &na, &got));
      PT_EQ_F64(got, ref);
    }
  }
  porta_set_deterministic(0);

  /* count the ones of a view over a sub-box */
  count_args ca;
  PT_OK(porta_view_i64_create3(&ca.v, "ones", 17, 19, 23));
  PT_OK(porta_view_i64_fill(ca.v, 1));
  int64_t n = 0;
  PT_OK(porta_parallel_reduce_md("count3", ex, porta_mdrange3(1, 16, 2, 19, 0, 23), &count3, &ca,
                                 &n));
  PT_EQ_I64(n, 15 * 17 * 23);
  porta_view_i64_release(&ca.v);
}

/* ------------------------------------------------------------------------------------------ */
/* A 5-point stencil                                                                           */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_f64 u, out;
} stencil_args;

PORTA_MDFOR2(laplace, stencil_args, a, i, j) {
  PORTA_AT2(a->out, i, j) = 4.0 * PORTA_AT2(a->u, i, j) - PORTA_AT2(a->u, i - 1, j) -
                            PORTA_AT2(a->u, i + 1, j) - PORTA_AT2(a->u, i, j - 1) -
                            PORTA_AT2(a->u, i, j + 1);
}

static void test_stencil(void) {
  const int64_t n = 203, m = 157;
  stencil_args a;
  PT_OK(porta_view_f64_create2(&a.u, "u", n, m));
  PT_OK(porta_view_f64_create2(&a.out, "out", n, m));
  PT_OK(porta_view_f64_fill(a.out, -1.0));
#define U(i, j) PORTA_S2(a.u, i, j) /* host reads: any layout */
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) U(i, j) = (double)((i * 31 + j * 17) % 101) * 0.37 - 3.1;
  PT_OK(porta_parallel_for_md("laplace", porta_exec_default(), porta_mdrange2(1, n - 1, 1, m - 1),
                              &laplace, &a));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double want = -1.0;
      if (i > 0 && i < n - 1 && j > 0 && j < m - 1)
        want = 4.0 * U(i, j) - U(i - 1, j) - U(i + 1, j) - U(i, j - 1) - U(i, j + 1);
      if (PORTA_S2(a.out, i, j) != want) ++bad;
    }
  PT_EQ_I64(bad, 0);
  /* a known value: u = i^2 + j^2 has discrete Laplacian -4 everywhere */
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) U(i, j) = (double)(i * i + j * j);
  PT_OK(porta_parallel_for_md("laplace", porta_exec_default(), porta_mdrange2(1, n - 1, 1, m - 1),
                              &laplace, &a));
  bad = 0;
  for (int64_t i = 1; i < n - 1; ++i)
    for (int64_t j = 1; j < m - 1; ++j)
      if (PORTA_S2(a.out, i, j) != -4.0) ++bad;
  PT_EQ_I64(bad, 0);
#undef U
  porta_view_f64_release(&a.u);
  porta_view_f64_release(&a.out);
}

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_i64 v;
} range_args;

PORTA_FOR(range_k, range_args, a, i) { PORTA_AT1(a->v, i) = 1; }

static void test_errors(void) {
  porta_exec ex = porta_exec_default();
  md_args a;
  PT_OK(porta_view_i64_create3(&a.v, "v", 8, 8, 8));
  none_args na;
  na.dummy = 0;
  double d = 0;
  /* rank of kernel and policy differ */
  PT_EXPECT_CODE(porta_parallel_for_md("bad", ex, porta_mdrange2(0, 4, 0, 4), &fill3, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for_md("bad", ex, porta_mdrange3(0, 4, 0, 4, 0, 4), &fill2, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(
      porta_parallel_reduce_md("bad", ex, porta_mdrange3(0, 4, 0, 4, 0, 4), &sum2, &na, &d),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce_md("bad", ex, porta_mdrange2(0, 4, 0, 4), &sum3, &na, &d),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* lower > upper in any dimension */
  PT_EXPECT_CODE(porta_parallel_for_md("bad", ex, porta_mdrange3(5, 3, 0, 4, 0, 4), &fill3, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for_md("bad", ex, porta_mdrange3(0, 4, 0, 4, 2, 1), &fill3, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce_md("bad", ex, porta_mdrange2(0, 4, 3, 2), &sum2, &na, &d),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* box kernels over ranges and range kernels over boxes; a for kernel as a reduction */
  range_args ra;
  PT_OK(porta_view_i64_create1(&ra.v, "r", 8));
  PT_EXPECT_CODE(porta_parallel_for("bad", ex, porta_range(0, 4), &fill2, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_for_md("bad", ex, porta_mdrange2(0, 4, 0, 4), &range_k, &ra),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce_md("bad", ex, porta_mdrange2(0, 4, 0, 4), &fill2, &a, &d),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce_md("bad", ex, porta_mdrange2(0, 4, 0, 4), &sum2, &na, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* nothing ran */
  int64_t nonzero = 0;
  for (int64_t k = 0; k < 8 * 8 * 8; ++k) nonzero += a.v.data[k] != 0; /* any layout */
  for (int64_t k = 0; k < 8; ++k) nonzero += ra.v.data[k] != 0;
  PT_EQ_I64(nonzero, 0);
  porta_view_i64_release(&a.v);
  porta_view_i64_release(&ra.v);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_mdfor_all_ranks);
  PT_RUN(test_mdfor_large_and_tiled);
  PT_RUN(test_mdfor_empty);
  PT_RUN(test_mdreduce);
  PT_RUN(test_mdreduce_high_ranks);
  PT_RUN(test_stencil);
  PT_RUN(test_errors);
  PT_END();
}
