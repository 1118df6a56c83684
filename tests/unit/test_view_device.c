/** @file test_view_device.c
 *  Views in the default execution space's own memory (CudaSpace on the GPU, HostSpace on the
 *  host back ends), written and read only by kernels and checked through host mirrors and
 *  deep_copy, as a GPU program must: ranks 0 to 3 and 8 in the space's default layout, explicit
 *  Right / Left and any-stride views, subviews (blocks, contiguous slabs, single elements,
 *  subviews of subviews, and the allocation outliving its parent), deep_copy both ways and
 *  between two views of the space, fill, resize (values kept) and realloc, and value types
 *  other than double. On the host back ends the same code runs with host memory, so every
 *  expectation is one for every back end. (test_view_create, _layout, _lifetime, _copy and
 *  _launch cover the host-only details.)
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

/* ------------------------------------------------------------------------------------------ */
/* kernels                                                                                     */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_f64 v;
} dv_args;

/** Views in the pass's default layout (PORTA_AT*): Left on the GPU, Right on the host. */
PORTA_FOR(dv_fill1_k, dv_args, a, i) { PORTA_AT1(a->v, i) = 3.0 * (double)i + 1.0; }
PORTA_MDFOR2(dv_fill2_k, dv_args, a, i, j) { PORTA_AT2(a->v, i, j) = 100.0 * i + j; }
PORTA_MDFOR3(dv_fill3_k, dv_args, a, i, j, k) {
  PORTA_AT3(a->v, i, j, k) = 10000.0 * i + 100.0 * j + k;
}
PORTA_REDUCE(dv_sum1_k, dv_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->v, i); }
PORTA_MDREDUCE2(dv_sum2_k, dv_args, a, i, j, porta_sum_f64, acc) { *acc += PORTA_AT2(a->v, i, j); }
PORTA_MDREDUCE3(dv_sum3_k, dv_args, a, i, j, k, porta_sum_f64, acc) {
  *acc += PORTA_AT3(a->v, i, j, k);
}

/** Any layout, through the any-stride accessors. */
PORTA_MDFOR2(dv_stride2_k, dv_args, a, i, j) { PORTA_S2(a->v, i, j) = -(10.0 * i + j + 0.5); }
PORTA_FOR(dv_stride1_k, dv_args, a, i) { PORTA_S1(a->v, i) = -1.0 - (double)i; }
PORTA_MDREDUCE2(dv_ssum2_k, dv_args, a, i, j, porta_sum_f64, acc) { *acc += PORTA_S2(a->v, i, j); }
/** Sum of (i + 1) v(i): the weights tell the elements apart. */
PORTA_REDUCE(dv_wsum1_k, dv_args, a, i, porta_sum_f64, acc) {
  *acc += (double)(i + 1) * PORTA_S1(a->v, i);
}

/** Rank 0: one launch index adds 4.25; a reduction reads the value. */
PORTA_FOR(dv_rank0_k, dv_args, a, i) {
  (void)i;
  PORTA_S0(a->v) += 4.25;
}
PORTA_REDUCE(dv_read0_k, dv_args, a, i, porta_sum_f64, acc) {
  (void)i;
  *acc += PORTA_AT0(a->v);
}

/** Explicit layouts in the same kernel, whatever the pass's default. */
typedef struct {
  porta_view_f64 r, l;
} dv_lr_args;
PORTA_MDFOR2(dv_lr2_k, dv_lr_args, a, i, j) {
  PORTA_R2(a->r, i, j) = 100.0 * i + j;
  PORTA_L2(a->l, i, j) = -(100.0 * i + j);
}
PORTA_MDFOR3(dv_lr3_k, dv_lr_args, a, i, j, k) {
  PORTA_R3(a->r, i, j, k) = 10000.0 * i + 100.0 * j + k;
  PORTA_L3(a->l, i, j, k) = -(10000.0 * i + 100.0 * j + k);
}

