/** @file porta_py.h
 *  What a module generated from Python kernels (python/porta/translate.py) exports, and what
 *  the extension porta._core reads to launch its kernels: one porta_py_kernel per kernel
 *  specialisation, each with the fields of its argument struct (kind, dtype, rank, layout and
 *  the offsets the generated C computed with offsetof, so the packing never guesses C's
 *  layout). Written in the common subset of C11 and C++17. */
#ifndef PORTA_PY_H
#define PORTA_PY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "porta/atomic.h"
#include "porta/kernel.h"
#include "porta/xsum.h"

/** for k in porta.simd_range(...): `omp simd` with the loop's reduction clauses on the host
 *  passes (the CPU vectorises the loop, as miniMD's MINIMD_SIMD does), nothing on a GPU. */
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define PORTA_PY_PRAGMA_(...) _Pragma(#__VA_ARGS__)
#define PORTA_PY_SIMD(...) PORTA_PY_PRAGMA_(omp simd __VA_ARGS__)
#else
#define PORTA_PY_SIMD(...)
#endif

/** Version of this description; the extension refuses a module with another one. */
#define PORTA_PY_ABI 5

/** 1 in a module compiled for the checked mode (porta.init(bounds_check=True),
 *  @porta.kernel(bounds_check=True), PORTA_BOUNDS_CHECK=1): the generated C defines it first,
 *  so checked modules have cache entries of their own. */
#ifndef PORTA_PY_CHECKED
#define PORTA_PY_CHECKED 0
#endif

/** Element types (also the scalar argument types). */
enum porta_py_dtype {
  PORTA_PY_F64 = 0,
  PORTA_PY_F32 = 1,
  PORTA_PY_I64 = 2,
  PORTA_PY_I32 = 3,
  PORTA_PY_U8 = 4,
  PORTA_PY_BOOL = 5 /**< scalar only: an int (0 or 1) */
};

/** Array layouts a kernel is specialised on. */
enum porta_py_layout {
  PORTA_PY_LAYOUT_C = 0,       /**< row-major, contiguous: the strides follow the extents */
  PORTA_PY_LAYOUT_F = 1,       /**< column-major, contiguous */
  PORTA_PY_LAYOUT_STRIDED = 2, /**< any element strides (read from the struct) */
  /** row-major with padded rows (a subview of the interior of a C array): the last stride
   *  is 1, the others are read from the struct */
  PORTA_PY_LAYOUT_C_PADDED = 3,
  PORTA_PY_LAYOUT_F_PADDED = 4 /**< column-major with padded columns: the first stride is 1 */
};

enum porta_py_field_kind { PORTA_PY_ARRAY = 0, PORTA_PY_SCALAR = 1 };

/** What a reduction or scan hands back to Python. */
enum porta_py_result_kind {
  PORTA_PY_RESULT_NONE = 0,   /**< parallel_for */
  PORTA_PY_RESULT_SCALAR = 1, /**< one number of result_dtype */
  PORTA_PY_RESULT_LOC = 2,    /**< minloc / maxloc: the tuple (val, loc) of result_fields */
  PORTA_PY_RESULT_STRUCT = 3  /**< a custom reducer: its result_fields, made into its class */
};

/** Scratch requests of a team kernel, in bytes (porta_scratch_size summed over its
 *  allocations): per team at levels 0 and 1, per thread at levels 0 and 1. */
enum {
  PORTA_PY_SCRATCH_TEAM0 = 0,
  PORTA_PY_SCRATCH_TEAM1 = 1,
  PORTA_PY_SCRATCH_THREAD0 = 2,
  PORTA_PY_SCRATCH_THREAD1 = 3
};

/** Argument field flags. */
enum { PORTA_PY_WRITTEN = 1 /**< the kernel stores into this array */ };

/** Kernel flags (porta_py_kernel.flags). */
enum {
  /** the kernel (or a device function it calls) may record an error in its launch's
   *  porta_py_error_record: an integer // or % by a divisor known only at run time, or checked
   *  accesses. On CUDA such a launch waits for its kernel, so the error is this launch's. */
  PORTA_PY_MAY_RAISE = 1,
  PORTA_PY_CHECKED_ACCESS = 2 /**< compiled in the checked mode (PORTA_PY_CHECKED) */
};

/** The flags of a kernel, with the module's checked mode added. */
#define PORTA_PY_KERNEL_FLAGS(F)                                                                   \
  ((F) | (PORTA_PY_CHECKED ? PORTA_PY_MAY_RAISE | PORTA_PY_CHECKED_ACCESS : 0))

/** What a kernel records of the first error raised inside it (porta_py_error_record.kind). */
enum porta_py_error_kind {
  PORTA_PY_ERR_NONE = 0,
  PORTA_PY_ERR_ZERO_DIVISION = 1, /**< integer // or % by zero: ZeroDivisionError */
  PORTA_PY_ERR_INDEX = 2          /**< an index outside an array (checked mode): IndexError */
};

/** The error record of one launch: the extension puts a pointer to it in the argument struct
 *  (porta_py_kernel.err_offset), the first failing thread of the kernel claims it and fills it
 *  in, and the launch raises it as a Python exception once the kernel has ended. Host launches
 *  keep it on the launching thread's stack; CUDA launches use pinned, device-mapped host memory
 *  with the claim flag in device memory (`dclaim`), since atomics on mapped host memory are not
 *  guaranteed to be atomic. Only `claimed` / `*dclaim` and `ready` need resetting per launch. */
typedef struct porta_py_error_record {
  int32_t claimed;   /**< host: 0 until a thread claims the record */
  int32_t ready;     /**< set once the rest is written */
  int32_t *dclaim;   /**< CUDA: the claim flag in device memory; NULL on the host */
  int32_t kind;      /**< porta_py_error_kind */
  int32_t line;      /**< the Python line of the operation */
  int32_t rank;      /**< index errors: the array's rank */
  int32_t axis;      /**< index errors: the first dimension whose index is out of range */
  int64_t idx[6];    /**< index errors: the indices; division: idx[0] is the dividend */
  int64_t extent[6]; /**< index errors: the array's extents */
  char what[32];     /**< the array's name, or the operator ("//", "%") */
  char file[224];    /**< the Python file (its end when longer) */
} porta_py_error_record;

/** One argument of a kernel: a scalar at `offset`, or an array whose data pointer is at
 *  `offset`, its `rank` extents (int64_t) at `extent_offset` and element strides (int64_t) at
 *  `stride_offset`. */
typedef struct porta_py_field {
  const char *name;
  int32_t kind;   /**< porta_py_field_kind */
  int32_t dtype;  /**< porta_py_dtype */
  int32_t rank;   /**< arrays: 1..6 */
  int32_t layout; /**< arrays: porta_py_layout of this specialisation */
  int32_t flags;  /**< PORTA_PY_WRITTEN */
  int32_t offset;
  int32_t extent_offset;
  int32_t stride_offset;
  /** arrays: [rank] extents fixed by the annotation (porta.f64[:, 3]; 0: any), or NULL; the
   *  generated C indexes with them as constants, so a launch checks them */
  const int64_t *fixed;
  /** arrays: [rank] masks of the launch indices that index a dimension directly and
   *  unconditionally (bit r: index r itself, as in y[i] or a[i, j]), or NULL: every launch
   *  checks that range r fits that extent and starts at 0 or above */
  const uint8_t *direct;
} porta_py_field;

/** One kernel specialisation. */
typedef struct porta_py_kernel {
  const char *name; /**< "module.kernel" */
  const char *spec; /**< the specialisation's layouts, one letter per array ("CF" ...) */
  const porta_kernel *kernel;
  int32_t pattern;      /**< porta_pattern: for or reduce */
  int32_t policy;       /**< porta_policy_kind */
  int32_t rank;         /**< range: 1; mdrange: 2..6 */
  int32_t result_dtype; /**< reductions: porta_py_dtype of the value; -1 otherwise */
  int32_t nfields;
  int32_t args_size; /**< sizeof the argument struct */
  const porta_py_field *fields;
  /** Team kernels that take scratch: adds its requests (PORTA_PY_SCRATCH_*) for the packed
   *  arguments `args` to req[4]; NULL otherwise. */
  void (*scratch)(const void *args, size_t *req);
  int32_t result_kind; /**< porta_py_result_kind */
  int32_t nresult;     /**< LOC and STRUCT: the value's fields (scalars at their offsets) */
  const porta_py_field *result_fields;
  int32_t err_offset; /**< offset of the porta_py_error_record pointer (pk_err) in the argument
                         struct */
  int32_t flags;      /**< PORTA_PY_MAY_RAISE, PORTA_PY_CHECKED_ACCESS */
  const char *const *index_names; /**< range and mdrange kernels: the [rank] indices' names */
  /** A reduction whose value is not the number Python gets (porta.ExactSum): writes that number
   *  (of result_dtype) from the value, in the module that reduced it; NULL otherwise. */
  void (*finish)(const void *value, void *out);
} porta_py_kernel;

/** What a generated module exports (its only visible symbol, porta_py_module). */
typedef struct porta_py_module_info {
  int32_t abi; /**< PORTA_PY_ABI */
  int32_t nkernels;
  const porta_py_kernel *const *kernels;
} porta_py_module_info;

/** porta_py_kernel.finish of the exact sum (porta.ExactSum, reducer porta_xsum_f64): the exact
 *  sum rounded once to the nearest double (porta_xsum_f64_round: NaN where it overflowed the
 *  window or met an Inf or a NaN), by the module's own porta/xsum.h, so with its window. */
static __attribute__((unused)) void porta_py_xsum_finish(const void *value, void *out) {
  const double r = porta_xsum_f64_round((const porta_xsum_f64_value *)value);
  memcpy(out, &r, sizeof r);
}

/* ---- errors raised inside kernels ---- */

/** Functions of the error paths: out of line, so that the checks in a loop stay small. */
#if defined(__CUDACC__)
#define PORTA_PY_COLD_FUNCTION static __host__ __device__ __noinline__ __attribute__((unused))
#else
#define PORTA_PY_COLD_FUNCTION static __attribute__((noinline, cold, unused))
#endif

/** Claim the launch's error record (the first failing thread wins; NULL: nowhere to record). */
PORTA_INLINE_FUNCTION int porta_py_claim_(porta_py_error_record *e) {
  if (!e) return 0;
  int32_t *c = e->dclaim ? e->dclaim : &e->claimed;
  return porta_atomic_compare_exchange_i32(c, 0, 1) == 0;
}

/** Copy a string into a record's field of `cap` bytes, keeping its end when it is longer (the
 *  end of a path names the file). */
PORTA_INLINE_FUNCTION void porta_py_copy_(char *dst, int cap, const char *src) {
  int n = 0;
  while (src[n]) ++n;
  const int from = n > cap - 1 ? n - (cap - 1) : 0;
  int k = 0;
  for (; src[from + k]; ++k) dst[k] = src[from + k];
  dst[k] = '\0';
}

/** Publish a claimed record: its fields first, then `ready`. */
PORTA_INLINE_FUNCTION void porta_py_publish_(porta_py_error_record *e) {
#if defined(__CUDA_ARCH__)
  __threadfence_system();
  *(volatile int32_t *)&e->ready = 1;
#else
  __atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
#endif
}

/** Record a ZeroDivisionError (integer `op` by zero at file:line); the result is 0. */
PORTA_PY_COLD_FUNCTION int64_t porta_py_zero_division_(porta_py_error_record *e, int64_t a,
                                                       const char *op, const char *file, int line) {
  if (porta_py_claim_(e)) {
    e->kind = PORTA_PY_ERR_ZERO_DIVISION;
    e->line = line;
    e->rank = 0;
    e->axis = 0;
    e->idx[0] = a;
    porta_py_copy_(e->what, (int)sizeof e->what, op);
    porta_py_copy_(e->file, (int)sizeof e->file, file);
    porta_py_publish_(e);
  }
  return 0;
}

/** Record an IndexError: array `a` of `rank` extents n0.., indices i0.. (unused ones 0 and 1),
 *  at file:line. Everything by value: passing the address of the argument struct's extents
 *  would make a GPU copy the struct to local memory in every thread. */
PORTA_PY_COLD_FUNCTION void porta_py_bad_index_(porta_py_error_record *e, const char *a, int rank,
                                                int64_t i0, int64_t i1, int64_t i2, int64_t i3,
                                                int64_t i4, int64_t i5, int64_t n0, int64_t n1,
                                                int64_t n2, int64_t n3, int64_t n4, int64_t n5,
                                                const char *file, int line) {
  if (!porta_py_claim_(e)) return;
  const int64_t idx[6] = {i0, i1, i2, i3, i4, i5}, n[6] = {n0, n1, n2, n3, n4, n5};
  int axis = -1;
  for (int k = 0; k < rank; ++k) {
    e->idx[k] = idx[k];
    e->extent[k] = n[k];
    if (axis < 0 && (uint64_t)idx[k] >= (uint64_t)n[k]) axis = k;
  }
  e->kind = PORTA_PY_ERR_INDEX;
  e->line = line;
  e->rank = rank;
  e->axis = axis < 0 ? 0 : axis;
  porta_py_copy_(e->what, (int)sizeof e->what, a);
  porta_py_copy_(e->file, (int)sizeof e->file, file);
  porta_py_publish_(e);
}

/** Where a bad access goes instead: `sink`, zeroed, so a read gives 0 and a write is dropped.
 *  Zeroed by memset, which may store any type: the access reads it as the array's type. */
PORTA_INLINE_FUNCTION void *porta_py_sink_(int64_t *sink) {
  memset(sink, 0, sizeof *sink);
  return sink;
}

/* ---- array elements ---- */

/** a[i, j] of an array argument is PORTA_PY_AT2(T, a, pk_a->a_n, pk_a->a_s, "a", LINE, offset, i,
 *  j), T the element type and LINE the Python line:
 *  - normally a[offset], the index arithmetic of the kernel's layout specialisation;
 *  - in the checked mode (PORTA_PY_CHECKED) each index is compared with its extent (a negative
 *    one fails too); the first bad access of a launch is recorded in the launch's error record
 *    (pk_err: the array, the indices, the extents, __FILE__ and LINE, which the generated #line
 *    directives make the Python file and line) and raised as IndexError after the launch, and
 *    the access is skipped (a read gives 0, a write is dropped), on the host and on a GPU;
 *  - in a debug build (Porta's PORTA_ENABLE_DEBUG, or -DPORTA_ENABLE_DEBUG=1 in PORTA_CFLAGS /
 *    PORTA_NVCCFLAGS) every index is checked by Porta's own view check
 *    (porta_view_checked_offset_), whose failure names the argument, the indices, the extents
 *    and the Python file and line; the host aborts, a GPU records it and traps, and the launch
 *    returns PORTA_ERROR_BOUNDS. */
#if PORTA_PY_CHECKED
#if defined(__CUDACC__)
/** Where a GPU's bad accesses go (one per module: the value read from it is not used). */
static __device__ __attribute__((unused)) int64_t porta_py_sink_dev_[1];
#endif
#if defined(__CUDA_ARCH__)
#define PORTA_PY_SINK_ porta_py_sink_dev_
#define PORTA_PY_CHECKED_LOCALS
#else
#define PORTA_PY_SINK_ pk_sink
/** The locals a checked kernel body declares: the host's sink of bad accesses (a thread's own,
 *  so that a bad read gives 0 even while another thread's bad write is dropped). */
#define PORTA_PY_CHECKED_LOCALS                                                                    \
  int64_t pk_sink[1] = {0};                                                                        \
  (void)pk_sink;
#endif

PORTA_INLINE_FUNCTION void *porta_py_at1_(void *p, int64_t size, int64_t off,
                                          porta_py_error_record *e, int64_t *sink, const int64_t *n,
                                          const char *a, int64_t i0, const char *f, int l) {
  if (PORTA_LIKELY((uint64_t)i0 < (uint64_t)n[0])) return (char *)p + off * size;
  porta_py_bad_index_(e, a, 1, i0, 0, 0, 0, 0, 0, n[0], 1, 1, 1, 1, 1, f, l);
  return porta_py_sink_(sink);
}
PORTA_INLINE_FUNCTION void *porta_py_at2_(void *p, int64_t size, int64_t off,
                                          porta_py_error_record *e, int64_t *sink, const int64_t *n,
                                          const char *a, int64_t i0, int64_t i1, const char *f,
                                          int l) {
  if (PORTA_LIKELY((uint64_t)i0 < (uint64_t)n[0] && (uint64_t)i1 < (uint64_t)n[1]))
    return (char *)p + off * size;
  porta_py_bad_index_(e, a, 2, i0, i1, 0, 0, 0, 0, n[0], n[1], 1, 1, 1, 1, f, l);
  return porta_py_sink_(sink);
}
PORTA_INLINE_FUNCTION void *porta_py_at3_(void *p, int64_t size, int64_t off,
                                          porta_py_error_record *e, int64_t *sink, const int64_t *n,
                                          const char *a, int64_t i0, int64_t i1, int64_t i2,
                                          const char *f, int l) {
  if (PORTA_LIKELY((uint64_t)i0 < (uint64_t)n[0] && (uint64_t)i1 < (uint64_t)n[1] &&
                   (uint64_t)i2 < (uint64_t)n[2]))
    return (char *)p + off * size;
  porta_py_bad_index_(e, a, 3, i0, i1, i2, 0, 0, 0, n[0], n[1], n[2], 1, 1, 1, f, l);
  return porta_py_sink_(sink);
}
PORTA_INLINE_FUNCTION void *porta_py_at4_(void *p, int64_t size, int64_t off,
                                          porta_py_error_record *e, int64_t *sink, const int64_t *n,
                                          const char *a, int64_t i0, int64_t i1, int64_t i2,
                                          int64_t i3, const char *f, int l) {
  if (PORTA_LIKELY((uint64_t)i0 < (uint64_t)n[0] && (uint64_t)i1 < (uint64_t)n[1] &&
                   (uint64_t)i2 < (uint64_t)n[2] && (uint64_t)i3 < (uint64_t)n[3]))
    return (char *)p + off * size;
  porta_py_bad_index_(e, a, 4, i0, i1, i2, i3, 0, 0, n[0], n[1], n[2], n[3], 1, 1, f, l);
  return porta_py_sink_(sink);
}
PORTA_INLINE_FUNCTION void *porta_py_at5_(void *p, int64_t size, int64_t off,
                                          porta_py_error_record *e, int64_t *sink, const int64_t *n,
                                          const char *a, int64_t i0, int64_t i1, int64_t i2,
                                          int64_t i3, int64_t i4, const char *f, int l) {
  if (PORTA_LIKELY((uint64_t)i0 < (uint64_t)n[0] && (uint64_t)i1 < (uint64_t)n[1] &&
                   (uint64_t)i2 < (uint64_t)n[2] && (uint64_t)i3 < (uint64_t)n[3] &&
                   (uint64_t)i4 < (uint64_t)n[4]))
    return (char *)p + off * size;
  porta_py_bad_index_(e, a, 5, i0, i1, i2, i3, i4, 0, n[0], n[1], n[2], n[3], n[4], 1, f, l);
  return porta_py_sink_(sink);
}
PORTA_INLINE_FUNCTION void *porta_py_at6_(void *p, int64_t size, int64_t off,
                                          porta_py_error_record *e, int64_t *sink, const int64_t *n,
                                          const char *a, int64_t i0, int64_t i1, int64_t i2,
                                          int64_t i3, int64_t i4, int64_t i5, const char *f,
                                          int l) {
  if (PORTA_LIKELY((uint64_t)i0 < (uint64_t)n[0] && (uint64_t)i1 < (uint64_t)n[1] &&
                   (uint64_t)i2 < (uint64_t)n[2] && (uint64_t)i3 < (uint64_t)n[3] &&
                   (uint64_t)i4 < (uint64_t)n[4] && (uint64_t)i5 < (uint64_t)n[5]))
    return (char *)p + off * size;
  porta_py_bad_index_(e, a, 6, i0, i1, i2, i3, i4, i5, n[0], n[1], n[2], n[3], n[4], n[5], f, l);
  return porta_py_sink_(sink);
}
#define PORTA_PY_CHK_(T, P, R, ...)                                                                \
  (*(T *)porta_py_at##R##_((void *)(P), (int64_t)sizeof(T), __VA_ARGS__))
#define PORTA_PY_AT1(T, P, N, S, A, L, OFF, I0)                                                    \
  PORTA_PY_CHK_(T, P, 1, OFF, pk_err, PORTA_PY_SINK_, N, A, I0, __FILE__, L)
#define PORTA_PY_AT2(T, P, N, S, A, L, OFF, I0, I1)                                                \
  PORTA_PY_CHK_(T, P, 2, OFF, pk_err, PORTA_PY_SINK_, N, A, I0, I1, __FILE__, L)
#define PORTA_PY_AT3(T, P, N, S, A, L, OFF, I0, I1, I2)                                            \
  PORTA_PY_CHK_(T, P, 3, OFF, pk_err, PORTA_PY_SINK_, N, A, I0, I1, I2, __FILE__, L)
#define PORTA_PY_AT4(T, P, N, S, A, L, OFF, I0, I1, I2, I3)                                        \
  PORTA_PY_CHK_(T, P, 4, OFF, pk_err, PORTA_PY_SINK_, N, A, I0, I1, I2, I3, __FILE__, L)
#define PORTA_PY_AT5(T, P, N, S, A, L, OFF, I0, I1, I2, I3, I4)                                    \
  PORTA_PY_CHK_(T, P, 5, OFF, pk_err, PORTA_PY_SINK_, N, A, I0, I1, I2, I3, I4, __FILE__, L)
#define PORTA_PY_AT6(T, P, N, S, A, L, OFF, I0, I1, I2, I3, I4, I5)                                \
  PORTA_PY_CHK_(T, P, 6, OFF, pk_err, PORTA_PY_SINK_, N, A, I0, I1, I2, I3, I4, I5, __FILE__, L)

#elif PORTA_ENABLE_DEBUG
#include "porta/view_access.h"

PORTA_INLINE_FUNCTION int64_t porta_py_checked_(const int64_t *ext, const int64_t *str,
                                                const char *name, int rank, const int64_t *idx,
                                                const char *file, int line) {
  porta_view_meta m;
  for (int r = 0; r < PORTA_MAX_RANK; ++r) {
    m.extent[r] = r < rank ? ext[r] : 1;
    m.stride[r] = r < rank ? str[r] : 0;
  }
  m.rank = rank;
  m.layout = PORTA_LAYOUT_STRIDE;
  m.space = PORTA_HOST_SPACE;
  m.type = PORTA_TYPE_USER;
  m.traits = 0;
  m.value_size = 0;
  m.record = NULL;
  int k = 0;
  for (; k < PORTA_LABEL_MAX - 1 && name[k]; ++k) m.label[k] = name[k];
  m.label[k] = '\0';
  return porta_view_checked_offset_(&m, 0, rank, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_py_checked1_(const int64_t *n, const int64_t *s, const char *a,
                                                 int64_t i0, const char *f, int l) {
  const int64_t idx[1] = {i0};
  return porta_py_checked_(n, s, a, 1, idx, f, l);
}
PORTA_INLINE_FUNCTION int64_t porta_py_checked2_(const int64_t *n, const int64_t *s, const char *a,
                                                 int64_t i0, int64_t i1, const char *f, int l) {
  const int64_t idx[2] = {i0, i1};
  return porta_py_checked_(n, s, a, 2, idx, f, l);
}
PORTA_INLINE_FUNCTION int64_t porta_py_checked3_(const int64_t *n, const int64_t *s, const char *a,
                                                 int64_t i0, int64_t i1, int64_t i2, const char *f,
                                                 int l) {
  const int64_t idx[3] = {i0, i1, i2};
  return porta_py_checked_(n, s, a, 3, idx, f, l);
}
PORTA_INLINE_FUNCTION int64_t porta_py_checked4_(const int64_t *n, const int64_t *s, const char *a,
                                                 int64_t i0, int64_t i1, int64_t i2, int64_t i3,
                                                 const char *f, int l) {
  const int64_t idx[4] = {i0, i1, i2, i3};
  return porta_py_checked_(n, s, a, 4, idx, f, l);
}
PORTA_INLINE_FUNCTION int64_t porta_py_checked5_(const int64_t *n, const int64_t *s, const char *a,
                                                 int64_t i0, int64_t i1, int64_t i2, int64_t i3,
                                                 int64_t i4, const char *f, int l) {
  const int64_t idx[5] = {i0, i1, i2, i3, i4};
  return porta_py_checked_(n, s, a, 5, idx, f, l);
}
PORTA_INLINE_FUNCTION int64_t porta_py_checked6_(const int64_t *n, const int64_t *s, const char *a,
                                                 int64_t i0, int64_t i1, int64_t i2, int64_t i3,
                                                 int64_t i4, int64_t i5, const char *f, int l) {
  const int64_t idx[6] = {i0, i1, i2, i3, i4, i5};
  return porta_py_checked_(n, s, a, 6, idx, f, l);
}
#define PORTA_PY_CHECKED_LOCALS
#define PORTA_PY_AT1(T, P, N, S, A, L, OFF, I0) (P)[porta_py_checked1_(N, S, A, I0, __FILE__, L)]
#define PORTA_PY_AT2(T, P, N, S, A, L, OFF, I0, I1)                                                \
  (P)[porta_py_checked2_(N, S, A, I0, I1, __FILE__, L)]
#define PORTA_PY_AT3(T, P, N, S, A, L, OFF, I0, I1, I2)                                            \
  (P)[porta_py_checked3_(N, S, A, I0, I1, I2, __FILE__, L)]
#define PORTA_PY_AT4(T, P, N, S, A, L, OFF, I0, I1, I2, I3)                                        \
  (P)[porta_py_checked4_(N, S, A, I0, I1, I2, I3, __FILE__, L)]
#define PORTA_PY_AT5(T, P, N, S, A, L, OFF, I0, I1, I2, I3, I4)                                    \
  (P)[porta_py_checked5_(N, S, A, I0, I1, I2, I3, I4, __FILE__, L)]
#define PORTA_PY_AT6(T, P, N, S, A, L, OFF, I0, I1, I2, I3, I4, I5)                                \
  (P)[porta_py_checked6_(N, S, A, I0, I1, I2, I3, I4, I5, __FILE__, L)]
#else
#define PORTA_PY_CHECKED_LOCALS
#define PORTA_PY_AT1(T, P, N, S, A, L, OFF, I0) (P)[OFF]
#define PORTA_PY_AT2(T, P, N, S, A, L, OFF, I0, I1) (P)[OFF]
#define PORTA_PY_AT3(T, P, N, S, A, L, OFF, I0, I1, I2) (P)[OFF]
#define PORTA_PY_AT4(T, P, N, S, A, L, OFF, I0, I1, I2, I3) (P)[OFF]
#define PORTA_PY_AT5(T, P, N, S, A, L, OFF, I0, I1, I2, I3, I4) (P)[OFF]
#define PORTA_PY_AT6(T, P, N, S, A, L, OFF, I0, I1, I2, I3, I4, I5) (P)[OFF]
#endif

/* ---- Python semantics of integer and float operators, used by the generated C ---- */

/** Python's a // b on integers (rounds toward minus infinity), b != 0 (a constant divisor; the
 *  translator refuses a constant 0). INT64_MIN // -1 wraps to INT64_MIN, as NumPy's int64 does
 *  (C's division would trap). */
PORTA_INLINE_FUNCTION int64_t porta_py_floordiv_i64(int64_t a, int64_t b) {
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/** Python's a % b on integers (the sign of b), b != 0; INT64_MIN % -1 is 0. */
PORTA_INLINE_FUNCTION int64_t porta_py_mod_i64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/** a // b with a divisor known at run time: b == 0 records a ZeroDivisionError in the launch's
 *  record `e` (raised after the launch, naming file:line) and gives 0, where C would trap. */
PORTA_INLINE_FUNCTION int64_t porta_py_floordiv_chk_(int64_t a, int64_t b, porta_py_error_record *e,
                                                     const char *file, int line) {
  if (PORTA_UNLIKELY(b == 0)) return porta_py_zero_division_(e, a, "//", file, line);
  return porta_py_floordiv_i64(a, b);
}
/** a % b with a divisor known at run time (as porta_py_floordiv_chk_). */
PORTA_INLINE_FUNCTION int64_t porta_py_mod_chk_(int64_t a, int64_t b, porta_py_error_record *e,
                                                const char *file, int line) {
  if (PORTA_UNLIKELY(b == 0)) return porta_py_zero_division_(e, a, "%", file, line);
  return porta_py_mod_i64(a, b);
}
/** Integer a // b and a % b in generated code: pk_err is the kernel's error record (NULL in a
 *  custom reducer's init / join, where a division by zero gives 0 unreported); LINE the Python
 *  line, __FILE__ (under the generated #line) the Python file. */
#define PORTA_PY_FLOORDIV(A, B, LINE) porta_py_floordiv_chk_((A), (B), pk_err, __FILE__, (LINE))
#define PORTA_PY_MOD(A, B, LINE) porta_py_mod_chk_((A), (B), pk_err, __FILE__, (LINE))
/** Python's a % b on floats. */
PORTA_INLINE_FUNCTION double porta_py_mod_f64(double a, double b) {
  double r = fmod(a, b);
  return (r != 0.0 && ((r < 0.0) != (b < 0.0))) ? r + b : r;
}
/* ---- int64 arithmetic of the kernels (the translator emits pk_add ...) ---- */

/* Python's int arithmetic on int64_t, wrapping around on overflow as NumPy's int64 does,
 * and shift counts outside 0..63 giving what NumPy's give (<<: 0; >>: 0, or -1 for a negative
 * number). A host compiler run with -fwrapv -DPORTA_PY_WRAPV (signed overflow wraps) takes
 * C's + - * as they are, which loops vectorise; otherwise (and on a GPU) the operations are
 * made on uint64_t, whose overflow is defined where C's signed overflow is not. */
#if defined(PORTA_PY_WRAPV) && !defined(__CUDA_ARCH__)
#define pk_add(a, b) ((int64_t)(a) + (int64_t)(b))
#define pk_sub(a, b) ((int64_t)(a) - (int64_t)(b))
#define pk_mul(a, b) ((int64_t)(a) * (int64_t)(b))
#define pk_neg(a) (-(int64_t)(a))
#else
PORTA_INLINE_FUNCTION PORTA_UNUSED int64_t pk_add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
PORTA_INLINE_FUNCTION PORTA_UNUSED int64_t pk_sub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
PORTA_INLINE_FUNCTION PORTA_UNUSED int64_t pk_mul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}
PORTA_INLINE_FUNCTION PORTA_UNUSED int64_t pk_neg(int64_t a) {
  return (int64_t)((uint64_t)0 - (uint64_t)a);
}
#endif
PORTA_INLINE_FUNCTION PORTA_UNUSED int64_t pk_abs(int64_t a) { return a < 0 ? pk_neg(a) : a; }
PORTA_INLINE_FUNCTION PORTA_UNUSED int64_t pk_shl(int64_t a, int64_t b) {
  return (uint64_t)b < 64 ? (int64_t)((uint64_t)a << b) : 0;
}
PORTA_INLINE_FUNCTION PORTA_UNUSED int64_t pk_shr(int64_t a, int64_t b) {
  return (uint64_t)b < 64 ? a >> b : (a < 0 ? -1 : 0);
}
/* a ** b for b >= 0 (the translator gives a float for another exponent, as Python does) */
PORTA_INLINE_FUNCTION PORTA_UNUSED int64_t pk_ipow(int64_t a, int64_t b) {
  uint64_t r = 1, x = (uint64_t)a;
  for (; b > 0; b >>= 1) {
    if (b & 1) r *= x;
    x *= x;
  }
  return (int64_t)r;
}

#endif /* PORTA_PY_H */
