/** @file test_view_copy.c
 *  Copying into views: deep_copy (values, layouts, subviews, async, and every incompatibility
 *  with its message), fill, and const views (readable in kernels, never written).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "view_test_util.h"

/* ------------------------------------------------------------------------------------------ */
/* kernels                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Sum of a read-only view. */
typedef struct {
  porta_cview_f64 c;
} csum_args;
PORTA_REDUCE(csum_k, csum_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->c, i); }

/* ------------------------------------------------------------------------------------------ */
/* deep_copy, fill, const                                                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_deep_copy(void) {
  int64_t bad = 0;
  /* same layouts: values */
  porta_view_f64 a, b, la, lb;
  const int64_t e[2] = {6, 7};
  porta_view_options oL = opts(PORTA_LAYOUT_LEFT, 0, NULL);
  PT_OK(porta_view_f64_create2(&a, "dc_a", 6, 7));
  PT_OK(porta_view_f64_create2(&b, "dc_b", 6, 7));
  PT_OK(porta_view_f64_create(&la, "dc_la", 2, e, &oL));
  PT_OK(porta_view_f64_create(&lb, "dc_lb", 2, e, &oL));
  for (int64_t k = 0; k < 42; ++k) {
    a.data[k] = k * 1.25;
    la.data[k] = -k * 0.5;
  }
  PT_OK(porta_deep_copy(b, a));
  PT_OK(porta_deep_copy(lb, la));
  for (int64_t k = 0; k < 42; ++k) bad += b.data[k] != k * 1.25 || lb.data[k] != -k * 0.5;
  PT_EQ_I64(bad, 0);
  PT_OK(porta_deep_copy(a, a)); /* onto itself */
  PT_EQ_F64(a.data[41], 41 * 1.25);
  /* asynchronous on the default instance, complete after its fence */
  PT_OK(porta_view_f64_fill(b, 0.0));
  PT_OK(porta_deep_copy_async(porta_exec_default(), b, a));
  PT_OK(porta_exec_fence(porta_exec_default(), "dc_async"));
  for (int64_t k = 0; k < 42; ++k) bad += b.data[k] != k * 1.25;
  PT_EQ_I64(bad, 0);

  /* a Stride column and a contiguous vector, both ways */
  porta_view_f64 col, vec;
  porta_slice sl[3];
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_index(4);
  PT_OK(porta_view_f64_subview(&col, &a, sl));
  PT_EQ_I64(col.m.layout, PORTA_LAYOUT_STRIDE);
  PT_OK(porta_view_f64_create1(&vec, "dc_vec", 6));
  PT_OK(porta_deep_copy(vec, col));
  for (int64_t i = 0; i < 6; ++i) bad += vec.data[i] != (i * 7 + 4) * 1.25;
  PT_EQ_I64(bad, 0);
  for (int64_t i = 0; i < 6; ++i) vec.data[i] = -1.0 - i;
  PT_OK(porta_deep_copy(col, vec));
  for (int64_t k = 0; k < 42; ++k) bad += a.data[k] != (k % 7 == 4 ? -1.0 - k / 7 : k * 1.25);
  PT_EQ_I64(bad, 0);
  /* rank 1: Left and Right views copy into each other */
  porta_view_f64 l1;
  const int64_t six[1] = {6};
  PT_OK(porta_view_f64_create(&l1, "dc_l1", 1, six, &oL));
  PT_OK(porta_deep_copy(l1, vec));
  PT_EQ_F64(l1.data[5], -6.0);

  /* rank 2 Stride subview <-> a compact Stride view */
  porta_view_f64 p3, s3, cs;
  const int64_t e3[3] = {3, 4, 5}, cst[2] = {4, 1}, e34[2] = {3, 4};
  PT_OK(porta_view_f64_create(&p3, "dc_p3", 3, e3, NULL));
  for (int64_t k = 0; k < 60; ++k) p3.data[k] = (double)k;
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_all();
  sl[2] = porta_slice_index(3);
  PT_OK(porta_view_f64_subview(&s3, &p3, sl));
  porta_view_options oS = opts(PORTA_LAYOUT_STRIDE, 0, cst);
  PT_OK(porta_view_f64_create(&cs, "dc_compact", 2, e34, &oS));
  PT_CHECK(porta_view_meta_contiguous(&cs.m));
  PT_OK(porta_deep_copy(cs, s3));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) bad += cs.data[i * 4 + j] != 20.0 * i + 5.0 * j + 3;
  PT_EQ_I64(bad, 0);
  for (int64_t k = 0; k < 12; ++k) cs.data[k] = 1000.0 + k;
  PT_OK(porta_deep_copy(s3, cs));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k)
        bad += PORTA_R3(p3, i, j, k) != (k == 3 ? 1000.0 + i * 4 + j : 20.0 * i + 5.0 * j + k);
  PT_EQ_I64(bad, 0);

  /* the incompatibilities: code, and a message naming both views */
  porta_view_f64 r34;
  PT_OK(porta_view_f64_create2(&r34, "dc_right34", 3, 4));
  PT_EXPECT_CODE(porta_deep_copy(r34, s3), PORTA_ERROR_INCOMPATIBLE); /* Right vs Stride */
  PT_MSG_HAS("dc_right34");
  PT_MSG_HAS("dc_p3");
  porta_error_clear();
  PT_EXPECT_CODE(porta_deep_copy(la, a), PORTA_ERROR_INCOMPATIBLE); /* Left vs Right */
  PT_MSG_HAS("dc_la");
  PT_MSG_HAS("dc_a");
  PT_MSG_HAS("Left");
  PT_MSG_HAS("Right");
  PT_EQ_F64(la.data[1], -0.5); /* untouched */
  porta_error_clear();
  PT_EXPECT_CODE(porta_deep_copy(a, la), PORTA_ERROR_INCOMPATIBLE); /* Right vs Left */
  PT_MSG_HAS("dc_la");
  PT_MSG_HAS("dc_a");
  porta_view_f64 r76;
  PT_OK(porta_view_f64_create2(&r76, "dc_r76", 7, 6));
  porta_error_clear();
  PT_EXPECT_CODE(porta_deep_copy(r76, a), PORTA_ERROR_INCOMPATIBLE); /* 7x6 vs 6x7 */
  PT_MSG_HAS("dc_r76");
  PT_MSG_HAS("dc_a");
  PT_MSG_HAS("extent");
  porta_view_f64 flat;
  PT_OK(porta_view_f64_create1(&flat, "dc_flat42", 42));
  porta_error_clear();
  PT_EXPECT_CODE(porta_deep_copy(flat, a), PORTA_ERROR_INCOMPATIBLE); /* rank 1 vs 2 */
  PT_MSG_HAS("dc_flat42");
  PT_MSG_HAS("dc_a");
  PT_MSG_HAS("rank");
  porta_view_i64 ia;
  porta_view_f32 fa;
  PT_OK(porta_view_i64_create2(&ia, "dc_int", 6, 7));
  PT_OK(porta_view_f32_create2(&fa, "dc_float", 6, 7));
  porta_error_clear();
  PT_EXPECT_CODE(porta_deep_copy(ia, a), PORTA_ERROR_INCOMPATIBLE); /* same size, other type */
  PT_MSG_HAS("dc_int");
  PT_MSG_HAS("dc_a");
  PT_MSG_HAS("type");
  porta_error_clear();
  PT_EXPECT_CODE(porta_deep_copy(a, fa), PORTA_ERROR_INCOMPATIBLE); /* other size */
  PT_MSG_HAS("dc_float");
  PT_MSG_HAS("dc_a");
  for (int64_t k = 0; k < 42; ++k) bad += ia.data[k] != 0;
  PT_EQ_I64(bad, 0);

  porta_view_f64_release(&a);
  porta_view_f64_release(&b);
  porta_view_f64_release(&la);
  porta_view_f64_release(&lb);
  porta_view_f64_release(&col);
  porta_view_f64_release(&vec);
  porta_view_f64_release(&l1);
  porta_view_f64_release(&p3);
  porta_view_f64_release(&s3);
  porta_view_f64_release(&cs);
  porta_view_f64_release(&r34);
  porta_view_f64_release(&r76);
  porta_view_f64_release(&flat);
  porta_view_i64_release(&ia);
  porta_view_f32_release(&fa);
}