/** Rank 8, indices decoded row-major from the launch index k. */
static const int64_t dv_ext8[8] = {2, 3, 1, 2, 2, 1, 3, 2};
PORTA_INLINE_FUNCTION void dv_decode8(int64_t k, const porta_view_meta *m, int64_t *i) {
  for (int r = 7; r >= 0; --r) {
    i[r] = k % m->extent[r];
    k /= m->extent[r];
  }
}
PORTA_FOR(dv_rank8_k, dv_args, a, k) {
  int64_t i[8];
  dv_decode8(k, &a->v.m, i);
  PORTA_AT8(a->v, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]) = (double)k;
}
PORTA_FOR(dv_rank8lr_k, dv_lr_args, a, k) {
  int64_t i[8];
  dv_decode8(k, &a->r.m, i);
  PORTA_R8(a->r, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]) = (double)k;
  PORTA_L8(a->l, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]) = -(double)k;
}
PORTA_REDUCE(dv_rank8sum_k, dv_args, a, k, porta_sum_f64, acc) {
  int64_t i[8];
  dv_decode8(k, &a->v.m, i);
  *acc += PORTA_S8(a->v, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
}

/** Other value types: v(i) = i + 1 and the sum of v. */
#define DV_TYPE_KERNELS(NAME, T)                                                                   \
  typedef struct {                                                                                 \
    porta_view_##NAME v;                                                                           \
  } dv_##NAME##_args;                                                                              \
  PORTA_FOR(dv_set_##NAME##_k, dv_##NAME##_args, a, i) { PORTA_AT1(a->v, i) = (T)(i + 1); }        \
  PORTA_REDUCE(dv_sum_##NAME##_k, dv_##NAME##_args, a, i, porta_sum_f64, acc) {                    \
    *acc += (double)PORTA_AT1(a->v, i);                                                            \
  }
DV_TYPE_KERNELS(f32, float)
DV_TYPE_KERNELS(i32, int32_t)
DV_TYPE_KERNELS(u8, uint8_t)
DV_TYPE_KERNELS(i64, int64_t)

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static porta_exec dv_exec(void) { return porta_exec_default(); }

/** The default execution space's memory. */
static porta_memory_space dv_space(void) { return porta_exec_memory_space(dv_exec()); }

/** The layout views in dv_space() get by default (and PORTA_AT* kernels expect). */
static porta_layout dv_default_layout(void) {
  return dv_space() == PORTA_HOST_SPACE ? PORTA_LAYOUT_RIGHT : PORTA_LAYOUT_LEFT;
}

static porta_view_options dv_opts(porta_layout layout) {
  porta_view_options o;
  o.space = dv_space();
  o.layout = layout;
  o.flags = 0;
  o.stride = NULL;
  return o;
}

/** A view of `rank` extents in dv_space() with `layout` (DEFAULT: the space's). */
static porta_view_f64 dv_make(const char *label, int rank, const int64_t *ext,
                              porta_layout layout) {
  porta_view_f64 v;
  porta_view_options o = dv_opts(layout);
  PT_OK(porta_view_f64_create(&v, label, rank, ext, &o));
  return v;
}

/** A host copy of `v` (same shape and layout), for reading. */
static porta_mirror_f64 dv_read(porta_view_f64 v) {
  porta_mirror_f64 m;
  PT_OK(porta_view_f64_create_mirror(&m, &v));
  PT_OK(porta_deep_copy(m, v));
  return m;
}

static int64_t dv_use_count(porta_view_f64 v) {
  porta_view g = PORTA_VIEW_ERASE(v);
  return porta_view_use_count(&g);
}

static int64_t dv_off_left(int rank, const int64_t *ext, const int64_t *i) {
  int64_t o = 0;
  for (int r = rank - 1; r >= 0; --r) o = o * ext[r] + i[r];
  return o;
}

/* ------------------------------------------------------------------------------------------ */
/* tests                                                                                       */
/* ------------------------------------------------------------------------------------------ */

/** Where views of the default space live, and what a mirror view of one is. */
static void test_space(void) {
  const int64_t e[2] = {3, 4};
  porta_view_f64 v = dv_make("dv_space", 2, e, PORTA_LAYOUT_DEFAULT);
  porta_mirror_f64 mv;
  const int on_gpu = dv_exec().backend == PORTA_BACKEND_CUDA;
  PT_EQ_I64(v.m.space, on_gpu ? PORTA_CUDA_SPACE : PORTA_HOST_SPACE);
  PT_EQ_I64(v.m.layout, dv_default_layout());
  PT_EQ_I64(porta_space_accessible(dv_exec().backend, (porta_memory_space)v.m.space), 1);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_SERIAL, (porta_memory_space)v.m.space), !on_gpu);
  PT_OK(porta_view_f64_create_mirror_view(&mv, &v));
  PT_EQ_I64(mv.m.space, PORTA_HOST_SPACE);
  PT_EQ_I64(mv.m.layout, v.m.layout);
  PT_EQ_I64(mv.data == v.data, !on_gpu); /* the view itself where the host can read it */
  PT_EQ_I64(dv_use_count(v), on_gpu ? 1 : 2);
  porta_mirror_f64_release(&mv);
  porta_view_f64_release(&v);
}

/** Ranks 1 to 3 in the default layout: kernels write and reduce, the host reads a mirror,
 *  changes it and copies it back, and a second view of the space copies the first. */
