/** @file kernel.h
 *  Kernels: one body, every back end, chosen at run time.
 *
 *  A kernel's state is an explicit struct (the functor) passed by value. Each
 *  PORTA_* kernel macro generates, from the body that follows it, one launcher
 *  per back end of the build (PORTA_BACKEND_LIST: a serial loop, an OpenMP
 *  loop, a `__global__` kernel when nvcc compiles the file as CUDA, ...), plus
 *  a descriptor `NAME` of type porta_kernel holding them, and the types
 *  `NAME_args_t` (and `NAME_value_t` for reductions and scans) that the typed
 *  launches check. The macro ends by opening the body's function header, so the
 *  user's braces are the body:
 *  @code
 *  typedef struct { porta_view_f64 x, y; double a; } axpy_args;
 *  PORTA_FOR(axpy, axpy_args, a, i) { PORTA_AT1(a->y, i) += a->a * PORTA_AT1(a->x, i); }
 *  ...
 *  PORTA_CHECK(PORTA_PARALLEL_FOR(axpy, porta_exec_default(), porta_range(0, n), &args));
 *  @endcode
 *  The typed launch (below) checks &args against axpy_args at compile time.
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
/** Reduce into `result`: memory of `exec`'s memory space (a device view's element on a GPU),
 *  overwritten with the value when the kernel ends, without a wait (Kokkos' parallel_reduce into
 *  a View): later launches on `exec` read it there, the host after a fence. Host back ends
 *  finish before returning, as every launch. The form a loop's body uses (porta/loop.h). It
 *  must not overlap a reduction on another instance: reductions share one launch workspace. */
PORTA_API int porta_parallel_reduce_into(const char *label, porta_exec exec,
                                         porta_range_policy policy, const porta_kernel *kernel,
                                         const void *args, void *result);
PORTA_API int porta_parallel_reduce_md_into(const char *label, porta_exec exec,
                                            porta_mdrange_policy policy, const porta_kernel *kernel,
                                            const void *args, void *result);
PORTA_API int porta_parallel_reduce_team_into(const char *label, porta_exec exec,
                                              porta_team_policy policy, const porta_kernel *kernel,
                                              const void *args, void *result);
/** Scan; `*total` (may be NULL) receives the reduction of all values. Blocking. */
PORTA_API int porta_parallel_scan(const char *label, porta_exec exec, porta_range_policy policy,
                                  const porta_kernel *kernel, const void *args, void *total);

PORTA_EXTERN_C_END

/* ---- the back ends' generators ---- */
#include "porta/backend/host/mdrange.h"
#include "porta/backend/host/range.h"
#include "porta/backend/host/team.h"
#include "porta/backend/generators.h"

/* One call per back end of the list (porta/config.h): PORTA_<ID>_<PATTERN>_ with the tuple A. */
#define PORTA_GEN_FOR_(ID, name, on, A) PORTA_##ID##_FOR_ A
#define PORTA_GEN_REDUCE_(ID, name, on, A) PORTA_##ID##_REDUCE_ A
#define PORTA_GEN_SCAN_(ID, name, on, A) PORTA_##ID##_SCAN_ A
#define PORTA_GEN_MDFOR_(ID, name, on, A) PORTA_##ID##_MDFOR_ A
#define PORTA_GEN_MDREDUCE_(ID, name, on, A) PORTA_##ID##_MDREDUCE_ A
#define PORTA_GEN_TEAM_FOR_(ID, name, on, A) PORTA_##ID##_TEAM_FOR_ A
#define PORTA_GEN_TEAM_REDUCE_(ID, name, on, A) PORTA_##ID##_TEAM_REDUCE_ A

/** The types a kernel's launches are checked against (NAME_args_t, NAME_value_t). Repeating
 *  them (a declaration beside the definition) is allowed in C11 and C++. NAME_porta_value_ is
 *  what the typed launches read: the value type, or porta_no_value_ (never defined) for a
 *  parallel_for kernel, so that a launch of the wrong kind does not compile either. */
struct porta_no_value_;
#define PORTA_KERNEL_TYPES_(NAME, ARGS_T)                                                          \
  typedef ARGS_T NAME##_args_t;                                                                    \
  typedef struct porta_no_value_ NAME##_porta_value_;
