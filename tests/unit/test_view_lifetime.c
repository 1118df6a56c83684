/** @file test_view_lifetime.c
 *  View ownership and lifetime: wrapped (unmanaged) memory, reference counts (retain /
 *  release), subviews and the allocation they keep alive, resize and realloc, and mirrors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "view_test_util.h"

/* ------------------------------------------------------------------------------------------ */
/* ownership: wrap, retain, release                                                            */
/* ------------------------------------------------------------------------------------------ */

static void test_wrap(void) {
  double *buf = (double *)malloc(12 * sizeof(double));
  PT_CHECK(buf != NULL);
  if (!buf) return;
  for (int k = 0; k < 12; ++k) buf[k] = k + 0.5;
  const int64_t e[2] = {3, 4};
  porta_view_f64 w;
  PT_OK(porta_view_f64_wrap(&w, buf, "wrapped", 2, e, NULL));
  PT_CHECK(w.data == buf);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(w)), 0);
  PT_CHECK((w.m.traits & PORTA_VIEW_UNMANAGED) != 0);
  PT_CHECK(w.m.record == NULL);
  PT_EQ_I64(w.m.space, PORTA_HOST_SPACE);
  PT_EQ_I64(w.m.layout, PORTA_LAYOUT_RIGHT);
  PT_EQ_I64(porta_stride(w, 0), 4);
  PT_CHECK(strcmp(porta_label(w), "wrapped") == 0);
  PT_EQ_F64(PORTA_R2(w, 1, 2), 6.5);
  PORTA_R2(w, 2, 3) = -1.0;
  PT_EQ_F64(buf[11], -1.0);
  /* retain / release do not count and never free */
  porta_view_f64 h = w;
  porta_view_f64_retain(&h);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(w)), 0);
  porta_view_f64_release(&h);
  PT_CHECK(h.data == NULL);
  /* copies in and out, subviews */
  porta_view_f64 m;
  PT_OK(porta_view_f64_create2(&m, "managed", 3, 4));
  PT_OK(porta_deep_copy(m, w));
  PT_EQ_F64(m.data[7], 7.5);
  porta_view_f64 row;
  porta_slice sl[2];
  sl[0] = porta_slice_index(1);
  sl[1] = porta_slice_all();
  PT_OK(porta_view_f64_subview(&row, &w, sl));
  PT_CHECK(row.data == buf + 4);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(row)), 0);
  porta_view_f64_release(&row);
  /* an unmanaged view cannot be resized */
  const int64_t e2[2] = {4, 4};
  PT_EXPECT_CODE(porta_view_f64_resize(&w, 2, e2), PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("wrapped");
  PT_CHECK(w.data == buf);
  porta_view_f64_release(&w);
  PT_CHECK(w.data == NULL);
  /* the memory is still the caller's: readable, unchanged, and freed by the caller */
  PT_EQ_F64(buf[0], 0.5);
  PT_EQ_F64(buf[11], -1.0);

  /* Left and explicit Stride over the same memory */
  porta_view_options oL = opts(PORTA_LAYOUT_LEFT, 0, NULL);
  oL.space = PORTA_HOST_SPACE;
  PT_OK(porta_view_f64_wrap(&w, buf, "wrapped_left", 2, e, &oL));
  PT_EQ_I64(porta_stride(w, 1), 3);
  PT_CHECK(&PORTA_L2(w, 2, 3) == buf + 11);
  porta_view_f64_release(&w);
  const int64_t st[2] = {1, 6}, e22[2] = {2, 2};
  porta_view_options oS = opts(PORTA_LAYOUT_STRIDE, 0, st);
  oS.space = PORTA_HOST_SPACE;
  PT_OK(porta_view_f64_wrap(&w, buf, "wrapped_stride", 2, e22, &oS));
  PT_EQ_F64(PORTA_S2(w, 1, 1), 7.5);
  porta_view_f64_release(&w);

  /* NULL with elements is refused; NULL with none is fine */
  const int64_t three[1] = {3}, zero[1] = {0};
  PT_EXPECT_CODE(porta_view_f64_wrap(&w, NULL, "null_wrap", 1, three, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("null_wrap");
  PT_OK(porta_view_f64_wrap(&w, NULL, "null_empty", 1, zero, NULL));
  PT_EQ_I64(porta_size(w), 0);
  porta_view_f64_release(&w);
  porta_view_f64_release(&m);
  free(buf);
}

static void test_retain_release(void) {
  porta_view_f64 v;
  PT_OK(porta_view_f64_create1(&v, "counted", 10));
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(v)), 1);
  v.data[3] = 3.25;
  /* copying the struct makes a handle that shares the count without taking a reference */
  porta_view_f64 a = v, b = v;
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(a)), 1);
  porta_view_f64_retain(&a);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(v)), 2);
  porta_view_f64_retain(&b);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(v)), 3);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(b)), 3);
  porta_view_f64_release(&v);
  PT_CHECK(v.data == NULL);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(v)), 0);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(a)), 2);
  PT_EQ_F64(a.data[3], 3.25);
  /* releasing an empty handle does nothing */
  porta_view_f64_release(&v);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(a)), 2);
  porta_view_f64_release(&b);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(a)), 1);
  PT_EQ_F64(a.data[3], 3.25);
  porta_view_f64_release(&a); /* frees (LeakSanitizer would report otherwise) */
  PT_CHECK(a.data == NULL);
  /* an all-zero handle is an empty view */
  porta_view_f64 z;
  memset(&z, 0, sizeof z);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(z)), 0);
  porta_view_f64_retain(&z);
  porta_view_f64_release(&z);
}

