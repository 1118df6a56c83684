/** @file test_view.c
 *  Views: creation for ranks 0..8 and every value type (user structs included), labels,
 *  zero-initialisation and the uninitialised option, Right / Left / Stride layouts and the
 *  accessors against hand-computed offsets (on the host and in kernels), padding, empty views
 *  and empty launches, wrapped (unmanaged) memory, reference counts, subviews, resize and
 *  realloc, mirrors, deep_copy (values and every incompatibility), fill, const views, index
 *  arithmetic past 2^31 elements, impossible sizes, and launch-descriptor mismatches.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

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
/* helpers                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static int64_t uc(porta_view g) { return porta_view_use_count(&g); }

/** Non-zero if the last error message contains `text`. */
static int msg_has(const char *text) { return strstr(porta_last_error_message(), text) != NULL; }

#define PT_MSG_HAS(text)                                                                           \
  do {                                                                                             \
    if (!msg_has(text)) {                                                                          \
      char pt_m_[1200];                                                                            \
      snprintf(pt_m_, sizeof pt_m_, "message lacks \"%s\": %s", (text),                            \
               porta_last_error_message());                                                        \
      pt_fail_(__FILE__, __LINE__, pt_m_);                                                         \
    }                                                                                              \
  } while (0)

/** Options in the default execution space's memory, with a layout, flags and strides. */
static porta_view_options opts(porta_layout layout, uint32_t flags, const int64_t *stride) {
  porta_view_options o;
  o.space = porta_exec_memory_space(porta_exec_default());
  o.layout = layout;
  o.flags = flags;
  o.stride = stride;
  return o;
}

/** Scribble over freed heap blocks of `bytes`, so that a later allocation that is not
 *  zeroed would show non-zero values. */
static void dirty_heap(size_t bytes) {
  void *p[4];
  for (int k = 0; k < 4; ++k) {
    p[k] = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (p[k]) memset(p[k], 0xA5, (bytes + 63) / 64 * 64 + 64);
  }
  for (int k = 0; k < 4; ++k) free(p[k]);
}

/** Right (row-major) and Left (column-major) offsets computed by hand. */
static int64_t off_right(int rank, const int64_t *ext, const int64_t *i) {
  int64_t o = 0;
  for (int r = 0; r < rank; ++r) o = o * ext[r] + i[r];
  return o;
}
static int64_t off_left(int rank, const int64_t *ext, const int64_t *i) {
  int64_t o = 0;
  for (int r = rank - 1; r >= 0; --r) o = o * ext[r] + i[r];
  return o;
}
/** Next multi-index in row-major order; returns 0 after the last. */
static int next_index(int rank, const int64_t *ext, int64_t *i) {
  for (int r = rank - 1; r >= 0; --r) {
    if (++i[r] < ext[r]) return 1;
    i[r] = 0;
  }
  return 0;
}

