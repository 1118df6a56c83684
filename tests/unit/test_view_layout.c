/** @file test_view_layout.c
 *  View layouts and sizes: Right / Left / Stride layouts and their accessors against
 *  hand-computed offsets (on the host and in kernels), padding, index arithmetic past 2^31
 *  elements, and impossible sizes (negative, overflowing, unavailable memory).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "view_test_util.h"

/* The impossible-size checks ask for 2^60 bytes; AddressSanitizer must return NULL for it
 * (as malloc does) instead of stopping the program. ASAN_OPTIONS from the environment still
 * applies on top of this. */
#if defined(__SANITIZE_ADDRESS__)
#ifdef __cplusplus
extern "C" {
#endif
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#ifdef __cplusplus
}
#endif
#endif

/* ------------------------------------------------------------------------------------------ */
/* kernels                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Writes through the Right and the Left accessors. */
typedef struct {
  porta_view_f64 r, l;
} layout_args;
PORTA_MDFOR2(layout_fill_k, layout_args, a, i, j) {
  PORTA_R2(a->r, i, j) = 100.0 * i + j;
  PORTA_L2(a->l, i, j) = 100.0 * i + j;
}

/** Any strides: s(i, j) = 10 i + j. */
typedef struct {
  porta_view_f64 s;
} stride_args;
PORTA_MDFOR2(stride_fill_k, stride_args, a, i, j) { PORTA_S2(a->s, i, j) = 10.0 * i + j; }

/** Past 2^31: writes v(k) for k = base + step * i, and sums them back. */
typedef struct {
  porta_view_u8 v;
  int64_t base, step;
} big_args;
PORTA_INLINE_FUNCTION uint8_t big_value(int64_t k) { return (uint8_t)((k * 7 + 3) & 0xff); }
PORTA_FOR(big_write_k, big_args, a, i) {
  const int64_t k = a->base + a->step * i;
  PORTA_AT1(a->v, k) = big_value(k);
}
PORTA_REDUCE(big_read_k, big_args, a, i, porta_sum_u64, acc) {
  *acc += PORTA_AT1(a->v, a->base + a->step * i);
}
PORTA_MDFOR2(big2_write_k, big_args, a, i, j) { PORTA_AT2(a->v, i, j) = big_value(i + 3 * j); }
PORTA_MDREDUCE2(big2_read_k, big_args, a, i, j, porta_sum_u64, acc) {
  *acc += PORTA_AT2(a->v, i, j);
}

/* ------------------------------------------------------------------------------------------ */
/* layouts and padding                                                                         */
/* ------------------------------------------------------------------------------------------ */