static void test_fill_and_copy(void) {
  const int64_t e1[1] = {1000}, e2[2] = {7, 9}, e3[3] = {4, 5, 6};
  int64_t bad = 0;
  dv_args a;
  double sum = -1;

  a.v = dv_make("dv_r1", 1, e1, PORTA_LAYOUT_DEFAULT);
  PT_OK(porta_parallel_for("dv_fill1", dv_exec(), porta_range(0, 1000), &dv_fill1_k, &a));
  PT_OK(porta_parallel_reduce("dv_sum1", dv_exec(), porta_range(0, 1000), &dv_sum1_k, &a, &sum));
  PT_EQ_F64(sum, 3.0 * 999 * 1000 / 2 + 1000);
  porta_mirror_f64 m = dv_read(a.v);
  for (int64_t i = 0; i < 1000; ++i) bad += m.data[i] != 3.0 * (double)i + 1.0;
  PT_EQ_I64(bad, 0);
  for (int64_t i = 0; i < 1000; ++i) m.data[i] = -2.0 * (double)i;
  PT_OK(porta_deep_copy(a.v, m));
  PT_OK(porta_parallel_reduce("dv_sum1", dv_exec(), porta_range(0, 1000), &dv_sum1_k, &a, &sum));
  PT_EQ_F64(sum, -2.0 * 999 * 1000 / 2);
  /* a second view of the space, copied from the first without the host */
  porta_view_f64 b = dv_make("dv_r1_copy", 1, e1, PORTA_LAYOUT_DEFAULT);
  PT_OK(porta_deep_copy(b, a.v));
  porta_mirror_f64 mb = dv_read(b);
  for (int64_t i = 0; i < 1000; ++i) bad += mb.data[i] != -2.0 * (double)i;
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_mirror_f64_release(&mb);
  porta_view_f64_release(&b);
  porta_view_f64_release(&a.v);

  a.v = dv_make("dv_r2", 2, e2, PORTA_LAYOUT_DEFAULT);
  PT_OK(porta_parallel_for_md("dv_fill2", dv_exec(), porta_mdrange2(0, 7, 0, 9), &dv_fill2_k, &a));
  PT_OK(porta_parallel_reduce_md("dv_sum2", dv_exec(), porta_mdrange2(0, 7, 0, 9), &dv_sum2_k, &a,
                                 &sum));
  PT_EQ_F64(sum, 100.0 * 21 * 9 + 36.0 * 7);
  m = dv_read(a.v);
  PT_EQ_I64(m.m.layout, dv_default_layout());
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 9; ++j) bad += PORTA_S2(m, i, j) != 100.0 * i + j;
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&a.v);

  a.v = dv_make("dv_r3", 3, e3, PORTA_LAYOUT_DEFAULT);
  PT_OK(porta_parallel_for_md("dv_fill3", dv_exec(), porta_mdrange3(0, 4, 0, 5, 0, 6), &dv_fill3_k,
                              &a));
  PT_OK(porta_parallel_reduce_md("dv_sum3", dv_exec(), porta_mdrange3(0, 4, 0, 5, 0, 6), &dv_sum3_k,
                                 &a, &sum));
  PT_EQ_F64(sum, 10000.0 * 6 * 30 + 100.0 * 10 * 24 + 15.0 * 20);
  m = dv_read(a.v);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 6; ++k) bad += PORTA_S3(m, i, j, k) != 10000.0 * i + 100.0 * j + k;
  PT_EQ_I64(bad, 0);
  /* fill on the space's memory, read back by a kernel and through the mirror */
  PT_OK(porta_view_f64_fill(a.v, 0.25));
  PT_OK(porta_parallel_reduce_md("dv_sum3", dv_exec(), porta_mdrange3(0, 4, 0, 5, 0, 6), &dv_sum3_k,
                                 &a, &sum));
  PT_EQ_F64(sum, 0.25 * 120);
  porta_mirror_f64_release(&m);
  m = dv_read(a.v);
  for (int64_t k = 0; k < 120; ++k) bad += m.data[k] != 0.25;
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  /* a zero fill (the space's memset on device memory) clears every value, -0.0 included */
  PT_OK(porta_view_f64_fill(a.v, 0.0));
  m = dv_read(a.v);
  for (int64_t k = 0; k < 120; ++k) bad += m.data[k] != 0.0 || signbit(m.data[k]);
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  PT_OK(porta_view_f64_fill(a.v, -0.0)); /* not all-zero bytes: the staged path */
  m = dv_read(a.v);
  for (int64_t k = 0; k < 120; ++k) bad += !signbit(m.data[k]);
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&a.v);
}

/** Right and Left views of ranks 2 and 3 in the space, written in one kernel through
 *  PORTA_R* and PORTA_L*: the mirrors keep the layout and hold the values at the
 *  hand-computed offsets. */