static double *at_right(porta_view_f64 v, const int64_t *i) {
  switch (v.m.rank) {
  case 0: return &PORTA_R0(v);
  case 1: return &PORTA_R1(v, i[0]);
  case 2: return &PORTA_R2(v, i[0], i[1]);
  case 3: return &PORTA_R3(v, i[0], i[1], i[2]);
  case 4: return &PORTA_R4(v, i[0], i[1], i[2], i[3]);
  case 5: return &PORTA_R5(v, i[0], i[1], i[2], i[3], i[4]);
  case 6: return &PORTA_R6(v, i[0], i[1], i[2], i[3], i[4], i[5]);
  case 7: return &PORTA_R7(v, i[0], i[1], i[2], i[3], i[4], i[5], i[6]);
  default: return &PORTA_R8(v, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
  }
}
static double *at_left(porta_view_f64 v, const int64_t *i) {
  switch (v.m.rank) {
  case 0: return &PORTA_L0(v);
  case 1: return &PORTA_L1(v, i[0]);
  case 2: return &PORTA_L2(v, i[0], i[1]);
  case 3: return &PORTA_L3(v, i[0], i[1], i[2]);
  case 4: return &PORTA_L4(v, i[0], i[1], i[2], i[3]);
  case 5: return &PORTA_L5(v, i[0], i[1], i[2], i[3], i[4]);
  case 6: return &PORTA_L6(v, i[0], i[1], i[2], i[3], i[4], i[5]);
  case 7: return &PORTA_L7(v, i[0], i[1], i[2], i[3], i[4], i[5], i[6]);
  default: return &PORTA_L8(v, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
  }
}
static double *at_stride(porta_view_f64 v, const int64_t *i) {
  switch (v.m.rank) {
  case 0: return &PORTA_S0(v);
  case 1: return &PORTA_S1(v, i[0]);
  case 2: return &PORTA_S2(v, i[0], i[1]);
  case 3: return &PORTA_S3(v, i[0], i[1], i[2]);
  case 4: return &PORTA_S4(v, i[0], i[1], i[2], i[3]);
  case 5: return &PORTA_S5(v, i[0], i[1], i[2], i[3], i[4]);
  case 6: return &PORTA_S6(v, i[0], i[1], i[2], i[3], i[4], i[5]);
  case 7: return &PORTA_S7(v, i[0], i[1], i[2], i[3], i[4], i[5], i[6]);
  default: return &PORTA_S8(v, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
  }
}

/** A 2D f64 view with v(i, j) = 100 i + j (through the accessor of its layout). */
static void fill_ij(porta_view_f64 v) {
  for (int64_t i = 0; i < porta_extent(v, 0); ++i)
    for (int64_t j = 0; j < porta_extent(v, 1); ++j) PORTA_S2(v, i, j) = 100.0 * i + j;
}

/* ------------------------------------------------------------------------------------------ */
/* kernels                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Counts the indices it visits; reads the view when it has elements. */
typedef struct {
  porta_view_f64 v;
} count_args;
PORTA_REDUCE(count_k, count_args, a, i, porta_sum_i64, acc) {
  const double x = PORTA_AT1(a->v, i); /* a body run on an empty view reads out of bounds */
  *acc += x == 0.0 ? 1 : 1000;
}
PORTA_MDREDUCE2(count2_k, count_args, a, i, j, porta_sum_i64, acc) {
  (void)i;
  (void)j;
  *acc += 1;
}
PORTA_SCAN(count_scan_k, count_args, a, i, porta_sum_i64, upd, fin) {
  (void)i;
  *upd += 1;
}
PORTA_FOR(write_one_k, count_args, a, i) { PORTA_AT1(a->v, i) = 1.0; }
PORTA_MDFOR3(write_one3_k, count_args, a, i, j, k) {
  (void)i;
  (void)j;
  (void)k;
  PORTA_AT1(a->v, 0) = 1.0;
}

/** Writes through the Right and the Left accessors. */
typedef struct {
  porta_view_f64 r, l;
} layout_args;
PORTA_MDFOR2(layout_fill_k, layout_args, a, i, j) {
  PORTA_R2(a->r, i, j) = 100.0 * i + j;
  PORTA_L2(a->l, i, j) = 100.0 * i + j;
}

/** Writes v(i0..i7) = k through PORTA_AT8, the indices decoded row-major from k. */
typedef struct {
  porta_view_f64 v;
} rank8_args;
PORTA_FOR(rank8_k, rank8_args, a, k) {
  int64_t i[8], rest = k;
  for (int r = 7; r >= 0; --r) {
    i[r] = rest % porta_extent(a->v, r);
    rest /= porta_extent(a->v, r);
  }
  PORTA_AT8(a->v, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]) = (double)k;
}

/** Any strides: s(i, j) = 10 i + j. */
typedef struct {
  porta_view_f64 s;
} stride_args;
PORTA_MDFOR2(stride_fill_k, stride_args, a, i, j) { PORTA_S2(a->s, i, j) = 10.0 * i + j; }

/** Sum of a read-only view. */
typedef struct {
  porta_cview_f64 c;
} csum_args;
PORTA_REDUCE(csum_k, csum_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->c, i); }

/** One kernel pair per built-in type: v(i) = i + 1, and the sum of v. */
#define PT_TYPE_KERNELS(NAME, T)                                                                   \
  typedef struct {                                                                                 \
    porta_view_##NAME v;                                                                           \
  } NAME##_args;                                                                                   \
  PORTA_FOR(NAME##_set_k, NAME##_args, a, i) { PORTA_AT1(a->v, i) = (T)(i + 1); }                  \
  PORTA_REDUCE(NAME##_sum_k, NAME##_args, a, i, porta_sum_f64, acc) {                              \
    *acc += (double)PORTA_AT1(a->v, i);                                                            \
  }
PT_TYPE_KERNELS(f64, double)
PT_TYPE_KERNELS(f32, float)
PT_TYPE_KERNELS(i64, int64_t)
PT_TYPE_KERNELS(i32, int32_t)
PT_TYPE_KERNELS(u64, uint64_t)
PT_TYPE_KERNELS(u32, uint32_t)
PT_TYPE_KERNELS(u8, uint8_t)

/** A user struct as the value type. */
struct particle {
  double x, y, z;
  int32_t id;
};
PORTA_DECLARE_VIEW(particle, struct particle, PORTA_TYPE_USER)

typedef struct {
  porta_view_particle p;
} particle_args;
PORTA_FOR(particle_init_k, particle_args, a, i) {
  struct particle *q = &PORTA_AT1(a->p, i);
  q->x = (double)i;
  q->y = 2.0 * (double)i;
  q->z = -(double)i;
  q->id = (int32_t)(1000 + i);
}
PORTA_REDUCE(particle_sum_k, particle_args, a, i, porta_sum_f64, acc) {
  *acc += PORTA_AT1(a->p, i).y + PORTA_AT1(a->p, i).z + PORTA_AT1(a->p, i).id;
}

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
/* creation                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static const int64_t ext8[8] = {2, 3, 1, 2, 2, 1, 3, 2};

static void check_rank(int rank, porta_layout layout) {
  int64_t n = 1;
  for (int r = 0; r < rank; ++r) n *= ext8[r];
  dirty_heap((size_t)n * sizeof(double));
  porta_view_f64 v;
  porta_view_options o = opts(layout, 0, NULL);
  char label[32];
  snprintf(label, sizeof label, "rank%d_%s", rank, layout == PORTA_LAYOUT_LEFT ? "L" : "R");
  PT_OK(porta_view_f64_create(&v, label, rank, ext8, &o));
  PT_CHECK(v.data != NULL);
  PT_CHECK(strcmp(porta_label(v), label) == 0);
  PT_EQ_I64(porta_rank(v), rank);
  PT_EQ_I64(porta_size(v), n);
  PT_EQ_I64(v.m.layout, layout);
  PT_EQ_I64(v.m.type, PORTA_TYPE_F64);
  PT_EQ_I64(v.m.value_size, sizeof(double));
  PT_EQ_I64(v.m.space, PORTA_HOST_SPACE);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(v)), 1);
  PT_EQ_I64(porta_view_meta_span_bytes(&v.m), n * (int64_t)sizeof(double));
  PT_CHECK(porta_view_meta_contiguous(&v.m));
  /* extents, and strides as row- or column-major products; unused ranks are 1 and 0 */
  for (int r = 0; r < PORTA_MAX_RANK; ++r) {
    int64_t s = 1;
    if (layout == PORTA_LAYOUT_LEFT)
      for (int q = 0; q < r; ++q) s *= ext8[q];
    else
      for (int q = r + 1; q < rank; ++q) s *= ext8[q];
    PT_EQ_I64(porta_extent(v, r), r < rank ? ext8[r] : 1);
    PT_EQ_I64(porta_stride(v, r), r < rank ? s : 0);
  }
  /* zero-initialised */
  int64_t nonzero = 0;
  for (int64_t k = 0; k < n; ++k) nonzero += v.data[k] != 0.0;
  PT_EQ_I64(nonzero, 0);
  /* the layout's accessor and the any-stride accessor reach the hand-computed element */
  int64_t idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, bad = 0, visited = 0;
  do {
    int64_t off =
        layout == PORTA_LAYOUT_LEFT ? off_left(rank, ext8, idx) : off_right(rank, ext8, idx);
    double *p = layout == PORTA_LAYOUT_LEFT ? at_left(v, idx) : at_right(v, idx);
    if (p != v.data + off || at_stride(v, idx) != v.data + off) ++bad;
    *p = (double)off + 0.5;
    ++visited;
  } while (next_index(rank, ext8, idx));
  PT_EQ_I64(bad, 0);
  PT_EQ_I64(visited, n);
  for (int64_t k = 0; k < n; ++k) bad += v.data[k] != (double)k + 0.5;
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&v);
  PT_CHECK(v.data == NULL);
  PT_EQ_I64(uc(PORTA_VIEW_ERASE(v)), 0);
}

