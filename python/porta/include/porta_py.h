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

/** Version of this description; the extension refuses a module with another one. */
#define PORTA_PY_ABI 2

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
  PORTA_PY_LAYOUT_C = 0,      /**< row-major: the last stride is 1 */
  PORTA_PY_LAYOUT_F = 1,      /**< column-major: the first stride is 1 */
  PORTA_PY_LAYOUT_STRIDED = 2 /**< any element strides (read from the struct) */
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