static void test_layouts(void) {
  const int64_t e2[2] = {3, 5}, e3[3] = {3, 4, 5};
  int64_t bad = 0;
  dv_lr_args a;
  a.r = dv_make("dv_right2", 2, e2, PORTA_LAYOUT_RIGHT);
  a.l = dv_make("dv_left2", 2, e2, PORTA_LAYOUT_LEFT);
  PT_EQ_I64(porta_stride(a.r, 0), 5);
  PT_EQ_I64(porta_stride(a.l, 1), 3);
  PT_OK(porta_parallel_for_md("dv_lr2", dv_exec(), porta_mdrange2(0, 3, 0, 5), &dv_lr2_k, &a));
  porta_mirror_f64 mr = dv_read(a.r), ml = dv_read(a.l);
  PT_EQ_I64(mr.m.layout, PORTA_LAYOUT_RIGHT);
  PT_EQ_I64(ml.m.layout, PORTA_LAYOUT_LEFT);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      bad += mr.data[i * 5 + j] != 100.0 * i + j;
      bad += ml.data[i + j * 3] != -(100.0 * i + j);
      /* PORTA_S2 follows each mirror's own strides: (i, j) in Right and Left alike */
      bad += PORTA_S2(mr, i, j) != 100.0 * i + j;
      bad += PORTA_S2(ml, i, j) != -(100.0 * i + j);
    }
  PT_EQ_I64(bad, 0);
  /* a layout conversion is refused, naming both views */
  PT_EXPECT_CODE(porta_deep_copy(a.l, a.r), PORTA_ERROR_INCOMPATIBLE);
  PT_CHECK(strstr(porta_last_error_message(), "dv_right2") != NULL);
  porta_mirror_f64_release(&mr);
  porta_mirror_f64_release(&ml);
  porta_view_f64_release(&a.r);
  porta_view_f64_release(&a.l);

  a.r = dv_make("dv_right3", 3, e3, PORTA_LAYOUT_RIGHT);
  a.l = dv_make("dv_left3", 3, e3, PORTA_LAYOUT_LEFT);
  PT_OK(
      porta_parallel_for_md("dv_lr3", dv_exec(), porta_mdrange3(0, 3, 0, 4, 0, 5), &dv_lr3_k, &a));
  mr = dv_read(a.r);
  ml = dv_read(a.l);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k) {
        const double want = 10000.0 * i + 100.0 * j + k;
        bad += mr.data[i * 20 + j * 5 + k] != want;
        bad += ml.data[i + j * 3 + k * 12] != -want;
        bad += PORTA_S3(mr, i, j, k) != want;
        bad += PORTA_S3(ml, i, j, k) != -want;
      }
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&mr);
  porta_mirror_f64_release(&ml);
  porta_view_f64_release(&a.r);
  porta_view_f64_release(&a.l);
}

/** Any strides: a 3x5 Stride view wrapped over the space memory of a 4x5 Left view (leading
 *  dimension 4), and a column of a Right view; kernels write through PORTA_S*, the parents'
 *  mirrors show the values in place and the gaps untouched. */
static void test_stride(void) {
  const int64_t e45[2] = {4, 5}, e35[2] = {3, 5}, st[2] = {1, 4};
  int64_t bad = 0;
  double sum = 0;
  porta_view_f64 parent = dv_make("dv_ld4", 2, e45, PORTA_LAYOUT_LEFT);
  porta_view_options o = dv_opts(PORTA_LAYOUT_STRIDE);
  o.stride = st;
  dv_args a;
  PT_OK(porta_view_f64_wrap(&a.v, parent.data, "dv_strided", 2, e35, &o));
  PT_EQ_I64(a.v.m.layout, PORTA_LAYOUT_STRIDE);
  PT_EQ_I64(a.v.m.space, dv_space());
  PT_CHECK(!porta_view_meta_contiguous(&a.v.m));
  PT_OK(porta_parallel_for_md("dv_stride2", dv_exec(), porta_mdrange2(0, 3, 0, 5), &dv_stride2_k,
                              &a));
  PT_OK(porta_parallel_reduce_md("dv_ssum2", dv_exec(), porta_mdrange2(0, 3, 0, 5), &dv_ssum2_k, &a,
                                 &sum));
  PT_EQ_F64(sum, -(10.0 * 3 * 5 + 10.0 * 3 + 0.5 * 15));
  porta_mirror_f64 m = dv_read(parent);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j)
      bad += m.data[i + 4 * j] != (i < 3 ? -(10.0 * i + j + 0.5) : 0.0); /* row 3: the gap */
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&a.v); /* unmanaged: leaves the parent alone */
  porta_view_f64_release(&parent);

  /* a column of a Right view is rank 1 with stride 5 */
  parent = dv_make("dv_rows", 2, e45, PORTA_LAYOUT_RIGHT);
  porta_slice sl[2];
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_index(3);
  PT_OK(porta_view_f64_subview(&a.v, &parent, sl));
  PT_EQ_I64(a.v.m.layout, PORTA_LAYOUT_STRIDE);
  PT_EQ_I64(porta_stride(a.v, 0), 5);
  PT_OK(porta_parallel_for("dv_stride1", dv_exec(), porta_range(0, 4), &dv_stride1_k, &a));
  m = dv_read(parent);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j) bad += m.data[i * 5 + j] != (j == 3 ? -1.0 - (double)i : 0.0);
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&a.v);
  porta_view_f64_release(&parent);
}