/* ------------------------------------------------------------------------------------------ */
/* subviews                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static void test_subview(void) {
  porta_view_f64 p, row, col, blk, rows, pt, sub2;
  PT_OK(porta_view_f64_create2(&p, "parent", 4, 5));
  fill_ij(p);
  porta_slice sl[3];
  int64_t bad = 0;

  /* a row of a Right view: rank 1, Right, contiguous, pointing into the parent */
  sl[0] = porta_slice_index(2);
  sl[1] = porta_slice_all();
  PT_OK(porta_view_f64_subview(&row, &p, sl));
  PT_EQ_I64(porta_rank(row), 1);
  PT_EQ_I64(porta_extent(row, 0), 5);
  PT_EQ_I64(porta_stride(row, 0), 1);
  PT_EQ_I64(row.m.layout, PORTA_LAYOUT_RIGHT);
  PT_CHECK(porta_view_meta_contiguous(&row.m));
  PT_CHECK(row.data == &PORTA_R2(p, 2, 0));
  for (int64_t j = 0; j < 5; ++j) bad += PORTA_AT1(row, j) != PORTA_R2(p, 2, j);
  PT_EQ_I64(bad, 0);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(p)), 2);

  /* a column: rank 1 with stride 5, so layout Stride */
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_index(3);
  PT_OK(porta_view_f64_subview(&col, &p, sl));
  PT_EQ_I64(porta_rank(col), 1);
  PT_EQ_I64(porta_extent(col, 0), 4);
  PT_EQ_I64(porta_stride(col, 0), 5);
  PT_EQ_I64(col.m.layout, PORTA_LAYOUT_STRIDE);
  PT_CHECK(!porta_view_meta_contiguous(&col.m));
  for (int64_t i = 0; i < 4; ++i) bad += PORTA_S1(col, i) != 100.0 * i + 3;
  PT_EQ_I64(bad, 0);

  /* a block: rank 2, unit inner stride, rows 5 apart (a padded Right view) */
  sl[0] = porta_slice_range(1, 3);
  sl[1] = porta_slice_range(2, 5);
  PT_OK(porta_view_f64_subview(&blk, &p, sl));
  PT_EQ_I64(porta_extent(blk, 0), 2);
  PT_EQ_I64(porta_extent(blk, 1), 3);
  PT_EQ_I64(porta_stride(blk, 0), 5);
  PT_EQ_I64(porta_stride(blk, 1), 1);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) bad += PORTA_S2(blk, i, j) != 100.0 * (i + 1) + (j + 2);
  PT_EQ_I64(bad, 0);
  /* writes through the subview land in the parent */
  PORTA_S2(blk, 1, 2) = -7.0;
  PT_EQ_F64(PORTA_R2(p, 2, 4), -7.0);
  PORTA_R2(p, 2, 4) = 204.0;

  /* whole rows: still contiguous Right */
  sl[0] = porta_slice_range(1, 3);
  sl[1] = porta_slice_all();
  PT_OK(porta_view_f64_subview(&rows, &p, sl));
  PT_EQ_I64(rows.m.layout, PORTA_LAYOUT_RIGHT);
  PT_CHECK(porta_view_meta_contiguous(&rows.m));
  PT_EQ_F64(PORTA_R2(rows, 1, 4), 204.0);

  /* a single element: rank 0 */
  sl[0] = porta_slice_index(3);
  sl[1] = porta_slice_index(1);
  PT_OK(porta_view_f64_subview(&pt, &p, sl));
  PT_EQ_I64(porta_rank(pt), 0);
  PT_EQ_I64(porta_size(pt), 1);
  PT_EQ_F64(PORTA_AT0(pt), 301.0);

  /* a subview of a subview */
  porta_slice one = porta_slice_range(1, 4);
  PT_OK(porta_view_f64_subview(&sub2, &col, &one));
  PT_EQ_I64(porta_extent(sub2, 0), 3);
  PT_EQ_F64(PORTA_S1(sub2, 0), 103.0);
  PT_EQ_F64(PORTA_S1(sub2, 2), 303.0);

  PT_EQ_I64(uc(PORTA_VIEW_ERASE(p)), 7);
  /* out-of-range slices are refused and leave an empty handle */
  porta_view_f64 badv;
  sl[0] = porta_slice_index(4);
  sl[1] = porta_slice_all();
  PT_EXPECT_CODE(porta_view_f64_subview(&badv, &p, sl), PORTA_ERROR_BOUNDS);
  PT_MSG_HAS("parent");
  PT_CHECK(badv.data == NULL);
  porta_view_f64_release(&badv);
  sl[0] = porta_slice_range(3, 2);
  PT_EXPECT_CODE(porta_view_f64_subview(&badv, &p, sl), PORTA_ERROR_BOUNDS);
  sl[0] = porta_slice_range(-1, 2);
  PT_EXPECT_CODE(porta_view_f64_subview(&badv, &p, sl), PORTA_ERROR_BOUNDS);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(p)), 7);

  /* the subviews keep the allocation alive after the parent lets go */
  porta_view_f64_release(&p);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(row)), 6);
  for (int64_t j = 0; j < 5; ++j) bad += PORTA_AT1(row, j) != 200.0 + j;
  for (int64_t i = 0; i < 4; ++i) bad += PORTA_S1(col, i) != 100.0 * i + 3;
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&row);
  porta_view_f64_release(&blk);
  porta_view_f64_release(&rows);
  porta_view_f64_release(&pt);
  porta_view_f64_release(&col);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(sub2)), 1);
  PT_EQ_F64(PORTA_S1(sub2, 1), 203.0);
  porta_view_f64_release(&sub2);

  /* Left parent: a column is Left and contiguous, a row is Stride */
  porta_view_f64 lp, lcol, lrow;
  const int64_t e[2] = {4, 5};
  porta_view_options oL = opts(PORTA_LAYOUT_LEFT, 0, NULL);
  PT_OK(porta_view_f64_create(&lp, "left_parent", 2, e, &oL));
  fill_ij(lp);
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_index(2);
  PT_OK(porta_view_f64_subview(&lcol, &lp, sl));
  PT_EQ_I64(lcol.m.layout, PORTA_LAYOUT_LEFT);
  PT_EQ_I64(porta_stride(lcol, 0), 1);
  PT_EQ_F64(PORTA_L1(lcol, 3), 302.0);
  sl[0] = porta_slice_index(1);
  sl[1] = porta_slice_all();
  PT_OK(porta_view_f64_subview(&lrow, &lp, sl));
  PT_EQ_I64(lrow.m.layout, PORTA_LAYOUT_STRIDE);
  PT_EQ_I64(porta_stride(lrow, 0), 4);
  PT_EQ_F64(PORTA_S1(lrow, 4), 104.0);
  porta_view_f64_release(&lp);
  porta_view_f64_release(&lcol);
  porta_view_f64_release(&lrow);

  /* rank 3 -> rank 2 with the last index fixed: no unit stride, so Stride */
  porta_view_f64 p3, s3;
  const int64_t e3[3] = {3, 4, 5};
  PT_OK(porta_view_f64_create(&p3, "p3", 3, e3, NULL));
  for (int64_t k = 0; k < 60; ++k) p3.data[k] = (double)k;
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_all();
  sl[2] = porta_slice_index(2);
  PT_OK(porta_view_f64_subview(&s3, &p3, sl));
  PT_EQ_I64(s3.m.layout, PORTA_LAYOUT_STRIDE);
  PT_EQ_I64(porta_stride(s3, 0), 20);
  PT_EQ_I64(porta_stride(s3, 1), 5);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) bad += PORTA_S2(s3, i, j) != PORTA_R3(p3, i, j, 2);
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&p3);
  porta_view_f64_release(&s3);
}

