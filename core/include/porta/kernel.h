/** @file kernel.h
 *  Kernels: one body, every back end, chosen at run time.
 *
 *  A kernel's state is an explicit struct (the functor) passed by value. Each
 *  PORTA_* kernel macro generates, from the body that follows it, a serial
 *  launcher, an OpenMP launcher and (when nvcc compiles the file as CUDA) a
 *  `__global__` kernel with its launcher, plus a descriptor `NAME` of type
 *  porta_kernel holding one launcher per back end. The macro ends by opening
 *  the body's function header, so the user's braces are the body:
 *  @code
 *  typedef struct { porta_view_f64 x, y; double a; } axpy_args;
 *  PORTA_FOR(axpy, axpy_args, a, i) { PORTA_AT1(a->y, i) += a->a * PORTA_AT1(a->x, i); }
 *  ...
 *  porta_parallel_for("axpy", porta_exec_default(), porta_range(0, n), &axpy, &args);
 *  @endcode
 *  Bodies are bound at compile time by token pasting; only host launchers are
 *  stored in the descriptor, so device code never calls through a pointer.
 *  Kernel files must stay in the common subset of C11 and C++17.
 */
#ifndef PORTA_KERNEL_H
#define PORTA_KERNEL_H

#include <string.h>

#include "porta/backend/launch.h"
#include "porta/policy.h"
#include "porta/profiling.h"
#include "porta/reducer.h"
#include "porta/team.h"

PORTA_EXTERN_C_BEGIN

/* ---- dispatch (core/src/dispatch.c) ---- */

PORTA_API int porta_parallel_for(const char *label, porta_exec exec, porta_range_policy policy,
                                 const porta_kernel *kernel, const void *args);
PORTA_API int porta_parallel_for_md(const char *label, porta_exec exec, porta_mdrange_policy policy,
                                    const porta_kernel *kernel, const void *args);
PORTA_API int porta_parallel_for_team(const char *label, porta_exec exec, porta_team_policy policy,
                                      const porta_kernel *kernel, const void *args);
/** Reduce into `*result` (a value of the kernel's reducer type). Blocking. */
PORTA_API int porta_parallel_reduce(const char *label, porta_exec exec, porta_range_policy policy,
                                    const porta_kernel *kernel, const void *args, void *result);
PORTA_API int porta_parallel_reduce_md(const char *label, porta_exec exec,
                                       porta_mdrange_policy policy, const porta_kernel *kernel,
                                       const void *args, void *result);
PORTA_API int porta_parallel_reduce_team(const char *label, porta_exec exec,
                                         porta_team_policy policy, const porta_kernel *kernel,
                                         const void *args, void *result);
/** Scan; `*total` (may be NULL) receives the reduction of all values. Blocking. */
PORTA_API int porta_parallel_scan(const char *label, porta_exec exec, porta_range_policy policy,
                                  const porta_kernel *kernel, const void *args, void *total);

PORTA_EXTERN_C_END

/* ---- the back ends' generators ---- */
#include "porta/backend/serial/range.h"
#include "porta/backend/serial/mdrange.h"
#include "porta/backend/serial/team.h"
#include "porta/backend/openmp/range.h"
#include "porta/backend/openmp/mdrange.h"
#include "porta/backend/openmp/team.h"
#include "porta/backend/cuda/range.h"
#include "porta/backend/cuda/mdrange.h"
#include "porta/backend/cuda/team.h"

/** Declare a kernel defined in another file. */
#define PORTA_DECLARE_KERNEL(NAME)                                                                 \
  PORTA_EXTERN_C_BEGIN                                                                             \
  extern const porta_kernel NAME;                                                                  \
  PORTA_EXTERN_C_END

/** parallel_for over a range: body(const ARGS_T *A, int64_t I). */
#define PORTA_FOR(NAME, ARGS_T, A, I)                                                              \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I);                  \
  PORTA_SERIAL_FOR_(NAME, ARGS_T)                                                                  \
  PORTA_OPENMP_FOR_(NAME, ARGS_T)                                                                  \
  PORTA_CUDA_FOR_(NAME, ARGS_T)                                                                    \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_RANGE, 0, 0)                             \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A PORTA_UNUSED,                 \
                                                     int64_t I PORTA_UNUSED)