#define PORTA_KERNEL_TYPES_R_(NAME, ARGS_T, R)                                                     \
  typedef ARGS_T NAME##_args_t;                                                                    \
  typedef R##_value NAME##_value_t;                                                                \
  typedef R##_value NAME##_porta_value_;

/** Declare a kernel defined in another file, with its argument type (and, for reductions and
 *  scans, its reducer), so that launches of it are typed: PORTA_DECLARE_KERNEL(axpy, axpy_args)
 *  or PORTA_DECLARE_KERNEL(dot, dot_args, porta_sum_f64). PORTA_DECLARE_KERNEL(NAME) alone
 *  declares the descriptor for the untyped calls (porta_parallel_for ...) only. */
#define PORTA_DECLARE_KERNEL(...)                                                                  \
  PORTA_DECLARE_PICK_(__VA_ARGS__, PORTA_DECLARE_KERNEL_R_, PORTA_DECLARE_KERNEL_A_,               \
                      PORTA_DECLARE_KERNEL_U_, ~)                                                  \
  (__VA_ARGS__)
#define PORTA_DECLARE_PICK_(A1, A2, A3, WHICH, ...) WHICH
#define PORTA_DECLARE_KERNEL_U_(NAME)                                                              \
  PORTA_EXTERN_C_BEGIN                                                                             \
  extern const porta_kernel NAME;                                                                  \
  PORTA_EXTERN_C_END
#define PORTA_DECLARE_KERNEL_A_(NAME, ARGS_T)                                                      \
  PORTA_KERNEL_TYPES_(NAME, ARGS_T)                                                                \
  PORTA_EXTERN_C_BEGIN                                                                             \
  extern const porta_kernel NAME;                                                                  \
  PORTA_EXTERN_C_END
#define PORTA_DECLARE_KERNEL_R_(NAME, ARGS_T, R)                                                   \
  PORTA_KERNEL_TYPES_R_(NAME, ARGS_T, R)                                                           \
  PORTA_EXTERN_C_BEGIN                                                                             \
  extern const porta_kernel NAME;                                                                  \
  PORTA_EXTERN_C_END

/** parallel_for over a range: body(const ARGS_T *A, int64_t I). */
#define PORTA_FOR(NAME, ARGS_T, A, I)                                                              \
  PORTA_KERNEL_TYPES_(NAME, ARGS_T)                                                                \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I);                  \
  PORTA_BACKEND_LIST(PORTA_GEN_FOR_, (NAME, ARGS_T))                                               \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_RANGE, 0, 0)                             \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A PORTA_UNUSED,                 \
                                                     int64_t I PORTA_UNUSED)

/** parallel_reduce over a range with reducer R: body(const ARGS_T *A, int64_t I, R_value *ACC). */
#define PORTA_REDUCE(NAME, ARGS_T, A, I, R, ACC)                                                   \
  PORTA_KERNEL_TYPES_R_(NAME, ARGS_T, R)                                                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I, R##_value *ACC);  \
  PORTA_HOST_REDUCE_HELPERS_(NAME, ARGS_T, R)                                                      \
  PORTA_BACKEND_LIST(PORTA_GEN_REDUCE_, (NAME, ARGS_T, R))                                         \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_REDUCE, PORTA_POLICY_RANGE, 0, sizeof(R##_value))          \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I PORTA_UNUSED, R##_value *ACC PORTA_UNUSED)

/** parallel_scan over a range with reducer R:
 *  body(const ARGS_T *A, int64_t I, R_value *UPDATE, int FINAL). The body adds
 *  its contribution to *UPDATE; when FINAL is non-zero *UPDATE holds the prefix
 *  (exclusive before the body's addition, inclusive after). */
#define PORTA_SCAN(NAME, ARGS_T, A, I, R, UPDATE, FINAL)                                           \
  PORTA_KERNEL_TYPES_R_(NAME, ARGS_T, R)                                                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, int64_t I,                   \
                                                     R##_value *UPDATE, int FINAL);                \
  PORTA_BACKEND_LIST(PORTA_GEN_SCAN_, (NAME, ARGS_T, R))                                           \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_SCAN, PORTA_POLICY_RANGE, 0, sizeof(R##_value))            \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, int64_t I PORTA_UNUSED, R##_value *UPDATE PORTA_UNUSED,        \
      int FINAL PORTA_UNUSED)

/** parallel_for over a box of rank RANK (2 to 6) with the indices' parameters IX, in
 *  parentheses: PORTA_MDFOR(NAME, ARGS_T, A, (i, j)) { ... }. */
#define PORTA_MDFOR_(NAME, ARGS_T, A, RANK, ...)                                                   \
  PORTA_KERNEL_TYPES_(NAME, ARGS_T)                                                                \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, __VA_ARGS__);                \
  PORTA_BACKEND_LIST(PORTA_GEN_MDFOR_, (NAME, ARGS_T, RANK))                                       \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_MDRANGE, RANK, 0)                        \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A PORTA_UNUSED, __VA_ARGS__)

