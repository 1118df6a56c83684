/** @file view.h
 *  Multidimensional views: typed handles to (usually reference-counted)
 *  arrays with run-time extents, a layout, a memory space and traits.
 *
 *  A view is a plain struct `{ T *data; porta_view_meta m; }`. Copying the
 *  struct makes a non-owning handle (what kernels receive); ownership is
 *  explicit through create / retain / release. Every typed view converts to
 *  the type-erased `porta_view` with PORTA_VIEW_ERASE for the generic calls
 *  (deep copy, mirrors, subviews).
 */
#ifndef PORTA_VIEW_H
#define PORTA_VIEW_H

#include "porta/runtime.h"

#include <string.h>

PORTA_EXTERN_C_BEGIN

#define PORTA_MAX_RANK 8
#define PORTA_LABEL_MAX 32
/** Every allocation a view makes starts on this many bytes, in every memory space (cudaMalloc's
 *  alignment: the host's is raised to it), so that an offset into a view is aligned alike on
 *  every back end. */
#define PORTA_ALLOC_ALIGN_BYTES 256

/** Array layouts. DEFAULT resolves to the memory space's natural layout:
 *  Right (row-major) on the host, Left (column-major) on the GPU. */
typedef enum porta_layout {
  PORTA_LAYOUT_DEFAULT = 0,
  PORTA_LAYOUT_RIGHT = 1,
  PORTA_LAYOUT_LEFT = 2,
  PORTA_LAYOUT_STRIDE = 3
} porta_layout;

/** Value types; USER covers structs of any size. */
typedef enum porta_type {
  PORTA_TYPE_USER = 0,
  PORTA_TYPE_F64,
  PORTA_TYPE_F32,
  PORTA_TYPE_I64,
  PORTA_TYPE_I32,
  PORTA_TYPE_U64,
  PORTA_TYPE_U32,
  PORTA_TYPE_U8
} porta_type;

/** Allocation flags and memory traits (bits of porta_view_meta.traits). */
enum {
  PORTA_VIEW_UNINITIALIZED = 1u << 0, /**< create: skip zero-initialisation */
  PORTA_VIEW_PADDED = 1u << 1,        /**< create: pad the contiguous dimension to 64 bytes */
  PORTA_VIEW_CONST = 1u << 2,         /**< read-only access */
  PORTA_VIEW_UNMANAGED = 1u << 5      /**< wraps memory Porta does not own */
};
/* No RandomAccess or Atomic traits: a bit known only at run time cannot change the code an
 * accessor compiles to without a branch on every access. Read through the read-only cache with
 * PORTA_RA* and update with porta_atomic_* instead; bits 3 and 4 stay unused, and create and
 * wrap refuse any bit not named here. */
#define PORTA_VIEW_FLAGS_KNOWN_                                                                    \
  (PORTA_VIEW_UNINITIALIZED | PORTA_VIEW_PADDED | PORTA_VIEW_CONST | PORTA_VIEW_UNMANAGED)

struct porta_view_record;

/** Everything about a view but its data pointer. Fixed layout (no build option changes it). */
typedef struct porta_view_meta {
  int64_t extent[PORTA_MAX_RANK]; /**< extents; unused ranks are 1 */
  int64_t stride[PORTA_MAX_RANK]; /**< element strides; unused ranks are 0 */
  int32_t rank;
  int32_t layout;  /**< porta_layout (never DEFAULT once created) */
  int32_t space;   /**< porta_memory_space */
  int32_t type;    /**< porta_type */
  uint32_t traits; /**< PORTA_VIEW_* bits */
  uint32_t value_size;
  struct porta_view_record *record; /**< allocation record, NULL when unmanaged or empty */
  char label[PORTA_LABEL_MAX];      /**< copy of the label, usable in device-side messages */
} porta_view_meta;

/** Type-erased view used by the generic calls. */
typedef struct porta_view {
  void *data;
  porta_view_meta m;
} porta_view;

/** Options for create / wrap; NULL means defaults: the default execution space's memory
 *  space, its default layout, zero-filled (wrap: host space). */