static void test_fill(void) {
  porta_view_f64 p, col;
  PT_OK(porta_view_f64_create2(&p, "fill_parent", 4, 3));
  PT_OK(porta_view_f64_fill(p, 9.0));
  int64_t bad = 0;
  for (int64_t k = 0; k < 12; ++k) bad += p.data[k] != 9.0;
  PT_EQ_I64(bad, 0);
  /* a fill through a Stride column changes that column only */
  porta_slice sl[2];
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_index(1);
  PT_OK(porta_view_f64_subview(&col, &p, sl));
  PT_OK(porta_view_f64_fill(col, -4.0));
  for (int64_t k = 0; k < 12; ++k) bad += p.data[k] != (k % 3 == 1 ? -4.0 : 9.0);
  PT_EQ_I64(bad, 0);
  /* the generic call, a user type */
  porta_view_u32 u;
  PT_OK(porta_view_u32_create1(&u, "fill_u32", 5));
  uint32_t x = 0xDEADBEEFu;
  PT_OK(porta_view_fill(PORTA_VIEW_ERASE(u), &x));
  for (int64_t k = 0; k < 5; ++k) bad += u.data[k] != 0xDEADBEEFu;
  PT_EQ_I64(bad, 0);
  porta_view_u32_release(&u);
  porta_view_f64_release(&col);
  porta_view_f64_release(&p);
}