static void test_layouts(void) {
  porta_view_f64 r, l, s;
  const int64_t e3[3] = {3, 4, 5};
  porta_view_options oR = opts(PORTA_LAYOUT_RIGHT, 0, NULL), oL = opts(PORTA_LAYOUT_LEFT, 0, NULL);
  PT_OK(porta_view_f64_create(&r, "right", 3, e3, &oR));
  PT_OK(porta_view_f64_create(&l, "left", 3, e3, &oL));
  PT_EQ_I64(porta_stride(r, 0), 20);
  PT_EQ_I64(porta_stride(r, 1), 5);
  PT_EQ_I64(porta_stride(r, 2), 1);
  PT_EQ_I64(porta_stride(l, 0), 1);
  PT_EQ_I64(porta_stride(l, 1), 3);
  PT_EQ_I64(porta_stride(l, 2), 12);
  int64_t bad = 0;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k) {
        bad += &PORTA_R3(r, i, j, k) != r.data + (i * 20 + j * 5 + k);
        bad += &PORTA_AT3(r, i, j, k) != r.data + (i * 20 + j * 5 + k);
        bad += &PORTA_S3(r, i, j, k) != r.data + (i * 20 + j * 5 + k);
        bad += &PORTA_L3(l, i, j, k) != l.data + (i + j * 3 + k * 12);
        bad += &PORTA_S3(l, i, j, k) != l.data + (i + j * 3 + k * 12);
      }
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&r);
  porta_view_f64_release(&l);

  /* Stride: a 3x5 view with column-major strides and a leading dimension of 4 */
  const int64_t st[2] = {1, 4}, e2[2] = {3, 5};
  porta_view_options oS = opts(PORTA_LAYOUT_STRIDE, 0, st);
  PT_OK(porta_view_f64_create(&s, "strided", 2, e2, &oS));
  PT_EQ_I64(s.m.layout, PORTA_LAYOUT_STRIDE);
  PT_EQ_I64(porta_stride(s, 0), 1);
  PT_EQ_I64(porta_stride(s, 1), 4);
  PT_EQ_I64(porta_view_meta_span_bytes(&s.m), (2 * 1 + 4 * 4 + 1) * (int64_t)sizeof(double));
  PT_CHECK(!porta_view_meta_contiguous(&s.m));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) bad += &PORTA_S2(s, i, j) != s.data + (i + 4 * j);
  PT_EQ_I64(bad, 0);
  stride_args sa;
  sa.s = s;
  PT_OK(porta_parallel_for_md("stride_fill", porta_exec_default(), porta_mdrange2(0, 3, 0, 5),
                              &stride_fill_k, &sa));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) bad += s.data[i + 4 * j] != 10.0 * i + j;
  for (int64_t j = 0; j < 4; ++j) bad += s.data[3 + 4 * j] != 0.0; /* the gap row */
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&s);

  /* kernels write through R and L accessors to the hand-computed places */
  layout_args la;
  PT_OK(porta_view_f64_create(&la.r, "kr", 2, e2, &oR));
  PT_OK(porta_view_f64_create(&la.l, "kl", 2, e2, &oL));
  PT_OK(porta_parallel_for_md("layout_fill", porta_exec_default(), porta_mdrange2(0, 3, 0, 5),
                              &layout_fill_k, &la));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      bad += la.r.data[i * 5 + j] != 100.0 * i + j;
      bad += la.l.data[i + j * 3] != 100.0 * i + j;
    }
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&la.r);
  porta_view_f64_release(&la.l);

  /* rank 1: Left and Right are the same thing, and a default layout resolves to Right */
  porta_view_f64 d;
  PT_OK(porta_view_f64_create1(&d, "default", 4));
  PT_EQ_I64(d.m.layout, PORTA_LAYOUT_RIGHT);
  porta_view_f64_release(&d);
}