/** Subviews of a view in the space: a block written through PORTA_S2, a contiguous slab
 *  copied to the host on its own, a single element (rank 0), a subview of a subview, and the
 *  allocation kept alive by subviews after the parent is released. */
static void test_subview(void) {
  const int64_t e[2] = {4, 5};
  const int left = dv_default_layout() == PORTA_LAYOUT_LEFT;
  int64_t bad = 0;
  double sum = 0;
  dv_args p, blk, slab, one, sub2;
  p.v = dv_make("dv_parent", 2, e, PORTA_LAYOUT_DEFAULT);
  PT_OK(porta_parallel_for_md("dv_fill2", dv_exec(), porta_mdrange2(0, 4, 0, 5), &dv_fill2_k, &p));
  porta_slice sl[2];

  /* block (1..3) x (2..5): written as -(10 i + j + 0.5) in block coordinates */
  sl[0] = porta_slice_range(1, 3);
  sl[1] = porta_slice_range(2, 5);
  PT_OK(porta_view_f64_subview(&blk.v, &p.v, sl));
  PT_EQ_I64(porta_extent(blk.v, 0), 2);
  PT_EQ_I64(porta_extent(blk.v, 1), 3);
  PT_EQ_I64(blk.v.m.space, dv_space());
  PT_OK(porta_parallel_for_md("dv_block", dv_exec(), porta_mdrange2(0, 2, 0, 3), &dv_stride2_k,
                              &blk));
  porta_mirror_f64 m = dv_read(p.v);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      const int in = i >= 1 && i < 3 && j >= 2;
      bad += PORTA_S2(m, i, j) != (in ? -(10.0 * (i - 1) + (j - 2) + 0.5) : 100.0 * i + j);
    }
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);

  /* deep_copy of the (non-contiguous) block, both ways: device memory is staged through a host
   * copy of its span, and the parent's elements around the block keep their values */
  {
    porta_view_f64 h;
    porta_view_options ho = dv_opts((porta_layout)blk.v.m.layout);
    ho.space = PORTA_HOST_SPACE;
    const int64_t be[2] = {2, 3};
    PT_OK(porta_view_f64_create(&h, "dv_block_host", 2, be, &ho));
    PT_OK(porta_deep_copy(h, blk.v));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) {
        bad += PORTA_S2(h, i, j) != -(10.0 * i + j + 0.5);
        PORTA_S2(h, i, j) = 1000.0 + 10.0 * i + j;
      }
    PT_EQ_I64(bad, 0);
    PT_OK(porta_deep_copy(blk.v, h));
    m = dv_read(p.v);
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        const int in = i >= 1 && i < 3 && j >= 2;
        bad += PORTA_S2(m, i, j) != (in ? 1000.0 + 10.0 * (i - 1) + (j - 2) : 100.0 * i + j);
      }
    PT_EQ_I64(bad, 0);
    porta_mirror_f64_release(&m);
    /* back to the values the rest of this test expects */
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) PORTA_S2(h, i, j) = -(10.0 * i + j + 0.5);
    PT_OK(porta_deep_copy(blk.v, h));
    porta_view_f64_release(&h);
  }

  /* a contiguous slab (whole columns of a Left view, whole rows of a Right one) copies to the
   * host by itself; it keeps the parent's layout */
  sl[0] = left ? porta_slice_all() : porta_slice_range(2, 4);
  sl[1] = left ? porta_slice_range(3, 5) : porta_slice_all();
  PT_OK(porta_view_f64_subview(&slab.v, &p.v, sl));
  PT_EQ_I64(slab.v.m.layout, dv_default_layout());
  PT_CHECK(porta_view_meta_contiguous(&slab.v.m));
  m = dv_read(slab.v);
  for (int64_t i = 0; i < porta_extent(m, 0); ++i)
    for (int64_t j = 0; j < porta_extent(m, 1); ++j) {
      const int64_t pi = left ? i : i + 2, pj = left ? j + 3 : j;
      const int in = pi >= 1 && pi < 3 && pj >= 2;
      bad += PORTA_S2(m, i, j) != (in ? -(10.0 * (pi - 1) + (pj - 2) + 0.5) : 100.0 * pi + pj);
    }
  PT_EQ_I64(bad, 0);
  PT_EQ_I64(porta_size(m), left ? 8 : 10);
  porta_mirror_f64_release(&m);

  /* one element: rank 0, updated by a kernel and read by another */
  sl[0] = porta_slice_index(3);
  sl[1] = porta_slice_index(1);
  PT_OK(porta_view_f64_subview(&one.v, &p.v, sl));
  PT_EQ_I64(porta_rank(one.v), 0);
  PT_OK(porta_parallel_for("dv_rank0", dv_exec(), porta_range(0, 1), &dv_rank0_k, &one));
  PT_OK(porta_parallel_reduce("dv_read0", dv_exec(), porta_range(0, 1), &dv_read0_k, &one, &sum));
  PT_EQ_F64(sum, 301.0 + 4.25);

  /* a row of the block (a subview of a subview), written through PORTA_S1 */
  porta_slice row[2];
  row[0] = porta_slice_index(1);
  row[1] = porta_slice_all();
  PT_OK(porta_view_f64_subview(&sub2.v, &blk.v, row));
  PT_EQ_I64(porta_rank(sub2.v), 1);
  PT_EQ_I64(porta_extent(sub2.v, 0), 3);
  PT_OK(porta_parallel_for("dv_sub2", dv_exec(), porta_range(0, 3), &dv_stride1_k, &sub2));

  /* the subviews hold the allocation after the parent lets go */
  porta_view_f64_release(&p.v);
  PT_EQ_I64(dv_use_count(blk.v), 4);
  PT_OK(porta_parallel_reduce_md("dv_ssum2", dv_exec(), porta_mdrange2(0, 2, 0, 3), &dv_ssum2_k,
                                 &blk, &sum));
  /* block row 0 still -(10 * 0 + j + 0.5); row 1 now -1 - j */
  PT_EQ_F64(sum, -(0.5 + 1.5 + 2.5) + -(1.0 + 2.0 + 3.0));
  m = dv_read(one.v);
  PT_EQ_F64(PORTA_S0(m), 305.25);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&blk.v);
  porta_view_f64_release(&slab.v);
  porta_view_f64_release(&one.v);
  PT_EQ_I64(dv_use_count(sub2.v), 1);
  /* a strided view in device memory, read by a kernel */
  PT_OK(porta_parallel_reduce("dv_wsum1", dv_exec(), porta_range(0, 3), &dv_wsum1_k, &sub2, &sum));
  PT_EQ_F64(sum, -(1.0 * 1 + 2.0 * 2 + 3.0 * 3));
  porta_view_f64_release(&sub2.v);
}