/** parallel_reduce over a range with reducer R: body(const ARGS_T *A, int64_t I, R_value *ACC). */
#define PORTA_REDUCE(NAME, ARGS_T, A, I, R, ACC)                                                   \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I, R##_value *ACC);  \
  PORTA_SERIAL_REDUCE_(NAME, ARGS_T, R)                                                            \
  PORTA_OPENMP_REDUCE_(NAME, ARGS_T, R)                                                            \
  PORTA_CUDA_REDUCE_(NAME, ARGS_T, R)                                                              \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_REDUCE, PORTA_POLICY_RANGE, 0, sizeof(R##_value))          \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I PORTA_UNUSED, R##_value *ACC PORTA_UNUSED)

/** parallel_scan over a range with reducer R:
 *  body(const ARGS_T *A, int64_t I, R_value *UPDATE, int FINAL). The body adds
 *  its contribution to *UPDATE; when FINAL is non-zero *UPDATE holds the prefix
 *  (exclusive before the body's addition, inclusive after). */
#define PORTA_SCAN(NAME, ARGS_T, A, I, R, UPDATE, FINAL)                                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I,                   \
                                                     R##_value *UPDATE, int FINAL);                \
  PORTA_SERIAL_SCAN_(NAME, ARGS_T, R)                                                              \
  PORTA_OPENMP_SCAN_(NAME, ARGS_T, R)                                                              \
  PORTA_CUDA_SCAN_(NAME, ARGS_T, R)                                                                \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_SCAN, PORTA_POLICY_RANGE, 0, sizeof(R##_value))            \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I PORTA_UNUSED, R##_value *UPDATE PORTA_UNUSED,        \
      int FINAL PORTA_UNUSED)

/** parallel_for over a rank-2 box: body(const ARGS_T *A, int64_t I0, int64_t I1). */
#define PORTA_MDFOR2(NAME, ARGS_T, A, I0, I1)                                                      \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I0, int64_t I1);     \
  PORTA_SERIAL_MDFOR2_(NAME, ARGS_T)                                                               \
  PORTA_OPENMP_MDFOR2_(NAME, ARGS_T)                                                               \
  PORTA_CUDA_MDFOR_(NAME, ARGS_T, 2)                                                               \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_MDRANGE, 2, 0)                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED)

#define PORTA_MDFOR3(NAME, ARGS_T, A, I0, I1, I2)                                                  \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I0, int64_t I1,      \
                                                     int64_t I2);                                  \
  PORTA_SERIAL_MDFOR3_(NAME, ARGS_T)                                                               \
  PORTA_OPENMP_MDFOR3_(NAME, ARGS_T)                                                               \
  PORTA_CUDA_MDFOR_(NAME, ARGS_T, 3)                                                               \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_MDRANGE, 3, 0)                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED,              \
      int64_t I2 PORTA_UNUSED)

#define PORTA_MDFOR4(NAME, ARGS_T, A, I0, I1, I2, I3)                                              \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I0, int64_t I1,      \
                                                     int64_t I2, int64_t I3);                      \
  PORTA_SERIAL_MDFOR4_(NAME, ARGS_T)                                                               \
  PORTA_OPENMP_MDFOR4_(NAME, ARGS_T)                                                               \
  PORTA_CUDA_MDFOR_(NAME, ARGS_T, 4)                                                               \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_MDRANGE, 4, 0)                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED,              \
      int64_t I2 PORTA_UNUSED, int64_t I3 PORTA_UNUSED)

#define PORTA_MDFOR5(NAME, ARGS_T, A, I0, I1, I2, I3, I4)                                          \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I0, int64_t I1,      \
                                                     int64_t I2, int64_t I3, int64_t I4);          \
  PORTA_SERIAL_MDFOR5_(NAME, ARGS_T)                                                               \
  PORTA_OPENMP_MDFOR5_(NAME, ARGS_T)                                                               \
  PORTA_CUDA_MDFOR_(NAME, ARGS_T, 5)                                                               \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_MDRANGE, 5, 0)                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED,              \
      int64_t I2 PORTA_UNUSED, int64_t I3 PORTA_UNUSED, int64_t I4 PORTA_UNUSED)