static void test_const(void) {
  csum_args a;
  porta_view_f64 v, src, dst;
  PT_OK(porta_view_f64_create1(&v, "const_target", 8));
  PT_OK(porta_view_f64_create1(&src, "const_src", 8));
  PT_OK(porta_view_f64_create1(&dst, "const_dst", 8));
  for (int k = 0; k < 8; ++k) {
    v.data[k] = k;
    src.data[k] = 100 + k;
  }
  a.c = porta_view_f64_const(v);
  PT_CHECK(a.c.data == v.data);
  PT_CHECK((a.c.m.traits & PORTA_VIEW_CONST) != 0);
  PT_CHECK((v.m.traits & PORTA_VIEW_CONST) == 0);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(a.c)), 1);
  /* readable in kernels */
  double sum = 0;
  PT_OK(porta_parallel_reduce("csum", porta_exec_default(), porta_range(0, 8), &csum_k, &a, &sum));
  PT_EQ_F64(sum, 28.0);
  /* never written by deep_copy or fill */
  porta_error_clear();
  PT_EXPECT_CODE(porta_deep_copy(a.c, src), PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("const_target");
  PT_MSG_HAS("const");
  double x = 5;
  PT_EXPECT_CODE(porta_view_fill(PORTA_VIEW_ERASE(a.c), &x), PORTA_ERROR_INVALID_ARGUMENT);
  int64_t bad = 0;
  for (int k = 0; k < 8; ++k) bad += v.data[k] != k;
  PT_EQ_I64(bad, 0);
  /* but is a fine source */
  PT_OK(porta_deep_copy(dst, a.c));
  for (int k = 0; k < 8; ++k) bad += dst.data[k] != k;
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&v);
  porta_view_f64_release(&src);
  porta_view_f64_release(&dst);
}

/* porta_deep_copy evaluates each argument once (it had expanded each twice: an index with a
 * side effect moved twice and copied between two different views). */
static void test_deep_copy_once(void) {
  porta_view_f64 dst[3], src[3];
  for (int k = 0; k < 3; ++k) {
    PT_OK(porta_view_f64_create1(&dst[k], "dst", 8));
    PT_OK(porta_view_f64_create1(&src[k], "src", 8));
    PT_OK(porta_view_f64_fill(src[k], (double)(k + 1)));
  }
  int d = 0, s = 0;
  PT_OK(porta_deep_copy(dst[d++], src[s++]));
  PT_EQ_I64(d, 1);
  PT_EQ_I64(s, 1);
  PT_OK(porta_deep_copy_async(porta_exec_default(), dst[d++], src[s++]));
  PT_OK(porta_exec_fence(porta_exec_default(), "copy"));
  PT_EQ_I64(d, 2);
  PT_EQ_I64(s, 2);
  porta_mirror_f64 h;
  PT_OK(porta_view_f64_create_mirror(&h, &dst[1]));
  for (int k = 0; k < 2; ++k) {
    PT_OK(porta_deep_copy(h, dst[k]));
    for (int64_t i = 0; i < 8; ++i) PT_EQ_F64(h.data[i], (double)(k + 1));
  }
  porta_mirror_f64_release(&h);
  for (int k = 0; k < 3; ++k) {
    porta_view_f64_release(&dst[k]);
    porta_view_f64_release(&src[k]);
  }
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_deep_copy);
  PT_RUN(test_deep_copy_once);
  PT_RUN(test_fill);
  PT_RUN(test_const);
  PT_END();
}