/** A rank-0 view of the space: created zeroed, updated by kernels, filled, read back. */
static void test_rank0(void) {
  dv_args a;
  double got = -1;
  a.v = dv_make("dv_scalar", 0, NULL, PORTA_LAYOUT_DEFAULT);
  PT_EQ_I64(porta_rank(a.v), 0);
  PT_EQ_I64(porta_size(a.v), 1);
  PT_OK(porta_parallel_reduce("dv_read0", dv_exec(), porta_range(0, 1), &dv_read0_k, &a, &got));
  PT_EQ_F64(got, 0.0);
  PT_OK(porta_parallel_for("dv_rank0", dv_exec(), porta_range(0, 1), &dv_rank0_k, &a));
  PT_OK(porta_parallel_for("dv_rank0", dv_exec(), porta_range(0, 1), &dv_rank0_k, &a));
  porta_mirror_f64 m = dv_read(a.v);
  PT_EQ_F64(PORTA_S0(m), 8.5);
  PORTA_S0(m) = -3.0;
  PT_OK(porta_deep_copy(a.v, m));
  PT_OK(porta_parallel_reduce("dv_read0", dv_exec(), porta_range(0, 1), &dv_read0_k, &a, &got));
  PT_EQ_F64(got, -3.0);
  PT_OK(porta_view_f64_fill(a.v, 7.0));
  PT_OK(porta_parallel_reduce("dv_read0", dv_exec(), porta_range(0, 1), &dv_read0_k, &a, &got));
  PT_EQ_F64(got, 7.0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&a.v);
}

/** Rank 8: the default layout through PORTA_AT8, explicit Right and Left through PORTA_R8 and
 *  PORTA_L8; every element lands where the hand-computed offset says. */