/* ------------------------------------------------------------------------------------------ */
/* resize, realloc, mirrors                                                                    */
/* ------------------------------------------------------------------------------------------ */

static void test_resize(void) {
  porta_view_i32 v;
  PT_OK(porta_view_i32_create2(&v, "grid", 3, 4));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) PORTA_R2(v, i, j) = (int32_t)(100 * i + j);
  porta_view_i32 old = v;
  porta_view_i32_retain(&old); /* someone else still holds the old allocation */
  dirty_heap(10 * sizeof(int32_t));
  const int64_t e[2] = {5, 2};
  PT_OK(porta_view_i32_resize(&v, 2, e));
  PT_EQ_I64(porta_extent(v, 0), 5);
  PT_EQ_I64(porta_extent(v, 1), 2);
  PT_EQ_I64(porta_stride(v, 0), 2);
  PT_CHECK(strcmp(porta_label(v), "grid") == 0);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(v)), 1);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(old)), 1);
  PT_CHECK(v.data != old.data);
  int64_t bad = 0;
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 2; ++j) bad += PORTA_R2(v, i, j) != (i < 3 ? 100 * i + j : 0);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) bad += PORTA_R2(old, i, j) != 100 * i + j;
  PT_EQ_I64(bad, 0);
  porta_view_i32_release(&old);
  /* rank changes are for realloc only */
  const int64_t e3[3] = {2, 2, 2};
  PT_EXPECT_CODE(porta_view_i32_resize(&v, 3, e3), PORTA_ERROR_INCOMPATIBLE);
  PT_MSG_HAS("grid");
  PT_EQ_I64(porta_extent(v, 0), 5); /* unchanged after the failure */
  const int64_t neg[2] = {-1, 2};
  PT_EXPECT_CODE(porta_view_i32_resize(&v, 2, neg), PORTA_ERROR_INVALID_ARGUMENT);
  PT_EQ_I64(porta_extent(v, 0), 5);
  PT_EQ_I64(PORTA_R2(v, 2, 1), 201);

  /* realloc: new shape, values discarded (zeroed), rank may change */
  PT_OK(porta_view_i32_realloc(&v, 3, e3));
  PT_EQ_I64(porta_rank(v), 3);
  PT_EQ_I64(porta_size(v), 8);
  for (int64_t k = 0; k < 8; ++k) bad += v.data[k] != 0;
  PT_EQ_I64(bad, 0);
  PT_CHECK(strcmp(porta_label(v), "grid") == 0);
  porta_view_i32_release(&v);

  /* 1D grow and shrink; Left keeps values by index */
  porta_view_f64 d, l;
  PT_OK(porta_view_f64_create1(&d, "line", 4));
  for (int k = 0; k < 4; ++k) d.data[k] = k + 1.0;
  const int64_t seven[1] = {7}, two[1] = {2};
  PT_OK(porta_view_f64_resize(&d, 1, seven));
  for (int k = 0; k < 7; ++k) bad += d.data[k] != (k < 4 ? k + 1.0 : 0.0);
  PT_OK(porta_view_f64_resize(&d, 1, two));
  PT_EQ_I64(porta_size(d), 2);
  bad += d.data[0] != 1.0 || d.data[1] != 2.0;
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&d);
  const int64_t el[2] = {3, 4}, el2[2] = {4, 3};
  porta_view_options oL = opts(PORTA_LAYOUT_LEFT, 0, NULL);
  PT_OK(porta_view_f64_create(&l, "left_grid", 2, el, &oL));
  fill_ij(l);
  PT_OK(porta_view_f64_resize(&l, 2, el2));
  PT_EQ_I64(l.m.layout, PORTA_LAYOUT_LEFT);
  PT_EQ_I64(porta_stride(l, 1), 4);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) bad += PORTA_L2(l, i, j) != (i < 3 ? 100.0 * i + j : 0.0);
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&l);

  /* a Stride subview cannot be resized */
  porta_view_f64 p, col;
  PT_OK(porta_view_f64_create2(&p, "resize_parent", 3, 3));
  porta_slice sl[2];
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_index(0);
  PT_OK(porta_view_f64_subview(&col, &p, sl));
  PT_EXPECT_CODE(porta_view_f64_resize(&col, 1, seven), PORTA_ERROR_INVALID_ARGUMENT);
  porta_view_f64_release(&col);
  porta_view_f64_release(&p);
}