static void test_padding(void) {
  const int64_t e[2] = {3, 5};
  porta_view_options oR = opts(PORTA_LAYOUT_RIGHT, PORTA_VIEW_PADDED, NULL);
  porta_view_options oL = opts(PORTA_LAYOUT_LEFT, PORTA_VIEW_PADDED, NULL);
  porta_view_f64 r, l, flat;
  PT_OK(porta_view_f64_create(&r, "padded_r", 2, e, &oR));
  PT_EQ_I64(porta_stride(r, 0), 8);
  PT_EQ_I64(porta_stride(r, 1), 1);
  PT_EQ_I64(r.m.layout, PORTA_LAYOUT_RIGHT);
  PT_EQ_I64(porta_extent(r, 0), 3);
  PT_EQ_I64(porta_extent(r, 1), 5);
  PT_EQ_I64(porta_size(r), 15);
  PT_EQ_I64(porta_view_meta_span_bytes(&r.m), (2 * 8 + 4 + 1) * 8);
  PT_CHECK(!porta_view_meta_contiguous(&r.m));
  int64_t bad = 0;
  for (int64_t i = 0; i < 3; ++i) {
    bad += (uintptr_t)&PORTA_R2(r, i, 0) % 64 != 0; /* every row starts on 64 bytes */
    for (int64_t j = 0; j < 5; ++j) bad += &PORTA_R2(r, i, j) != r.data + (i * 8 + j);
  }
  PT_EQ_I64(bad, 0);
  PT_OK(porta_view_f64_fill(r, 1.5));
  /* the gaps between rows stay zero (the span ends at the last element) */
  for (int64_t k = 0; k < 21; ++k) bad += r.data[k] != (k % 8 < 5 ? 1.5 : 0.0);
  PT_EQ_I64(bad, 0);
  /* padded -> unpadded copy goes element by element */
  fill_ij(r);
  PT_OK(porta_view_f64_create2(&flat, "flat", 3, 5));
  PT_OK(porta_deep_copy(flat, r));
  for (int64_t k = 0; k < 15; ++k) bad += flat.data[k] != 100.0 * (k / 5) + k % 5;
  PT_EQ_I64(bad, 0);
  /* and back */
  PT_OK(porta_view_f64_fill(r, 0.0));
  PT_OK(porta_deep_copy(r, flat));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) bad += PORTA_R2(r, i, j) != 100.0 * i + j;
  PT_EQ_I64(bad, 0);
  /* resize keeps the padding */
  const int64_t e2[2] = {4, 9};
  PT_OK(porta_view_f64_resize(&r, 2, e2));
  PT_EQ_I64(porta_stride(r, 0), 16);
  PT_CHECK((r.m.traits & PORTA_VIEW_PADDED) != 0);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 9; ++j)
      bad += PORTA_R2(r, i, j) != (i < 3 && j < 5 ? 100.0 * i + j : 0);
  PT_EQ_I64(bad, 0);

  PT_OK(porta_view_f64_create(&l, "padded_l", 2, e, &oL));
  PT_EQ_I64(porta_stride(l, 0), 1);
  PT_EQ_I64(porta_stride(l, 1), 8);
  PT_CHECK(&PORTA_L2(l, 2, 4) == l.data + 2 + 4 * 8);
  porta_view_f64_release(&l);

  /* other element sizes: 64 bytes of f32 is 16 elements, of u8 64 */
  porta_view_f32 f;
  porta_view_u8 u;
  porta_view_options oRf = opts(PORTA_LAYOUT_RIGHT, PORTA_VIEW_PADDED, NULL);
  PT_OK(porta_view_f32_create(&f, "padded_f32", 2, e, &oRf));
  PT_OK(porta_view_u8_create(&u, "padded_u8", 2, e, &oRf));
  PT_EQ_I64(porta_stride(f, 0), 16);
  PT_EQ_I64(porta_stride(u, 0), 64);
  porta_view_f32_release(&f);
  porta_view_u8_release(&u);
  /* already a multiple of 64 bytes: no gap; rank 1: no padding; rank 3: innermost padded */
  porta_view_f64 a, b, c;
  const int64_t e8[2] = {3, 8}, e1[1] = {5}, e3[3] = {2, 3, 5};
  PT_OK(porta_view_f64_create(&a, "p8", 2, e8, &oR));
  PT_OK(porta_view_f64_create(&b, "p1", 1, e1, &oR));
  PT_OK(porta_view_f64_create(&c, "p3", 3, e3, &oR));
  PT_EQ_I64(porta_stride(a, 0), 8);
  PT_CHECK(porta_view_meta_contiguous(&a.m));
  PT_EQ_I64(porta_stride(b, 0), 1);
  PT_EQ_I64(porta_stride(c, 0), 24);
  PT_EQ_I64(porta_stride(c, 1), 8);
  PT_EQ_I64(porta_stride(c, 2), 1);
  porta_view_f64_release(&a);
  porta_view_f64_release(&b);
  porta_view_f64_release(&c);
  porta_view_f64_release(&r);
  porta_view_f64_release(&flat);
}

/* ------------------------------------------------------------------------------------------ */
/* sizes                                                                                       */
/* ------------------------------------------------------------------------------------------ */

/** A u8 view of 2^31 + 64 elements, and a 65536 x 32769 one (uninitialised: only a few pages
 *  are touched), written and read back by kernels at indices past 2^31. */