static void test_rank8(void) {
  int64_t n = 1, bad = 0;
  for (int r = 0; r < 8; ++r) n *= dv_ext8[r];
  dv_args a;
  a.v = dv_make("dv_rank8", 8, dv_ext8, PORTA_LAYOUT_DEFAULT);
  PT_EQ_I64(porta_size(a.v), n);
  PT_OK(porta_parallel_for("dv_rank8", dv_exec(), porta_range(0, n), &dv_rank8_k, &a));
  double sum = -1;
  PT_OK(
      porta_parallel_reduce("dv_rank8sum", dv_exec(), porta_range(0, n), &dv_rank8sum_k, &a, &sum));
  PT_EQ_F64(sum, (double)(n * (n - 1) / 2));
  porta_mirror_f64 m = dv_read(a.v);
  for (int64_t k = 0; k < n; ++k) {
    int64_t i[8];
    dv_decode8(k, &m.m, i);
    bad += PORTA_S8(m, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]) != (double)k;
  }
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&a.v);

  dv_lr_args b;
  b.r = dv_make("dv_rank8_right", 8, dv_ext8, PORTA_LAYOUT_RIGHT);
  b.l = dv_make("dv_rank8_left", 8, dv_ext8, PORTA_LAYOUT_LEFT);
  PT_OK(porta_parallel_for("dv_rank8lr", dv_exec(), porta_range(0, n), &dv_rank8lr_k, &b));
  porta_mirror_f64 mr = dv_read(b.r), ml = dv_read(b.l);
  for (int64_t k = 0; k < n; ++k) {
    int64_t i[8];
    dv_decode8(k, &mr.m, i);
    bad += mr.data[k] != (double)k; /* Right: the row-major index is the offset */
    bad += ml.data[dv_off_left(8, dv_ext8, i)] != -(double)k;
  }
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&mr);
  porta_mirror_f64_release(&ml);
  porta_view_f64_release(&b.r);
  porta_view_f64_release(&b.l);
}

/** resize keeps the overlapping values of a view in the space (another handle keeps the old
 *  allocation), realloc discards them and may change the rank; both keep label and layout. */
static void test_resize_realloc(void) {
  const int64_t e[2] = {3, 4}, e2[2] = {5, 2}, e3[3] = {2, 3, 4};
  int64_t bad = 0;
  dv_args a;
  a.v = dv_make("dv_grid", 2, e, PORTA_LAYOUT_DEFAULT);
  PT_OK(porta_parallel_for_md("dv_fill2", dv_exec(), porta_mdrange2(0, 3, 0, 4), &dv_fill2_k, &a));
  porta_view_f64 old = a.v;
  porta_view_f64_retain(&old);
  PT_OK(porta_view_f64_resize(&a.v, 2, e2));
  PT_EQ_I64(porta_extent(a.v, 0), 5);
  PT_EQ_I64(porta_extent(a.v, 1), 2);
  PT_EQ_I64(a.v.m.layout, dv_default_layout());
  PT_EQ_I64(a.v.m.space, dv_space());
  PT_CHECK(strcmp(porta_label(a.v), "dv_grid") == 0);
  PT_CHECK(a.v.data != old.data);
  porta_mirror_f64 m = dv_read(a.v);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 2; ++j) bad += PORTA_S2(m, i, j) != (i < 3 ? 100.0 * i + j : 0.0);
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  m = dv_read(old); /* the old allocation is untouched */
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) bad += PORTA_S2(m, i, j) != 100.0 * i + j;
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&old);
  /* the resized view works in kernels */
  PT_OK(porta_parallel_for_md("dv_fill2", dv_exec(), porta_mdrange2(0, 5, 0, 2), &dv_fill2_k, &a));
  double sum = -1;
  PT_OK(porta_parallel_reduce_md("dv_sum2", dv_exec(), porta_mdrange2(0, 5, 0, 2), &dv_sum2_k, &a,
                                 &sum));
  PT_EQ_F64(sum, 100.0 * 10 * 2 + 1.0 * 5);

  /* rank 1, grow then shrink */
  dv_args l;
  const int64_t n6[1] = {6}, n9[1] = {9}, n2[1] = {2};
  l.v = dv_make("dv_line", 1, n6, PORTA_LAYOUT_DEFAULT);
  PT_OK(porta_parallel_for("dv_fill1", dv_exec(), porta_range(0, 6), &dv_fill1_k, &l));
  PT_OK(porta_view_f64_resize(&l.v, 1, n9));
  m = dv_read(l.v);
  for (int64_t i = 0; i < 9; ++i) bad += m.data[i] != (i < 6 ? 3.0 * (double)i + 1.0 : 0.0);
  porta_mirror_f64_release(&m);
  PT_OK(porta_view_f64_resize(&l.v, 1, n2));
  m = dv_read(l.v);
  bad += m.data[0] != 1.0 || m.data[1] != 4.0;
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&l.v);

  /* realloc: new rank, zeroed, same label, usable by kernels */
  PT_OK(porta_view_f64_realloc(&a.v, 3, e3));
  PT_EQ_I64(porta_rank(a.v), 3);
  PT_EQ_I64(a.v.m.space, dv_space());
  PT_CHECK(strcmp(porta_label(a.v), "dv_grid") == 0);
  m = dv_read(a.v);
  for (int64_t k = 0; k < 24; ++k) bad += m.data[k] != 0.0;
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  PT_OK(porta_parallel_for_md("dv_fill3", dv_exec(), porta_mdrange3(0, 2, 0, 3, 0, 4), &dv_fill3_k,
                              &a));
  m = dv_read(a.v);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) bad += PORTA_S3(m, i, j, k) != 10000.0 * i + 100.0 * j + k;
  PT_EQ_I64(bad, 0);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&a.v);
}