/** parallel_reduce over a box of rank RANK with reducer R. */
#define PORTA_MDREDUCE_(NAME, ARGS_T, A, RANK, R, ...)                                             \
  PORTA_KERNEL_TYPES_R_(NAME, ARGS_T, R)                                                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, __VA_ARGS__);                \
  PORTA_HOST_MDREDUCE_HELPERS_(NAME, ARGS_T, RANK, R)                                              \
  PORTA_BACKEND_LIST(PORTA_GEN_MDREDUCE_, (NAME, ARGS_T, RANK, R))                                 \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_REDUCE, PORTA_POLICY_MDRANGE, RANK, sizeof(R##_value))     \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A PORTA_UNUSED, __VA_ARGS__)

#define PORTA_IX_(I) int64_t I PORTA_UNUSED

/** parallel_for over a rank-2 box: body(const ARGS_T *A, int64_t I0, int64_t I1); ranks 3 to 6
 *  the same with more indices (the last one is the innermost loop on the host). */
#define PORTA_MDFOR2(NAME, ARGS_T, A, I0, I1)                                                      \
  PORTA_MDFOR_(NAME, ARGS_T, A, 2, PORTA_IX_(I0), PORTA_IX_(I1))
#define PORTA_MDFOR3(NAME, ARGS_T, A, I0, I1, I2)                                                  \
  PORTA_MDFOR_(NAME, ARGS_T, A, 3, PORTA_IX_(I0), PORTA_IX_(I1), PORTA_IX_(I2))
#define PORTA_MDFOR4(NAME, ARGS_T, A, I0, I1, I2, I3)                                              \
  PORTA_MDFOR_(NAME, ARGS_T, A, 4, PORTA_IX_(I0), PORTA_IX_(I1), PORTA_IX_(I2), PORTA_IX_(I3))
#define PORTA_MDFOR5(NAME, ARGS_T, A, I0, I1, I2, I3, I4)                                          \
  PORTA_MDFOR_(NAME, ARGS_T, A, 5, PORTA_IX_(I0), PORTA_IX_(I1), PORTA_IX_(I2), PORTA_IX_(I3),     \
               PORTA_IX_(I4))
#define PORTA_MDFOR6(NAME, ARGS_T, A, I0, I1, I2, I3, I4, I5)                                      \
  PORTA_MDFOR_(NAME, ARGS_T, A, 6, PORTA_IX_(I0), PORTA_IX_(I1), PORTA_IX_(I2), PORTA_IX_(I3),     \
               PORTA_IX_(I4), PORTA_IX_(I5))

/** parallel_reduce over a rank-2 box: body(const ARGS_T *A, int64_t I0, int64_t I1, R_value *ACC);
 *  ranks 3 to 6 the same with more indices. */
#define PORTA_MDREDUCE2(NAME, ARGS_T, A, I0, I1, R, ACC)                                           \
  PORTA_MDREDUCE_(NAME, ARGS_T, A, 2, R, PORTA_IX_(I0), PORTA_IX_(I1), R##_value *ACC PORTA_UNUSED)
#define PORTA_MDREDUCE3(NAME, ARGS_T, A, I0, I1, I2, R, ACC)                                       \
  PORTA_MDREDUCE_(NAME, ARGS_T, A, 3, R, PORTA_IX_(I0), PORTA_IX_(I1), PORTA_IX_(I2),              \
                  R##_value *ACC PORTA_UNUSED)
#define PORTA_MDREDUCE4(NAME, ARGS_T, A, I0, I1, I2, I3, R, ACC)                                   \
  PORTA_MDREDUCE_(NAME, ARGS_T, A, 4, R, PORTA_IX_(I0), PORTA_IX_(I1), PORTA_IX_(I2),              \
                  PORTA_IX_(I3), R##_value *ACC PORTA_UNUSED)
#define PORTA_MDREDUCE5(NAME, ARGS_T, A, I0, I1, I2, I3, I4, R, ACC)                               \
  PORTA_MDREDUCE_(NAME, ARGS_T, A, 5, R, PORTA_IX_(I0), PORTA_IX_(I1), PORTA_IX_(I2),              \
                  PORTA_IX_(I3), PORTA_IX_(I4), R##_value *ACC PORTA_UNUSED)
#define PORTA_MDREDUCE6(NAME, ARGS_T, A, I0, I1, I2, I3, I4, I5, R, ACC)                           \
  PORTA_MDREDUCE_(NAME, ARGS_T, A, 6, R, PORTA_IX_(I0), PORTA_IX_(I1), PORTA_IX_(I2),              \
                  PORTA_IX_(I3), PORTA_IX_(I4), PORTA_IX_(I5), R##_value *ACC PORTA_UNUSED)

/** parallel_for over a team policy: body(const ARGS_T *A, porta_team *TEAM). */
#define PORTA_TEAM_FOR(NAME, ARGS_T, A, TEAM)                                                      \
  PORTA_KERNEL_TYPES_(NAME, ARGS_T)                                                                \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, porta_team *TEAM);           \
  PORTA_BACKEND_LIST(PORTA_GEN_TEAM_FOR_, (NAME, ARGS_T))                                          \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_FOR, PORTA_POLICY_TEAM, 0, 0)                              \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A PORTA_UNUSED,                 \
                                                     porta_team *TEAM PORTA_UNUSED)

/** parallel_reduce over a team policy: every thread of every team adds to its *ACC. */
#define PORTA_TEAM_REDUCE(NAME, ARGS_T, A, TEAM, R, ACC)                                           \
  PORTA_KERNEL_TYPES_R_(NAME, ARGS_T, R)                                                           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(const ARGS_T *A, porta_team *TEAM,            \
                                                     R##_value *ACC);                              \
  PORTA_HOST_TEAM_REDUCE_HELPERS_(NAME, ARGS_T, R)                                                 \
  PORTA_BACKEND_LIST(PORTA_GEN_TEAM_REDUCE_, (NAME, ARGS_T, R))                                    \
  PORTA_DESCRIPTOR_(NAME, PORTA_PATTERN_REDUCE, PORTA_POLICY_TEAM, 0, sizeof(R##_value))           \
  PORTA_FORCEINLINE_FUNCTION void NAME##_porta_body_(                                              \
      const ARGS_T *A PORTA_UNUSED, porta_team *TEAM PORTA_UNUSED, R##_value *ACC PORTA_UNUSED)

/* ---- typed launches ---- */

/** Launch kernel NAME by name, checked at compile time against the types its macro (or
 *  PORTA_DECLARE_KERNEL) defined: ARGS must point to a NAME_args_t (const or not), RESULT to a
 *  NAME_value_t, and the macro must match the kernel's kind (PORTA_PARALLEL_FOR for a
 *  parallel_for kernel, _REDUCE / _SCAN for one with a value). A mismatch is a compile error
 *  that says "Porta typed launch: ..." (C11: _Generic inside a static assertion; C++, what nvcc
 *  compiles: class templates holding a static_assert). The policy's type picks the pattern
 *  (porta_range: range, porta_mdrange2..6: box, porta_team_policy_make: team), as in Kokkos,
 *  and the kernel's name is the label. They expand to the untyped calls below and cost nothing
 *  over them; each argument is evaluated once.
 *  @code
 *  PORTA_CHECK(PORTA_PARALLEL_FOR(axpy, exec, porta_range(0, n), &args));
 *  PORTA_CHECK(PORTA_PARALLEL_REDUCE(dot, exec, porta_range(0, n), &args, &sum));
 *  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("axpy_halo", axpy, exec, porta_range(0, h), &args));
 *  @endcode
 *  RESULT contract (typed and untyped calls, every back end): a successful launch overwrites
 *  *RESULT with the reduction (the reducer's identity over an empty range) and never reads it,
 *  so callers need not initialise it; a failed launch leaves it alone. A scan's TOTAL may be
 *  NULL (C and C++) or nullptr (C++); in C any `void *` passes, as NULL is one.
 *  The kind of policy (range, box, team) and the box's rank are checked when the launch runs,
 *  as are the untyped calls' (a declaration does not say them).
 *  The untyped calls (porta_parallel_for ...) remain for descriptors chosen at run time (a
 *  pointer to one of several kernels), where no name is known at compile time. */
#define PORTA_PARALLEL_FOR(NAME, EXEC, POLICY, ARGS)                                               \
  PORTA_PARALLEL_FOR_LABELED(#NAME, NAME, EXEC, POLICY, ARGS)
#define PORTA_PARALLEL_REDUCE(NAME, EXEC, POLICY, ARGS, RESULT)                                    \
  PORTA_PARALLEL_REDUCE_LABELED(#NAME, NAME, EXEC, POLICY, ARGS, RESULT)
#define PORTA_PARALLEL_SCAN(NAME, EXEC, POLICY, ARGS, TOTAL)                                       \
  PORTA_PARALLEL_SCAN_LABELED(#NAME, NAME, EXEC, POLICY, ARGS, TOTAL)
/** PORTA_PARALLEL_REDUCE into RESULT, memory of EXEC's space that the launch does not wait for
 *  (porta_parallel_reduce_into): RESULT points to a NAME_value_t there, for example
 *  `&PORTA_AT1(scalars, 0)` of a device view (its address, not read on the host). */
#define PORTA_PARALLEL_REDUCE_INTO(NAME, EXEC, POLICY, ARGS, RESULT)                               \
  PORTA_PARALLEL_REDUCE_INTO_LABELED(#NAME, NAME, EXEC, POLICY, ARGS, RESULT)

/** The same with the caller's label (a `const char *`, evaluated at run time), where the
 *  profiler should show another name than the kernel's: a kernel launched on several parts. */
#define PORTA_PARALLEL_FOR_LABELED(LABEL, NAME, EXEC, POLICY, ARGS)                                \
  PORTA_FOR_CALL_(POLICY)((LABEL), (EXEC), (POLICY), &NAME, PORTA_TYPED_FOR_ARGS_(NAME, ARGS))
#define PORTA_PARALLEL_REDUCE_LABELED(LABEL, NAME, EXEC, POLICY, ARGS, RESULT)                     \
  PORTA_REDUCE_CALL_(POLICY)                                                                       \
  ((LABEL), (EXEC), (POLICY), &NAME, PORTA_TYPED_VALUE_ARGS_(NAME, ARGS),                          \
   PORTA_TYPED_RESULT_(NAME, RESULT))
#define PORTA_PARALLEL_REDUCE_INTO_LABELED(LABEL, NAME, EXEC, POLICY, ARGS, RESULT)                \
  PORTA_REDUCE_INTO_CALL_(POLICY)                                                                  \
  ((LABEL), (EXEC), (POLICY), &NAME, PORTA_TYPED_VALUE_ARGS_(NAME, ARGS),                          \
   PORTA_TYPED_RESULT_(NAME, RESULT))
#define PORTA_PARALLEL_SCAN_LABELED(LABEL, NAME, EXEC, POLICY, ARGS, TOTAL)                        \
  porta_parallel_scan((LABEL), (EXEC), (POLICY), &NAME, PORTA_TYPED_VALUE_ARGS_(NAME, ARGS),       \
                      PORTA_TYPED_TOTAL_(NAME, TOTAL))

#ifdef __cplusplus
#include <type_traits>
/* C++ (what nvcc compiles): overloads pick the pattern, class templates check the types. */
static inline int porta_for_call_(const char *l, porta_exec e, porta_range_policy p,
                                  const porta_kernel *k, const void *a) {
  return porta_parallel_for(l, e, p, k, a);
}
static inline int porta_for_call_(const char *l, porta_exec e, porta_mdrange_policy p,
                                  const porta_kernel *k, const void *a) {
  return porta_parallel_for_md(l, e, p, k, a);
}
static inline int porta_for_call_(const char *l, porta_exec e, porta_team_policy p,
                                  const porta_kernel *k, const void *a) {
  return porta_parallel_for_team(l, e, p, k, a);
}
static inline int porta_reduce_call_(const char *l, porta_exec e, porta_range_policy p,
                                     const porta_kernel *k, const void *a, void *r) {
  return porta_parallel_reduce(l, e, p, k, a, r);
}
static inline int porta_reduce_call_(const char *l, porta_exec e, porta_mdrange_policy p,
                                     const porta_kernel *k, const void *a, void *r) {
  return porta_parallel_reduce_md(l, e, p, k, a, r);
}
static inline int porta_reduce_call_(const char *l, porta_exec e, porta_team_policy p,
                                     const porta_kernel *k, const void *a, void *r) {
  return porta_parallel_reduce_team(l, e, p, k, a, r);
}
static inline int porta_reduce_into_call_(const char *l, porta_exec e, porta_range_policy p,
                                          const porta_kernel *k, const void *a, void *r) {
  return porta_parallel_reduce_into(l, e, p, k, a, r);
}
static inline int porta_reduce_into_call_(const char *l, porta_exec e, porta_mdrange_policy p,
                                          const porta_kernel *k, const void *a, void *r) {
  return porta_parallel_reduce_md_into(l, e, p, k, a, r);
}
static inline int porta_reduce_into_call_(const char *l, porta_exec e, porta_team_policy p,
                                          const porta_kernel *k, const void *a, void *r) {
  return porta_parallel_reduce_team_into(l, e, p, k, a, r);
}
#define PORTA_FOR_CALL_(POLICY) porta_for_call_
#define PORTA_REDUCE_CALL_(POLICY) porta_reduce_call_
#define PORTA_REDUCE_INTO_CALL_(POLICY) porta_reduce_into_call_
template <class Value> struct porta_typed_for_kind_check_ {
  static_assert(std::is_same<Value, porta_no_value_>::value,
                "Porta typed launch: a reduction or scan kernel (it has a NAME_value_t): launch "
                "it with PORTA_PARALLEL_REDUCE or PORTA_PARALLEL_SCAN");
  static constexpr bool ok = true;
};
template <class Value> struct porta_typed_value_kind_check_ {
  static_assert(!std::is_same<Value, porta_no_value_>::value,
                "Porta typed launch: a parallel_for kernel (it has no NAME_value_t): launch it "
                "with PORTA_PARALLEL_FOR");
  static constexpr bool ok = true;
};
template <class Want, class Got> struct porta_typed_args_check_ {
  typedef typename std::decay<Got>::type P;
  static_assert(
      std::is_pointer<P>::value &&
          std::is_same<typename std::remove_cv<typename std::remove_pointer<P>::type>::type,
                       Want>::value,
      "Porta typed launch: ARGS must point to the kernel's NAME_args_t");
  static constexpr bool ok = true;
};
template <class Want, class Got> struct porta_typed_result_check_ {
  static_assert(std::is_same<typename std::decay<Got>::type, Want *>::value,
                "Porta typed launch: RESULT must point to the kernel's NAME_value_t");
  static constexpr bool ok = true;
};
template <class Want, class Got> struct porta_typed_total_check_ {
  typedef typename std::decay<Got>::type P;
  static_assert(std::is_same<P, Want *>::value || std::is_same<P, std::nullptr_t>::value ||
                    std::is_integral<P>::value,
                "Porta typed launch: TOTAL must point to the kernel's NAME_value_t, or be NULL");
  static constexpr bool ok = true;
};
/* NULL is an integer in C++: a Want * parameter takes it (and nullptr), not another integer. */
template <class Want> inline void *porta_typed_total_(Want *total) { return (void *)total; }
#define PORTA_TYPED_FOR_ARGS_(NAME, ARGS)                                                          \
  ((void)porta_typed_for_kind_check_<NAME##_porta_value_>::ok,                                     \
   (void)porta_typed_args_check_<NAME##_args_t, decltype(ARGS)>::ok, (const void *)(ARGS))
#define PORTA_TYPED_VALUE_ARGS_(NAME, ARGS)                                                        \
  ((void)porta_typed_value_kind_check_<NAME##_porta_value_>::ok,                                   \
   (void)porta_typed_args_check_<NAME##_args_t, decltype(ARGS)>::ok, (const void *)(ARGS))
#define PORTA_TYPED_RESULT_(NAME, RESULT)                                                          \
  ((void)porta_typed_result_check_<NAME##_porta_value_, decltype(RESULT)>::ok, (void *)(RESULT))
#define PORTA_TYPED_TOTAL_(NAME, TOTAL)                                                            \
  ((void)porta_typed_total_check_<NAME##_porta_value_, decltype(TOTAL)>::ok,                       \
   porta_typed_total_<NAME##_porta_value_>(TOTAL))
#else
/* C11: _Generic picks the pattern; a struct holding a static assertion checks the types. */
#define PORTA_FOR_CALL_(POLICY)                                                                    \
  _Generic((POLICY), porta_range_policy                                                            \
           : porta_parallel_for, porta_mdrange_policy                                              \
           : porta_parallel_for_md, porta_team_policy                                              \
           : porta_parallel_for_team)
#define PORTA_REDUCE_CALL_(POLICY)                                                                 \
  _Generic((POLICY), porta_range_policy                                                            \
           : porta_parallel_reduce, porta_mdrange_policy                                           \
           : porta_parallel_reduce_md, porta_team_policy                                           \
           : porta_parallel_reduce_team)
#define PORTA_REDUCE_INTO_CALL_(POLICY)                                                            \
  _Generic((POLICY), porta_range_policy                                                            \
           : porta_parallel_reduce_into, porta_mdrange_policy                                      \
           : porta_parallel_reduce_md_into, porta_team_policy                                      \
           : porta_parallel_reduce_team_into)
#define PORTA_TYPED_ASSERT_(COND, MSG)                                                             \
  (void)sizeof(struct {                                                                            \
    _Static_assert(COND, MSG);                                                                     \
    int ok_;                                                                                       \
  })
#define PORTA_TYPED_IS_FOR_(NAME)                                                                  \
  _Generic((NAME##_porta_value_ *)0, struct porta_no_value_ * : 1, default : 0)
#define PORTA_TYPED_ARGS_(NAME, ARGS)                                                              \
  PORTA_TYPED_ASSERT_(                                                                             \
      _Generic((ARGS), NAME##_args_t * : 1, const NAME##_args_t * : 1, default : 0),               \
      "Porta typed launch: ARGS must point to " #NAME "_args_t")
#define PORTA_TYPED_FOR_ARGS_(NAME, ARGS)                                                          \
  (PORTA_TYPED_ASSERT_(PORTA_TYPED_IS_FOR_(NAME),                                                  \
                       "Porta typed launch: " #NAME " is a reduction or scan kernel: launch it "   \
                       "with PORTA_PARALLEL_REDUCE or PORTA_PARALLEL_SCAN"),                       \
   PORTA_TYPED_ARGS_(NAME, ARGS), (const void *)(ARGS))
#define PORTA_TYPED_VALUE_ARGS_(NAME, ARGS)                                                        \
  (PORTA_TYPED_ASSERT_(!PORTA_TYPED_IS_FOR_(NAME),                                                 \
                       "Porta typed launch: " #NAME " is a parallel_for kernel (no " #NAME         \
                       "_value_t): launch it with PORTA_PARALLEL_FOR"),                            \
   PORTA_TYPED_ARGS_(NAME, ARGS), (const void *)(ARGS))
#define PORTA_TYPED_RESULT_(NAME, RESULT)                                                          \
  (PORTA_TYPED_ASSERT_(_Generic((RESULT), NAME##_porta_value_ * : 1, default : 0),                 \
                       "Porta typed launch: RESULT must point to " #NAME "_value_t"),              \
   (void *)(RESULT))
#define PORTA_TYPED_TOTAL_(NAME, TOTAL)                                                            \
  (PORTA_TYPED_ASSERT_(_Generic((TOTAL), NAME##_porta_value_ * : 1, void * : 1, default : 0),      \
                       "Porta typed launch: TOTAL must point to " #NAME "_value_t, or be NULL"),   \
   (void *)(TOTAL))
#endif

#endif /* PORTA_KERNEL_H */