static void test_large_index(void) {
  const int64_t two31 = INT64_C(1) << 31;
  porta_view_options o = opts(PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNINITIALIZED, NULL);
  big_args a;
  const porta_exec ex = porta_exec_default();
  {
    const int64_t n = two31 + 64;
    int rc = porta_view_u8_create(&a.v, "big1d", 1, &n, &o);
    PT_OK(rc);
    if (rc) return;
    PT_EQ_I64(porta_size(a.v), n);
    PT_EQ_I64(porta_view_meta_span_bytes(&a.v.m), n);
    /* indices 2^31 - 32 ... 2^31 + 63 through an offset computed in the body */
    a.base = two31 - 32;
    a.step = 1;
    PT_OK(porta_parallel_for("big_write", ex, porta_range(0, 96), &big_write_k, &a));
    /* every 2^25-th element, from 0 to past 2^31 */
    a.base = 5;
    a.step = INT64_C(1) << 25;
    PT_OK(porta_parallel_for("big_write_sparse", ex, porta_range(0, 65), &big_write_k, &a));
    uint64_t expect = 0, got = 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < 96; ++i) {
      const int64_t k = two31 - 32 + i;
      expect += big_value(k);
      bad += a.v.data[k] != big_value(k);
    }
    PT_EQ_I64(bad, 0);
    a.base = two31 - 32;
    a.step = 1;
    PT_OK(porta_parallel_reduce("big_read", ex, porta_range(0, 96), &big_read_k, &a, &got));
    PT_EQ_I64(got, expect);
    /* the loop index itself past 2^31 */
    a.base = 0;
    got = 0;
    PT_OK(porta_parallel_reduce("big_read_direct", ex, porta_range(two31 - 32, two31 + 64),
                                &big_read_k, &a, &got));
    PT_EQ_I64(got, expect);
    expect = 0;
    for (int64_t i = 0; i < 65; ++i) {
      const int64_t k = 5 + i * (INT64_C(1) << 25);
      expect += big_value(k);
      bad += a.v.data[k] != big_value(k);
    }
    PT_EQ_I64(bad, 0);
    a.base = 5;
    a.step = INT64_C(1) << 25;
    PT_OK(porta_parallel_reduce("big_read_sparse", ex, porta_range(0, 65), &big_read_k, &a, &got));
    PT_EQ_I64(got, expect);
    a.v.data[n - 1] = 0x7f;
    PT_EQ_I64(PORTA_AT1(a.v, n - 1), 0x7f);
    PT_CHECK(&PORTA_AT1(a.v, n - 1) == a.v.data + two31 + 63);
    porta_view_u8_release(&a.v);
  }
  {
    const int64_t e[2] = {65536, 32769};
    int rc = porta_view_u8_create(&a.v, "big2d", 2, e, &o);
    PT_OK(rc);
    if (rc) return;
    PT_EQ_I64(porta_size(a.v), INT64_C(65536) * 32769);
    PT_EQ_I64(porta_stride(a.v, 0), 32769);
    PT_CHECK(&PORTA_AT2(a.v, 65535, 32768) == a.v.data + INT64_C(2147549183));
    porta_mdrange_policy box = porta_mdrange2(65530, 65536, 32760, 32769);
    PT_OK(porta_parallel_for_md("big2_write", ex, box, &big2_write_k, &a));
    uint64_t expect = 0, got = 0;
    int64_t bad = 0;
    for (int64_t i = 65530; i < 65536; ++i)
      for (int64_t j = 32760; j < 32769; ++j) {
        expect += big_value(i + 3 * j);
        bad += a.v.data[i * 32769 + j] != big_value(i + 3 * j);
      }
    PT_EQ_I64(bad, 0);
    PT_EQ_I64(a.v.data[INT64_C(2147549183)], big_value(65535 + 3 * 32768));
    PT_OK(porta_parallel_reduce_md("big2_read", ex, box, &big2_read_k, &a, &got));
    PT_EQ_I64(got, expect);
    porta_view_u8_release(&a.v);
  }
}