static void test_create_ranks(void) {
  for (int rank = 0; rank <= PORTA_MAX_RANK; ++rank) {
    check_rank(rank, PORTA_LAYOUT_RIGHT);
    check_rank(rank, PORTA_LAYOUT_LEFT);
  }
  /* the typed shortcuts */
  porta_view_f64 v0, v1, v2, v3;
  PT_OK(porta_view_f64_create0(&v0, "s"));
  PT_OK(porta_view_f64_create1(&v1, "a", 5));
  PT_OK(porta_view_f64_create2(&v2, "b", 5, 6));
  PT_OK(porta_view_f64_create3(&v3, "c", 5, 6, 7));
  PT_EQ_I64(porta_rank(v0), 0);
  PT_EQ_I64(porta_size(v0), 1);
  PT_EQ_F64(PORTA_AT0(v0), 0.0);
  PORTA_AT0(v0) = 4.25;
  PT_EQ_F64(v0.data[0], 4.25);
  PT_EQ_I64(porta_size(v1), 5);
  PT_EQ_I64(porta_size(v2), 30);
  PT_EQ_I64(porta_size(v3), 210);
  PT_EQ_I64(porta_stride(v3, 0), 42);
  PT_EQ_I64(porta_stride(v3, 1), 7);
  PT_EQ_I64(porta_stride(v3, 2), 1);
  PT_CHECK(&PORTA_AT3(v3, 4, 5, 6) == v3.data + 209);
  /* host views are 64-byte aligned */
  PT_EQ_I64((uintptr_t)v3.data % 64, 0);
  porta_view_f64_release(&v0);
  porta_view_f64_release(&v1);
  porta_view_f64_release(&v2);
  porta_view_f64_release(&v3);
}