static void test_mirror(void) {
  porta_view_f64 s, l;
  porta_mirror_f64 m;
  porta_mirror_f64 ml;
  porta_mirror_f64 mv;
  PT_OK(porta_view_f64_create2(&s, "src", 3, 4));
  fill_ij(s);
  PT_OK(porta_view_f64_create_mirror(&m, &s));
  PT_CHECK(m.data != NULL && m.data != s.data);
  PT_EQ_I64(porta_rank(m), 2);
  PT_EQ_I64(porta_extent(m, 0), 3);
  PT_EQ_I64(porta_extent(m, 1), 4);
  PT_EQ_I64(m.m.layout, PORTA_LAYOUT_RIGHT);
  PT_EQ_I64(m.m.space, PORTA_HOST_SPACE);
  PT_EQ_I64(m.m.type, PORTA_TYPE_F64);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(m)), 1);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(s)), 1);
  PT_OK(porta_deep_copy(m, s));
  int64_t bad = 0;
  for (int64_t k = 0; k < 12; ++k) bad += m.data[k] != s.data[k];
  PT_EQ_I64(bad, 0);
  m.data[0] = -1;
  PT_EQ_F64(s.data[0], 0.0); /* separate memory */

  /* mirror view of a host view: the view itself, one more reference */
  PT_OK(porta_view_f64_create_mirror_view(&mv, &s));
  PT_CHECK(mv.data == s.data);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(s)), 2);
  porta_mirror_f64_release(&mv);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(s)), 1);

  /* a Left view mirrors as Left */
  const int64_t e[2] = {3, 4};
  porta_view_options oL = opts(PORTA_LAYOUT_LEFT, 0, NULL);
  PT_OK(porta_view_f64_create(&l, "src_left", 2, e, &oL));
  fill_ij(l);
  PT_OK(porta_view_f64_create_mirror(&ml, &l));
  PT_EQ_I64(ml.m.layout, PORTA_LAYOUT_LEFT);
  PT_OK(porta_deep_copy(ml, l));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      bad += PORTA_L2(ml, i, j) != 100.0 * i + j;
      bad += PORTA_S2(ml, i, j) != 100.0 * i + j; /* the mirror's own (Left) strides */
    }
  PT_EQ_I64(bad, 0);

  /* a rank-2 Stride subview: the mirror is compact and deep_copy fills it */
  porta_view_f64 p3, sub;
  porta_mirror_f64 ms;
  const int64_t e3[3] = {3, 4, 5};
  PT_OK(porta_view_f64_create(&p3, "p3m", 3, e3, NULL));
  for (int64_t k = 0; k < 60; ++k) p3.data[k] = (double)k;
  porta_slice sl[3];
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_all();
  sl[2] = porta_slice_index(1);
  PT_OK(porta_view_f64_subview(&sub, &p3, sl));
  PT_OK(porta_view_f64_create_mirror(&ms, &sub));
  PT_EQ_I64(porta_extent(ms, 0), 3);
  PT_EQ_I64(porta_extent(ms, 1), 4);
  PT_EQ_I64(porta_view_meta_span_bytes(&ms.m), 12 * (int64_t)sizeof(double));
  PT_OK(porta_deep_copy(ms, sub));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) bad += PORTA_S2(ms, i, j) != 20.0 * i + 5.0 * j + 1;
  PT_EQ_I64(bad, 0);
  /* and back into the subview */
  PT_OK(porta_mirror_f64_fill(ms, -2.0));
  PT_OK(porta_deep_copy(sub, ms));
  for (int64_t k = 0; k < 60; ++k) bad += p3.data[k] != (k % 5 == 1 ? -2.0 : (double)k);
  PT_EQ_I64(bad, 0);

  porta_view_f64_release(&sub);
  porta_mirror_f64_release(&ms);
  porta_view_f64_release(&p3);
  porta_view_f64_release(&l);
  porta_mirror_f64_release(&ml);
  porta_view_f64_release(&s);
  porta_mirror_f64_release(&m);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_wrap);
  PT_RUN(test_retain_release);
  PT_RUN(test_subview);
  PT_RUN(test_resize);
  PT_RUN(test_mirror);
  PT_END();
}