#define DV_TYPE_CASE(NAME, T, FILLV)                                                               \
  do {                                                                                             \
    dv_##NAME##_args a;                                                                            \
    porta_mirror_##NAME m;                                                                         \
    const int64_t n = 77, e[1] = {77};                                                             \
    porta_view_options o = dv_opts(PORTA_LAYOUT_DEFAULT);                                          \
    PT_OK(porta_view_##NAME##_create(&a.v, "dv_" #NAME, 1, e, &o));                                \
    PT_EQ_I64(a.v.m.value_size, sizeof(T));                                                        \
    PT_OK(porta_parallel_for("dv_set_" #NAME, dv_exec(), porta_range(0, n), &dv_set_##NAME##_k,    \
                             &a));                                                                 \
    double sum = -1;                                                                               \
    PT_OK(porta_parallel_reduce("dv_sum_" #NAME, dv_exec(), porta_range(0, n), &dv_sum_##NAME##_k, \
                                &a, &sum));                                                        \
    PT_EQ_F64(sum, (double)n *(n + 1) / 2);                                                        \
    PT_OK(porta_view_##NAME##_create_mirror(&m, &a.v));                                            \
    PT_OK(porta_deep_copy(m, a.v));                                                                \
    int64_t bad = 0;                                                                               \
    for (int64_t k = 0; k < n; ++k) bad += m.data[k] != (T)(k + 1);                                \
    PT_OK(porta_view_##NAME##_fill(a.v, (T)(FILLV)));                                              \
    PT_OK(porta_deep_copy(m, a.v));                                                                \
    for (int64_t k = 0; k < n; ++k) bad += m.data[k] != (T)(FILLV);                                \
    PT_EQ_I64(bad, 0);                                                                             \
    porta_mirror_##NAME##_release(&m);                                                             \
    porta_view_##NAME##_release(&a.v);                                                             \
  } while (0)

/** Every allocation starts on PORTA_ALLOC_ALIGN_BYTES, whatever its size and value type, in
 *  the default space and in host memory (mirrors), after a resize too: padded fields count
 *  their interiors' alignment from it (apps/common/app_field.c). */
static void test_alloc_alignment(void) {
  const int64_t sizes[] = {1, 3, 33, 1000, 4097, (INT64_C(1) << 20) + 5};
  int64_t misaligned = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    porta_view_f64 v = dv_make("dv_align", 1, &sizes[s], PORTA_LAYOUT_DEFAULT);
    porta_mirror_f64 m;
    PT_OK(porta_view_f64_create_mirror(&m, &v));
    porta_view_u8 b;
    porta_view_options o = dv_opts(PORTA_LAYOUT_DEFAULT);
    PT_OK(porta_view_u8_create(&b, "dv_align_u8", 1, &sizes[s], &o));
    misaligned += (uintptr_t)v.data % PORTA_ALLOC_ALIGN_BYTES != 0;
    misaligned += (uintptr_t)m.data % PORTA_ALLOC_ALIGN_BYTES != 0;
    misaligned += (uintptr_t)b.data % PORTA_ALLOC_ALIGN_BYTES != 0;
    const int64_t grown = 3 * sizes[s] + 1;
    PT_OK(porta_view_f64_resize(&v, 1, &grown));
    misaligned += (uintptr_t)v.data % PORTA_ALLOC_ALIGN_BYTES != 0;
    porta_view_u8_release(&b);
    porta_mirror_f64_release(&m);
    porta_view_f64_release(&v);
  }
  PT_EQ_I64(misaligned, 0);
}

/** Value types other than double, of 1, 4 and 8 bytes. */
static void test_types(void) {
  DV_TYPE_CASE(f32, float, -1.25f);
  DV_TYPE_CASE(i32, int32_t, -123456);
  DV_TYPE_CASE(u8, uint8_t, 0xAB);
  DV_TYPE_CASE(i64, int64_t, INT64_C(-5000000000));
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  printf("views in %s memory, default layout %s\n", porta_memory_space_name(dv_space()),
         dv_default_layout() == PORTA_LAYOUT_LEFT ? "Left" : "Right");
  PT_RUN(test_space);
  PT_RUN(test_fill_and_copy);
  PT_RUN(test_layouts);
  PT_RUN(test_stride);
  PT_RUN(test_subview);
  PT_RUN(test_rank0);
  PT_RUN(test_rank8);
  PT_RUN(test_resize_realloc);
  PT_RUN(test_types);
  PT_RUN(test_alloc_alignment);
  PT_END();
}