typedef struct porta_view_options {
  porta_memory_space space;
  porta_layout layout;
  uint32_t flags;        /**< PORTA_VIEW_UNINITIALIZED | PADDED | traits */
  const int64_t *stride; /**< element strides for PORTA_LAYOUT_STRIDE (rank entries) */
} porta_view_options;

/** Subview slice kinds. */
typedef enum porta_slice_kind {
  PORTA_SLICE_ALL = 0,
  PORTA_SLICE_INDEX = 1,
  PORTA_SLICE_RANGE = 2
} porta_slice_kind;
typedef struct porta_slice {
  porta_slice_kind kind;
  int64_t begin, end;
} porta_slice;
static inline porta_slice porta_slice_all(void) {
  porta_slice s = {PORTA_SLICE_ALL, 0, 0};
  return s;
}
static inline porta_slice porta_slice_index(int64_t i) {
  porta_slice s = {PORTA_SLICE_INDEX, i, i + 1};
  return s;
}
static inline porta_slice porta_slice_range(int64_t b, int64_t e) {
  porta_slice s = {PORTA_SLICE_RANGE, b, e};
  return s;
}

/* ---- generic calls (core/src/view.c, core/src/deep_copy.c) ---- */

/** The layout PORTA_LAYOUT_DEFAULT means in `space` (Kokkos: MemorySpace::array_layout): Left
 *  in CUDA device and managed memory, Right elsewhere. */
PORTA_API porta_layout porta_memory_space_default_layout(porta_memory_space space);

/** Allocate a view of `rank` dimensions; zero-filled unless PORTA_VIEW_UNINITIALIZED. */
PORTA_API int porta_view_create(porta_view *v, const char *label, porta_type type,
                                size_t value_size, int rank, const int64_t *extents,
                                const porta_view_options *opt);
/** Wrap memory Porta does not own (an unmanaged view; retain/release do nothing). */
PORTA_API int porta_view_wrap(porta_view *v, void *ptr, const char *label, porta_type type,
                              size_t value_size, int rank, const int64_t *extents,
                              const porta_view_options *opt);
PORTA_API void porta_view_retain(const porta_view *v);
/** Drop one reference; frees at zero. Leaves `*v` empty. */
PORTA_API void porta_view_release(porta_view *v);
/** Reference count of the allocation (0 when unmanaged or empty). */
PORTA_API int64_t porta_view_use_count(const porta_view *v);
/** A view of part of `src` (one slice per rank of src); shares and retains src's allocation. */
PORTA_API int porta_view_subview(porta_view *out, const porta_view *src, const porta_slice *slices);
/** New extents, keeping the overlapping values (new values zeroed); fences first. Device
 *  views are staged through host memory. */
PORTA_API int porta_view_resize(porta_view *v, int rank, const int64_t *extents);
/** New extents, discarding the values (zeroed unless the view was uninitialised). */
PORTA_API int porta_view_realloc(porta_view *v, int rank, const int64_t *extents);
/** A host view shaped like `src` (always a new allocation). */
PORTA_API int porta_view_create_mirror(porta_view *out, const porta_view *src);
/** `src` itself (retained) when the host can access it, else a new host mirror. */
PORTA_API int porta_view_create_mirror_view(porta_view *out, const porta_view *src);
/** Copy src to dst. Types, ranks, extents must match, and layouts too when rank >= 2:
 *  a layout conversion is never done behind the caller's back. Fences all instances first;
 *  the copy is complete on return. */
PORTA_API int porta_view_deep_copy(porta_view dst, porta_view src);
/** As deep_copy, ordered on `exec`; complete after porta_exec_fence(exec). */
PORTA_API int porta_view_deep_copy_async(porta_exec exec, porta_view dst, porta_view src);
/** Set every element to the value at `value` (value_size bytes). */
PORTA_API int porta_view_fill(porta_view dst, const void *value);
/** Number of elements (product of extents). */
PORTA_API int64_t porta_view_meta_size(const porta_view_meta *m);
/** Non-zero if the elements occupy one contiguous block with no gaps. */
PORTA_API int porta_view_meta_contiguous(const porta_view_meta *m);
/** Bytes spanned by the data, padding included. */
PORTA_API int64_t porta_view_meta_span_bytes(const porta_view_meta *m);