static void test_impossible_sizes(void) {
  porta_view_f64 v;
  porta_view_u8 u;
  int rc;
  /* negative extent */
  porta_error_clear();
  PT_EXPECT_CODE(porta_view_f64_create2(&v, "neg_extent", 3, -1), PORTA_ERROR_INVALID_ARGUMENT);
  PT_CHECK(v.data == NULL);
  PT_MSG_HAS("neg_extent");
  PT_MSG_HAS("negative");
  porta_view_f64_release(&v); /* the failed handle is empty and safe to release */
  /* byte counts that do not fit in 64 bits */
  const int64_t big = INT64_C(1) << 40;
  porta_error_clear();
  rc = porta_view_f64_create2(&v, "overflow2", big, big);
  PT_CHECK(rc == PORTA_ERROR_INVALID_ARGUMENT || rc == PORTA_ERROR_OUT_OF_MEMORY);
  PT_CHECK(v.data == NULL);
  PT_MSG_HAS("overflow2");
  const int64_t e8[8] = {256, 256, 256, 256, 256, 256, 256, 256};
  rc = porta_view_f64_create(&v, "overflow8", 8, e8, NULL);
  PT_CHECK(rc == PORTA_ERROR_INVALID_ARGUMENT || rc == PORTA_ERROR_OUT_OF_MEMORY);
  PT_CHECK(v.data == NULL);
  rc = porta_view_f64_create1(&v, "overflow1", INT64_MAX);
  PT_CHECK(rc == PORTA_ERROR_INVALID_ARGUMENT || rc == PORTA_ERROR_OUT_OF_MEMORY);
  PT_CHECK(v.data == NULL);
  /* padding and explicit strides that push the span past 64 bits */
  const int64_t ep[2] = {INT64_C(1) << 61, 1};
  porta_view_options oP = opts(PORTA_LAYOUT_RIGHT, PORTA_VIEW_PADDED, NULL);
  rc = porta_view_u8_create(&u, "overflow_pad", 2, ep, &oP);
  PT_CHECK(rc == PORTA_ERROR_INVALID_ARGUMENT || rc == PORTA_ERROR_OUT_OF_MEMORY);
  PT_CHECK(u.data == NULL);
  const int64_t es[2] = {4, 2}, st[2] = {INT64_C(1) << 62, 1};
  porta_view_options oS = opts(PORTA_LAYOUT_STRIDE, 0, st);
  rc = porta_view_u8_create(&u, "overflow_stride", 2, es, &oS);
  PT_CHECK(rc == PORTA_ERROR_INVALID_ARGUMENT || rc == PORTA_ERROR_OUT_OF_MEMORY);
  PT_CHECK(u.data == NULL);
  /* representable but far more than any machine has: 2^60 bytes */
  porta_error_clear();
  rc = porta_view_f64_create1(&v, "too_big", INT64_C(1) << 57);
  PT_EXPECT_CODE(rc, PORTA_ERROR_OUT_OF_MEMORY);
  PT_CHECK(v.data == NULL);
  PT_MSG_HAS("too_big");
  if (!rc) porta_view_f64_release(&v);
  /* bad ranks, value sizes and strides */
  const int64_t e9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  PT_EXPECT_CODE(porta_view_f64_create(&v, "rank9", 9, e9, NULL), PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_view_f64_create(&v, "rank-1", -1, e9, NULL), PORTA_ERROR_INVALID_ARGUMENT);
  porta_view g;
  PT_EXPECT_CODE(porta_view_create(&g, "size0", PORTA_TYPE_USER, 0, 1, e9, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  const int64_t negst[2] = {-1, 1};
  porta_view_options oN = opts(PORTA_LAYOUT_STRIDE, 0, negst);
  PT_EXPECT_CODE(porta_view_f64_create(&v, "negstride", 2, es, &oN), PORTA_ERROR_INVALID_ARGUMENT);
  porta_view_options oNo = opts(PORTA_LAYOUT_STRIDE, 0, NULL);
  PT_EXPECT_CODE(porta_view_f64_create(&v, "nostride", 2, es, &oNo), PORTA_ERROR_INVALID_ARGUMENT);
  /* a memory space that is not there */
  if (!porta_backend_available(PORTA_BACKEND_CUDA)) {
    porta_view_options oC = opts(PORTA_LAYOUT_DEFAULT, 0, NULL);
    oC.space = PORTA_CUDA_SPACE;
    porta_error_clear();
    PT_EXPECT_CODE(porta_view_f64_create(&v, "on_gpu", 1, es, &oC), PORTA_ERROR_UNSUPPORTED);
    PT_MSG_HAS("on_gpu");
  }
  /* the largest sizes still work for a 0-extent view */
  const int64_t ez[2] = {0, INT64_C(1) << 40};
  PT_OK(porta_view_f64_create(&v, "zero_by_huge", 2, ez, NULL));
  PT_EQ_I64(porta_size(v), 0);
  porta_view_f64_release(&v);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_layouts);
  PT_RUN(test_padding);
  PT_RUN(test_large_index);
  PT_RUN(test_impossible_sizes);
  PT_END();
}