/** PORTA_AT8 inside a kernel writes the row-major element. */
static void test_rank8_kernel(void) {
  rank8_args a;
  PT_OK(porta_view_f64_create(&a.v, "rank8", 8, ext8, NULL));
  const int64_t n = porta_size(a.v);
  PT_OK(porta_parallel_for("rank8", porta_exec_default(), porta_range(0, n), &rank8_k, &a));
  int64_t bad = 0;
  for (int64_t k = 0; k < n; ++k) bad += a.v.data[k] != (double)k;
  PT_EQ_I64(bad, 0);
  porta_view_f64_release(&a.v);
}

#define PT_TYPE_CASE(NAME, T, CODE, FILLV)                                                         \
  do {                                                                                             \
    NAME##_args a;                                                                                 \
    porta_view_##NAME w;                                                                           \
    const int64_t n = 37;                                                                          \
    dirty_heap(n * sizeof(T));                                                                     \
    PT_OK(porta_view_##NAME##_create1(&a.v, "type_" #NAME, n));                                    \
    PT_OK(porta_view_##NAME##_create1(&w, "type_" #NAME "_copy", n));                              \
    PT_EQ_I64(a.v.m.type, CODE);                                                                   \
    PT_EQ_I64(a.v.m.value_size, sizeof(T));                                                        \
    PT_CHECK(strcmp(porta_label(a.v), "type_" #NAME) == 0);                                        \
    int64_t bad = 0;                                                                               \
    for (int64_t k = 0; k < n; ++k) bad += a.v.data[k] != (T)0;                                    \
    PT_EQ_I64(bad, 0);                                                                             \
    PT_OK(porta_view_##NAME##_fill(a.v, (T)(FILLV)));                                              \
    for (int64_t k = 0; k < n; ++k) bad += a.v.data[k] != (T)(FILLV);                              \
    PT_EQ_I64(bad, 0);                                                                             \
    PT_OK(porta_parallel_for("set_" #NAME, porta_exec_default(), porta_range(0, n), &NAME##_set_k, \
                             &a));                                                                 \
    double sum = -1;                                                                               \
    PT_OK(porta_parallel_reduce("sum_" #NAME, porta_exec_default(), porta_range(0, n),             \
                                &NAME##_sum_k, &a, &sum));                                         \
    PT_EQ_F64(sum, (double)n *(n + 1) / 2);                                                        \
    PT_OK(porta_deep_copy(w, a.v));                                                                \
    for (int64_t k = 0; k < n; ++k) bad += w.data[k] != (T)(k + 1);                                \
    PT_EQ_I64(bad, 0);                                                                             \
    porta_view_##NAME##_release(&a.v);                                                             \
    porta_view_##NAME##_release(&w);                                                               \
  } while (0)

static void test_types(void) {
  PT_TYPE_CASE(f64, double, PORTA_TYPE_F64, 2.5);
  PT_TYPE_CASE(f32, float, PORTA_TYPE_F32, -1.25f);
  PT_TYPE_CASE(i64, int64_t, PORTA_TYPE_I64, INT64_C(-5000000000));
  PT_TYPE_CASE(i32, int32_t, PORTA_TYPE_I32, -123456);
  PT_TYPE_CASE(u64, uint64_t, PORTA_TYPE_U64, UINT64_C(0xFFFFFFFFFFFFFFF0));
  PT_TYPE_CASE(u32, uint32_t, PORTA_TYPE_U32, 0xFFFFFFF0u);
  PT_TYPE_CASE(u8, uint8_t, PORTA_TYPE_U8, 0xAB);
}

static void test_user_struct(void) {
  particle_args a;
  porta_view_particle w;
  const int64_t n = 50;
  dirty_heap(n * sizeof(struct particle));
  PT_OK(porta_view_particle_create1(&a.p, "particles", n));
  PT_OK(porta_view_particle_create1(&w, "particles_copy", n));
  PT_EQ_I64(a.p.m.type, PORTA_TYPE_USER);
  PT_EQ_I64(a.p.m.value_size, sizeof(struct particle));
  PT_EQ_I64(porta_view_meta_span_bytes(&a.p.m), n * (int64_t)sizeof(struct particle));
  int64_t bad = 0;
  for (int64_t k = 0; k < n; ++k)
    bad += a.p.data[k].x != 0 || a.p.data[k].y != 0 || a.p.data[k].z != 0 || a.p.data[k].id != 0;
  PT_EQ_I64(bad, 0);
  struct particle f;
  memset(&f, 0, sizeof f);
  f.x = 1.5;
  f.y = -2;
  f.z = 3;
  f.id = 77;
  PT_OK(porta_view_particle_fill(a.p, f));
  for (int64_t k = 0; k < n; ++k)
    bad +=
        a.p.data[k].x != 1.5 || a.p.data[k].y != -2 || a.p.data[k].z != 3 || a.p.data[k].id != 77;
  PT_EQ_I64(bad, 0);
  PT_OK(porta_parallel_for("pinit", porta_exec_default(), porta_range(0, n), &particle_init_k, &a));
  double sum = 0;
  PT_OK(porta_parallel_reduce("psum", porta_exec_default(), porta_range(0, n), &particle_sum_k, &a,
                              &sum));
  /* sum of 2i - i + 1000 + i = 2i + 1000 */
  PT_EQ_F64(sum, (double)n * (n - 1) + 1000.0 * n);
  PT_OK(porta_deep_copy(w, a.p));
  for (int64_t k = 0; k < n; ++k)
    bad += w.data[k].x != (double)k || w.data[k].y != 2.0 * k || w.data[k].id != 1000 + k;
  PT_EQ_I64(bad, 0);
  /* a user type and a built-in type of another size do not mix */
  porta_view_f64 d;
  PT_OK(porta_view_f64_create1(&d, "doubles", n));
  PT_EXPECT_CODE(porta_deep_copy(d, a.p), PORTA_ERROR_INCOMPATIBLE);
  PT_MSG_HAS("doubles");
  PT_MSG_HAS("particles");
  porta_view_f64_release(&d);
  porta_view_particle_release(&a.p);
  porta_view_particle_release(&w);
}

static void test_labels(void) {
  porta_view_f64 a, b, c, m;
  const char *longl = "a_label_that_is_much_longer_than_the_thirty_one_characters";
  PT_OK(porta_view_f64_create1(&a, "pressure", 3));
  PT_CHECK(strcmp(porta_label(a), "pressure") == 0);
  PT_OK(porta_view_f64_create1(&b, longl, 3));
  PT_EQ_I64(strlen(porta_label(b)), PORTA_LABEL_MAX - 1);
  PT_CHECK(strncmp(porta_label(b), longl, PORTA_LABEL_MAX - 1) == 0);
  PT_OK(porta_view_f64_create1(&c, NULL, 3));
  PT_CHECK(strcmp(porta_label(c), "") == 0);
  PT_OK(porta_view_f64_create_mirror(&m, &a));
  PT_CHECK(strcmp(porta_label(m), "pressure_mirror") == 0);
  /* a subview keeps the label, and errors name it */
  porta_view_f64 s;
  porta_slice sl = porta_slice_range(1, 3);
  PT_OK(porta_view_f64_subview(&s, &a, &sl));
  PT_CHECK(strcmp(porta_label(s), "pressure") == 0);
  porta_error_clear();
  porta_view_f64 s2;
  sl = porta_slice_range(2, 9);
  PT_EXPECT_CODE(porta_view_f64_subview(&s2, &a, &sl), PORTA_ERROR_BOUNDS);
  PT_MSG_HAS("pressure");
  PT_CHECK(s2.data == NULL);
  porta_view_f64_release(&a);
  porta_view_f64_release(&b);
  porta_view_f64_release(&c);
  porta_view_f64_release(&m);
  porta_view_f64_release(&s);
}

static void test_uninitialized(void) {
  porta_view_f64 v;
  porta_view_options o = opts(PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNINITIALIZED, NULL);
  PT_OK(porta_view_f64_create1(&v, "uninit", 1000));
  porta_view_f64_release(&v);
  /* rank 1 without extents is refused */
  PT_EXPECT_CODE(porta_view_f64_create(&v, "uninit", 1, NULL, &o), PORTA_ERROR_INVALID_ARGUMENT);
  int64_t e[2] = {20, 30};
  PT_OK(porta_view_f64_create(&v, "uninit", 2, e, &o));
  PT_CHECK(v.data != NULL);
  PT_CHECK((v.m.traits & PORTA_VIEW_UNINITIALIZED) != 0);
  PT_EQ_I64(v.m.layout, PORTA_LAYOUT_RIGHT);
  PT_EQ_I64(porta_size(v), 600);
  for (int64_t k = 0; k < 600; ++k) v.data[k] = (double)k;
  int64_t bad = 0;
  for (int64_t k = 0; k < 600; ++k) bad += PORTA_AT2(v, k / 30, k % 30) != (double)k;
  PT_EQ_I64(bad, 0);
  /* realloc keeps the trait; a zero-initialised view does not carry it */
  e[0] = 7;
  PT_OK(porta_view_f64_realloc(&v, 2, e));
  PT_CHECK((v.m.traits & PORTA_VIEW_UNINITIALIZED) != 0);
  PT_EQ_I64(porta_size(v), 210);
  porta_view_f64 z;
  PT_OK(porta_view_f64_create1(&z, "zeroed", 5));
  PT_CHECK((z.m.traits & PORTA_VIEW_UNINITIALIZED) == 0);
  porta_view_f64_release(&z);
  porta_view_f64_release(&v);
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
/* empty views and empty launches                                                              */
/* ------------------------------------------------------------------------------------------ */

static void test_empty(void) {
  porta_view_f64 e1, e2, e3, f;
  PT_OK(porta_view_f64_create1(&e1, "empty1", 0));
  PT_OK(porta_view_f64_create2(&e2, "empty2", 0, 5));
  PT_OK(porta_view_f64_create2(&e3, "empty3", 5, 0));
  PT_EQ_I64(porta_size(e1), 0);
  PT_EQ_I64(porta_extent(e1, 0), 0);
  PT_EQ_I64(porta_size(e2), 0);
  PT_EQ_I64(porta_extent(e2, 1), 5);
  PT_EQ_I64(porta_size(e3), 0);
  PT_EQ_I64(porta_extent(e3, 0), 5);
  PT_EQ_I64(porta_view_meta_span_bytes(&e2.m), 0);
  PT_CHECK(porta_view_meta_contiguous(&e3.m));
  /* copies, fills and subviews of nothing succeed */
  PT_OK(porta_view_f64_create1(&f, "empty_f", 0));
  PT_OK(porta_deep_copy(f, e1));
  PT_OK(porta_view_f64_fill(e2, 3.0));
  porta_view_f64 s;
  porta_slice sl[2];
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_range(0, 0);
  PT_OK(porta_view_f64_subview(&s, &e3, sl));
  PT_EQ_I64(porta_rank(s), 2);
  PT_EQ_I64(porta_size(s), 0);
  porta_view_f64_release(&s);
  /* mirrors of nothing */
  porta_view_f64 m;
  PT_OK(porta_view_f64_create_mirror(&m, &e2));
  PT_EQ_I64(porta_size(m), 0);
  PT_EQ_I64(porta_extent(m, 1), 5);
  porta_view_f64_release(&m);
  /* an empty view grows */
  const int64_t four[1] = {4};
  PT_OK(porta_view_f64_resize(&e1, 1, four));
  PT_EQ_I64(porta_size(e1), 4);
  for (int64_t k = 0; k < 4; ++k) PT_EQ_F64(e1.data[k], 0.0);

  /* no body runs on an empty range: the count is the identity */
  count_args a;
  a.v = f;
  int64_t count = -1;
  const porta_exec ex = porta_exec_default();
  PT_OK(porta_parallel_reduce("count_empty", ex, porta_range(0, porta_extent(f, 0)), &count_k, &a,
                              &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce("count_empty", ex, porta_range(7, 7), &count_k, &a, &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce("count_empty", ex,
                              porta_range_schedule(3, 3, PORTA_SCHEDULE_DYNAMIC, 1), &count_k, &a,
                              &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce_md("count2_empty", ex, porta_mdrange2(0, 0, 0, 5), &count2_k, &a,
                                 &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce_md("count2_empty", ex, porta_mdrange2(0, 3, 2, 2), &count2_k, &a,
                                 &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_scan("scan_empty", ex, porta_range(4, 4), &count_scan_k, &a, &count));
  PT_EQ_I64(count, 0);
  /* and with deterministic reductions */
  porta_set_deterministic(1);
  count = -1;
  PT_OK(porta_parallel_reduce("count_empty_det", ex, porta_range(9, 9), &count_k, &a, &count));
  PT_EQ_I64(count, 0);
  count = -1;
  PT_OK(porta_parallel_reduce_md("count2_empty_det", ex, porta_mdrange2(1, 1, 0, 3), &count2_k, &a,
                                 &count));
  PT_EQ_I64(count, 0);
  porta_set_deterministic(0);
  /* writers over empty ranges touch nothing: e1 (4 elements, 0 everywhere) stays 0 */
  a.v = e1;
  PT_OK(porta_parallel_for("write_empty", ex, porta_range(2, 2), &write_one_k, &a));
  PT_OK(porta_parallel_for_md("write_empty3", ex, porta_mdrange3(0, 2, 0, 0, 0, 2), &write_one3_k,
                              &a));
  for (int64_t k = 0; k < 4; ++k) PT_EQ_F64(e1.data[k], 0.0);
  /* the counters do count on non-empty ranges */
  count = -1;
  PT_OK(porta_parallel_reduce("count", ex, porta_range(0, 4), &count_k, &a, &count));
  PT_EQ_I64(count, 4);
  count = -1;
  PT_OK(porta_parallel_reduce_md("count2", ex, porta_mdrange2(1, 4, 2, 7), &count2_k, &a, &count));
  PT_EQ_I64(count, 15);
  count = -1;
  PT_OK(porta_parallel_scan("scan", ex, porta_range(4, 10), &count_scan_k, &a, &count));
  PT_EQ_I64(count, 6);
  PT_OK(porta_parallel_for_md("write3", ex, porta_mdrange3(0, 2, 0, 1, 0, 2), &write_one3_k, &a));
  PT_EQ_F64(e1.data[0], 1.0);

  porta_view_f64_release(&e1);
  porta_view_f64_release(&e2);
  porta_view_f64_release(&e3);
  porta_view_f64_release(&f);
}

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
  porta_view_f64 s, m, mv, l, ml;
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
  porta_view_f64_release(&mv);
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
    for (int64_t j = 0; j < 4; ++j) bad += PORTA_L2(ml, i, j) != 100.0 * i + j;
  PT_EQ_I64(bad, 0);

  /* a rank-2 Stride subview: the mirror is compact and deep_copy fills it */
  porta_view_f64 p3, sub, ms;
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
  PT_OK(porta_view_f64_fill(ms, -2.0));
  PT_OK(porta_deep_copy(sub, ms));
  for (int64_t k = 0; k < 60; ++k) bad += p3.data[k] != (k % 5 == 1 ? -2.0 : (double)k);
  PT_EQ_I64(bad, 0);

  porta_view_f64_release(&sub);
  porta_view_f64_release(&ms);
  porta_view_f64_release(&p3);
  porta_view_f64_release(&l);
  porta_view_f64_release(&ml);
  porta_view_f64_release(&s);
  porta_view_f64_release(&m);
}

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

/* ------------------------------------------------------------------------------------------ */
/* launch errors                                                                               */
/* ------------------------------------------------------------------------------------------ */

static void test_launch_errors(void) {
  count_args a;
  const porta_exec ex = porta_exec_default();
  int64_t count = 0;
  PT_OK(porta_view_f64_create1(&a.v, "launch_v", 4));
  /* a reduce kernel launched as a for, and the other way round */
  porta_error_clear();
  PT_EXPECT_CODE(porta_parallel_for("mismatch", ex, porta_range(0, 4), &count_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("count_k");
  PT_MSG_HAS("mismatch");
  porta_error_clear();
  PT_EXPECT_CODE(
      porta_parallel_reduce("mismatch2", ex, porta_range(0, 4), &write_one_k, &a, &count),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("write_one_k");
  PT_EXPECT_CODE(porta_parallel_scan("mismatch3", ex, porta_range(0, 4), &count_k, &a, &count),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* a range kernel over an mdrange, an mdrange kernel of the wrong rank */
  PT_EXPECT_CODE(
      porta_parallel_for_md("mismatch4", ex, porta_mdrange2(0, 1, 0, 1), &write_one_k, &a),
      PORTA_ERROR_INVALID_ARGUMENT);
  porta_error_clear();
  PT_EXPECT_CODE(
      porta_parallel_for_md("mismatch5", ex, porta_mdrange2(0, 1, 0, 1), &write_one3_k, &a),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("write_one3_k");
  /* begin > end */
  porta_error_clear();
  PT_EXPECT_CODE(porta_parallel_for("backwards", ex, porta_range(5, 3), &write_one_k, &a),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("backwards");
  PT_EXPECT_CODE(porta_parallel_reduce("backwards", ex, porta_range(1, 0), &count_k, &a, &count),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_EXPECT_CODE(porta_parallel_reduce_md("backwards_md", ex, porta_mdrange2(0, 2, 3, 1), &count2_k,
                                          &a, &count),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* no result pointer */
  PT_EXPECT_CODE(porta_parallel_reduce("no_result", ex, porta_range(0, 4), &count_k, &a, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  /* the CUDA back end, where it is not there */
  if (!porta_backend_available(PORTA_BACKEND_CUDA)) {
    porta_error_clear();
    PT_EXPECT_CODE(porta_parallel_for("on_cuda", porta_exec_backend(PORTA_BACKEND_CUDA),
                                      porta_range(0, 4), &write_one_k, &a),
                   PORTA_ERROR_UNSUPPORTED);
    PT_MSG_HAS("cuda");
    PT_MSG_HAS("on_cuda");
    if (!write_one_k.launch[PORTA_BACKEND_CUDA]) PT_MSG_HAS("write_one_k");
    porta_error_clear();
    PT_EXPECT_CODE(porta_parallel_reduce("on_cuda_reduce", porta_exec_backend(PORTA_BACKEND_CUDA),
                                         porta_range(0, 4), &count_k, &a, &count),
                   PORTA_ERROR_UNSUPPORTED);
    if (!count_k.launch[PORTA_BACKEND_CUDA]) PT_MSG_HAS("count_k");
  }
  /* the view was never written by any of the refused launches */
  int64_t bad = 0;
  for (int k = 0; k < 4; ++k) bad += a.v.data[k] != 0.0;
  PT_EQ_I64(bad, 0);
  /* and a correct launch still works afterwards */
  PT_OK(porta_parallel_reduce("count_ok", ex, porta_range(0, 4), &count_k, &a, &count));
  PT_EQ_I64(count, 4);
  porta_view_f64_release(&a.v);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_create_ranks);
  PT_RUN(test_rank8_kernel);
  PT_RUN(test_types);
  PT_RUN(test_user_struct);
  PT_RUN(test_labels);
  PT_RUN(test_uninitialized);
  PT_RUN(test_layouts);
  PT_RUN(test_padding);
  PT_RUN(test_empty);
  PT_RUN(test_wrap);
  PT_RUN(test_retain_release);
  PT_RUN(test_subview);
  PT_RUN(test_resize);
  PT_RUN(test_mirror);
  PT_RUN(test_deep_copy);
  PT_RUN(test_fill);
  PT_RUN(test_const);
  PT_RUN(test_large_index);
  PT_RUN(test_impossible_sizes);
  PT_RUN(test_launch_errors);
  PT_END();
}