static inline porta_view porta_view_make_(void *data, const porta_view_meta *m) {
  porta_view v;
  v.data = data;
  v.m = *m;
  return v;
}

/* For the accessors' debug checks in the host pass: why no host code may touch memory of
 * `space` ("host access to device memory (CudaSpace)": a space only a device's kernels reach),
 * or NULL. Host back ends' kernels run in the host pass too, so memory that only they reach
 * (ReplicaSpace) is not refused. */
PORTA_API const char *porta_view_host_refusal_(int space);
/* Reports a failed debug check (rank, layout, bounds) and aborts. */
PORTA_API void porta_view_check_failure_(const porta_view_meta *m, const char *what, int nidx,
                                         const int64_t *idx, const char *file, int line);

PORTA_EXTERN_C_END

/** Any typed view as a type-erased porta_view (a handle, no reference taken). */
#define PORTA_VIEW_ERASE(v) porta_view_make_((void *)(v).data, &(v).m)
/** A typed view variable as a porta_view, through its address: every porta_view_NAME has
 *  porta_view's layout (checked where PORTA_DECLARE_VIEW stamps it), and memcpy keeps the copy
 *  free of aliasing questions. */
static inline porta_view porta_view_erase_at_(const void *typed) {
  porta_view g;
  memcpy(&g, typed, sizeof g);
  return g;
}
/* `v` evaluated once; the sizeof only checks, unevaluated, that it is a view. */
#define PORTA_VIEW_ERASE_ONCE_(v) porta_view_erase_at_((const char *)&(v) + 0 * sizeof((v).m))
/** Kokkos-style deep_copy for any two typed views (variables: each argument is evaluated
 *  exactly once). */
#define porta_deep_copy(dst, src)                                                                  \
  porta_view_deep_copy(PORTA_VIEW_ERASE_ONCE_(dst), PORTA_VIEW_ERASE_ONCE_(src))
#define porta_deep_copy_async(exec, dst, src)                                                      \
  porta_view_deep_copy_async((exec), PORTA_VIEW_ERASE_ONCE_(dst), PORTA_VIEW_ERASE_ONCE_(src))

#define porta_extent(v, r) ((v).m.extent[r])
#define porta_stride(v, r) ((v).m.stride[r])
#define porta_rank(v) ((v).m.rank)
#define porta_label(v) ((const char *)(v).m.label)
#define porta_size(v) porta_view_meta_size(&(v).m)

/** Stamp a view type `porta_view_NAME` of element type T with its typed calls (marked unused,
 *  so a file that stamps a type need not call them all).
 *  Use it for user structs: PORTA_DECLARE_VIEW(particle, struct particle). */