#define PORTA_MDFOR6(NAME, ARGS_T, A, I0, I1, I2, I3, I4, I5)                                      \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A, int64_t I0, int64_t I1, int64_t I2, int64_t I3, int64_t I4, int64_t I5);    \
  PORTA_SERIAL_MDFOR6_(NAME, ARGS_T)                                                               \
  PORTA_OPENMP_MDFOR6_(NAME, ARGS_T)                                                               \
  PORTA_CUDA_MDFOR_(NAME, ARGS_T, 6)                                                               \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_MDRANGE, 6, 0)                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED,              \
      int64_t I2 PORTA_UNUSED, int64_t I3 PORTA_UNUSED, int64_t I4 PORTA_UNUSED,                   \
      int64_t I5 PORTA_UNUSED)

/** parallel_reduce over a rank-2 box: body(const ARGS_T *A, int64_t I0, int64_t I1, R_value *ACC).
 */
#define PORTA_MDREDUCE2(NAME, ARGS_T, A, I0, I1, R, ACC)                                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I0, int64_t I1,      \
                                                     R##_value *ACC);                              \
  PORTA_SERIAL_MDREDUCE2_(NAME, ARGS_T, R)                                                         \
  PORTA_OPENMP_MDREDUCE2_(NAME, ARGS_T, R)                                                         \
  PORTA_CUDA_MDREDUCE_(NAME, ARGS_T, 2, R)                                                         \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_REDUCE, PORTA_POLICY_MDRANGE, 2, sizeof(R##_value))        \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED,              \
      R##_value *ACC PORTA_UNUSED)

#define PORTA_MDREDUCE3(NAME, ARGS_T, A, I0, I1, I2, R, ACC)                                       \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I0, int64_t I1,      \
                                                     int64_t I2, R##_value *ACC);                  \
  PORTA_SERIAL_MDREDUCE3_(NAME, ARGS_T, R)                                                         \
  PORTA_OPENMP_MDREDUCE3_(NAME, ARGS_T, R)                                                         \
  PORTA_CUDA_MDREDUCE_(NAME, ARGS_T, 3, R)                                                         \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_REDUCE, PORTA_POLICY_MDRANGE, 3, sizeof(R##_value))        \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED,              \
      int64_t I2 PORTA_UNUSED, R##_value *ACC PORTA_UNUSED)

/** parallel_for over a team policy: body(const ARGS_T *A, porta_team *TEAM). */
#define PORTA_TEAM_FOR(NAME, ARGS_T, A, TEAM)                                                      \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, porta_team *TEAM);           \
  PORTA_SERIAL_TEAM_FOR_(NAME, ARGS_T)                                                             \
  PORTA_OPENMP_TEAM_FOR_(NAME, ARGS_T)                                                             \
  PORTA_CUDA_TEAM_FOR_(NAME, ARGS_T)                                                               \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_TEAM, 0, 0)                              \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A PORTA_UNUSED,                 \
                                                     porta_team *TEAM PORTA_UNUSED)

/** parallel_reduce over a team policy: every thread of every team adds to its *ACC. */
#define PORTA_TEAM_REDUCE(NAME, ARGS_T, A, TEAM, R, ACC)                                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, porta_team *TEAM,            \
                                                     R##_value *ACC);                              \
  PORTA_SERIAL_TEAM_REDUCE_(NAME, ARGS_T, R)                                                       \
  PORTA_OPENMP_TEAM_REDUCE_(NAME, ARGS_T, R)                                                       \
  PORTA_CUDA_TEAM_REDUCE_(NAME, ARGS_T, R)                                                         \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_REDUCE, PORTA_POLICY_TEAM, 0, sizeof(R##_value))           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, porta_team *TEAM PORTA_UNUSED, R##_value *ACC PORTA_UNUSED)

#endif /* PORTA_KERNEL_H */
