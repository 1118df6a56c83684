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

#include "porta/kernel.h"

/** for k in porta.simd_range(...): `omp simd` with the loop's reduction clauses on the host
 *  passes (the CPU vectorises the loop, as miniMD's MINIMD_SIMD does), nothing on a GPU. */
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define PORTA_PY_PRAGMA_(...) _Pragma(#__VA_ARGS__)
#define PORTA_PY_SIMD(...) PORTA_PY_PRAGMA_(omp simd __VA_ARGS__)
#else
#define PORTA_PY_SIMD(...)
#endif

/** Version of this description; the extension refuses a module with another one. */
#define PORTA_PY_ABI 3

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
} porta_py_kernel;

/** What a generated module exports (its only visible symbol, porta_py_module). */
typedef struct porta_py_module_info {
  int32_t abi; /**< PORTA_PY_ABI */
  int32_t nkernels;
  const porta_py_kernel *const *kernels;
} porta_py_module_info;

/* ---- array elements ---- */

/** a[i, j] of an array argument is a[PORTA_PY_IDX2(a_n, a_s, "a", offset, i, j)]: `offset`, the
 *  index arithmetic of the kernel's layout specialisation, in a normal build. With
 *  PORTA_ENABLE_DEBUG (a debug build of Porta, or -DPORTA_ENABLE_DEBUG=1 in PORTA_CFLAGS /
 *  PORTA_NVCCFLAGS) every index is checked against the argument's extents by Porta's own view
 *  check (porta_view_checked_offset_): a failure names the argument, the indices, the extents
 *  and __FILE__:__LINE__, which the generated #line directives make the Python file and line;
 *  the host aborts, a GPU records it for the launch to return PORTA_ERROR_BOUNDS. */
#if PORTA_ENABLE_DEBUG
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
#define PORTA_PY_IDX1(N, S, A, OFF, I0) porta_py_checked1_(N, S, A, I0, __FILE__, __LINE__)
#define PORTA_PY_IDX2(N, S, A, OFF, I0, I1) porta_py_checked2_(N, S, A, I0, I1, __FILE__, __LINE__)
#define PORTA_PY_IDX3(N, S, A, OFF, I0, I1, I2)                                                    \
  porta_py_checked3_(N, S, A, I0, I1, I2, __FILE__, __LINE__)
#define PORTA_PY_IDX4(N, S, A, OFF, I0, I1, I2, I3)                                                \
  porta_py_checked4_(N, S, A, I0, I1, I2, I3, __FILE__, __LINE__)
#define PORTA_PY_IDX5(N, S, A, OFF, I0, I1, I2, I3, I4)                                            \
  porta_py_checked5_(N, S, A, I0, I1, I2, I3, I4, __FILE__, __LINE__)
#define PORTA_PY_IDX6(N, S, A, OFF, I0, I1, I2, I3, I4, I5)                                        \
  porta_py_checked6_(N, S, A, I0, I1, I2, I3, I4, I5, __FILE__, __LINE__)
#else
#define PORTA_PY_IDX1(N, S, A, OFF, I0) (OFF)
#define PORTA_PY_IDX2(N, S, A, OFF, I0, I1) (OFF)
#define PORTA_PY_IDX3(N, S, A, OFF, I0, I1, I2) (OFF)
#define PORTA_PY_IDX4(N, S, A, OFF, I0, I1, I2, I3) (OFF)
#define PORTA_PY_IDX5(N, S, A, OFF, I0, I1, I2, I3, I4) (OFF)
#define PORTA_PY_IDX6(N, S, A, OFF, I0, I1, I2, I3, I4, I5) (OFF)
#endif

/* ---- Python semantics of integer and float operators, used by the generated C ---- */

/** Python's a // b on integers (rounds toward minus infinity). */
PORTA_INLINE_FUNCTION int64_t porta_py_floordiv_i64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/** Python's a % b on integers (the sign of b). */
PORTA_INLINE_FUNCTION int64_t porta_py_mod_i64(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/** Python's a % b on floats. */
PORTA_INLINE_FUNCTION double porta_py_mod_f64(double a, double b) {
  double r = fmod(a, b);
  return (r != 0.0 && ((r < 0.0) != (b < 0.0))) ? r + b : r;
}
/** a ** b for integers, b >= 0 (b < 0 gives 0, where Python would give a float). */
PORTA_INLINE_FUNCTION int64_t porta_py_ipow_i64(int64_t a, int64_t b) {
  int64_t r = 1;
  while (b > 0) {
    if (b & 1) r *= a;
    a *= a;
    b >>= 1;
  }
  return r;
}

#endif /* PORTA_PY_H */