#define PORTA_DECLARE_VIEW(NAME, T, TYPECODE)                                                      \
  typedef struct porta_view_##NAME {                                                               \
    T *data;                                                                                       \
    union { /* one meta; the second name is what PORTA_AT* asks for (mirrors lack it) */           \
      porta_view_meta m;                                                                           \
      porta_view_meta PORTA_AT_is_for_views_use_PORTA_S_on_mirrors;                                \
    };                                                                                             \
  } porta_view_##NAME;                                                                             \
  /** Read-only handle of the same view. */                                                        \
  typedef struct porta_cview_##NAME {                                                              \
    const T *data;                                                                                 \
    union {                                                                                        \
      porta_view_meta m;                                                                           \
      porta_view_meta PORTA_AT_is_for_views_use_PORTA_S_on_mirrors;                                \
    };                                                                                             \
  } porta_cview_##NAME;                                                                            \
  /** A host mirror: the source view's layout (Left for a GPU view), so only the accessors         \
   *  that read the layout from the view (PORTA_S*) or name it (PORTA_L*, PORTA_R*) compile        \
   *  on it; PORTA_AT* (the pass's default layout) does not. */                                    \
  typedef struct porta_mirror_##NAME {                                                             \
    T *data;                                                                                       \
    porta_view_meta m;                                                                             \
  } porta_mirror_##NAME;                                                                           \
  PORTA_STATIC_ASSERT_(sizeof(porta_view_##NAME) == sizeof(porta_view) &&                          \
                           offsetof(porta_view_##NAME, m) == offsetof(porta_view, m) &&            \
                           sizeof(porta_cview_##NAME) == sizeof(porta_view) &&                     \
                           sizeof(porta_mirror_##NAME) == sizeof(porta_view) &&                    \
                           offsetof(porta_mirror_##NAME, m) == offsetof(porta_view, m),            \
                       "a typed view has porta_view's layout");                                    \
  static inline PORTA_UNUSED porta_view_##NAME porta_view_##NAME##_from_(porta_view g) {           \
    porta_view_##NAME v;                                                                           \
    v.data = (T *)g.data;                                                                          \
    v.m = g.m;                                                                                     \
    return v;                                                                                      \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_create(                                       \
      porta_view_##NAME *v, const char *label, int rank, const int64_t *extents,                   \
      const porta_view_options *opt) {                                                             \
    porta_view g;                                                                                  \
    int rc = porta_view_create(&g, label, TYPECODE, sizeof(T), rank, extents, opt);                \
    *v = porta_view_##NAME##_from_(g);                                                             \
    return rc;                                                                                     \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_create0(porta_view_##NAME *v,                 \
                                                             const char *label) {                  \
    return porta_view_##NAME##_create(v, label, 0, NULL, NULL);                                    \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_create1(porta_view_##NAME *v,                 \
                                                             const char *label, int64_t n0) {      \
    int64_t e[1];                                                                                  \
    e[0] = n0;                                                                                     \
    return porta_view_##NAME##_create(v, label, 1, e, NULL);                                       \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_create2(                                      \
      porta_view_##NAME *v, const char *label, int64_t n0, int64_t n1) {                           \
    int64_t e[2];                                                                                  \
    e[0] = n0;                                                                                     \
    e[1] = n1;                                                                                     \
    return porta_view_##NAME##_create(v, label, 2, e, NULL);                                       \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_create3(                                      \
      porta_view_##NAME *v, const char *label, int64_t n0, int64_t n1, int64_t n2) {               \
    int64_t e[3];                                                                                  \
    e[0] = n0;                                                                                     \
    e[1] = n1;                                                                                     \
    e[2] = n2;                                                                                     \
    return porta_view_##NAME##_create(v, label, 3, e, NULL);                                       \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_wrap(                                         \
      porta_view_##NAME *v, T *ptr, const char *label, int rank, const int64_t *extents,           \
      const porta_view_options *opt) {                                                             \
    porta_view g;                                                                                  \
    int rc = porta_view_wrap(&g, (void *)ptr, label, TYPECODE, sizeof(T), rank, extents, opt);     \
    *v = porta_view_##NAME##_from_(g);                                                             \
    return rc;                                                                                     \
  }                                                                                                \
  static inline PORTA_UNUSED void porta_view_##NAME##_retain(const porta_view_##NAME *v) {         \
    porta_view g = PORTA_VIEW_ERASE(*v);                                                           \
    porta_view_retain(&g);                                                                         \
  }                                                                                                \
  static inline PORTA_UNUSED void porta_view_##NAME##_release(porta_view_##NAME *v) {              \
    porta_view g = PORTA_VIEW_ERASE(*v);                                                           \
    porta_view_release(&g);                                                                        \
    *v = porta_view_##NAME##_from_(g);                                                             \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_subview(                                      \
      porta_view_##NAME *out, const porta_view_##NAME *src, const porta_slice *slices) {           \
    porta_view g, s = PORTA_VIEW_ERASE(*src);                                                      \
    int rc = porta_view_subview(&g, &s, slices);                                                   \
    *out = porta_view_##NAME##_from_(g);                                                           \
    return rc;                                                                                     \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_resize(porta_view_##NAME *v, int rank,        \
                                                            const int64_t *extents) {              \
    porta_view g = PORTA_VIEW_ERASE(*v);                                                           \
    int rc = porta_view_resize(&g, rank, extents);                                                 \
    *v = porta_view_##NAME##_from_(g);                                                             \
    return rc;                                                                                     \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_realloc(porta_view_##NAME *v, int rank,       \
                                                             const int64_t *extents) {             \
    porta_view g = PORTA_VIEW_ERASE(*v);                                                           \
    int rc = porta_view_realloc(&g, rank, extents);                                                \
    *v = porta_view_##NAME##_from_(g);                                                             \
    return rc;                                                                                     \
  }                                                                                                \
  static inline PORTA_UNUSED porta_mirror_##NAME porta_mirror_##NAME##_from_(porta_view g) {       \
    porta_mirror_##NAME v;                                                                         \
    v.data = (T *)g.data;                                                                          \
    v.m = g.m;                                                                                     \
    return v;                                                                                      \
  }                                                                                                \
  /** A new host view of src's shape and layout (a mirror: PORTA_S* reads it). */                  \
  static inline PORTA_UNUSED int porta_view_##NAME##_create_mirror(porta_mirror_##NAME *out,       \
                                                                   const porta_view_##NAME *src) { \
    porta_view g, s = PORTA_VIEW_ERASE(*src);                                                      \
    int rc = porta_view_create_mirror(&g, &s);                                                     \
    *out = porta_mirror_##NAME##_from_(g);                                                         \
    return rc;                                                                                     \
  }                                                                                                \
  /** src itself when the host can read it, else a new host mirror. */                             \
  static inline PORTA_UNUSED int porta_view_##NAME##_create_mirror_view(                           \
      porta_mirror_##NAME *out, const porta_view_##NAME *src) {                                    \
    porta_view g, s = PORTA_VIEW_ERASE(*src);                                                      \
    int rc = porta_view_create_mirror_view(&g, &s);                                                \
    *out = porta_mirror_##NAME##_from_(g);                                                         \
    return rc;                                                                                     \
  }                                                                                                \
  static inline PORTA_UNUSED void porta_mirror_##NAME##_release(porta_mirror_##NAME *v) {          \
    porta_view g = PORTA_VIEW_ERASE(*v);                                                           \
    porta_view_release(&g);                                                                        \
    *v = porta_mirror_##NAME##_from_(g);                                                           \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_mirror_##NAME##_fill(porta_mirror_##NAME v, T value) {      \
    return porta_view_fill(PORTA_VIEW_ERASE(v), &value);                                           \
  }                                                                                                \
  static inline PORTA_UNUSED int porta_view_##NAME##_fill(porta_view_##NAME v, T value) {          \
    return porta_view_fill(PORTA_VIEW_ERASE(v), &value);                                           \
  }                                                                                                \
  /** Read-only handle; the traits record the const-ness for tools and checks. */                  \
  static inline PORTA_UNUSED porta_cview_##NAME porta_view_##NAME##_const(porta_view_##NAME v) {   \
    porta_cview_##NAME c;                                                                          \
    c.data = v.data;                                                                               \
    c.m = v.m;                                                                                     \
    c.m.traits |= PORTA_VIEW_CONST;                                                                \
    return c;                                                                                      \
  }

PORTA_DECLARE_VIEW(f64, double, PORTA_TYPE_F64)
PORTA_DECLARE_VIEW(f32, float, PORTA_TYPE_F32)
PORTA_DECLARE_VIEW(i64, int64_t, PORTA_TYPE_I64)
PORTA_DECLARE_VIEW(i32, int32_t, PORTA_TYPE_I32)
PORTA_DECLARE_VIEW(u64, uint64_t, PORTA_TYPE_U64)
PORTA_DECLARE_VIEW(u32, uint32_t, PORTA_TYPE_U32)
PORTA_DECLARE_VIEW(u8, uint8_t, PORTA_TYPE_U8)

#include "porta/view_access.h"

#endif /* PORTA_VIEW_H */
