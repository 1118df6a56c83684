/** @file app_sum.h
 *  Global sums of doubles for the mini-apps: plain or exact, chosen once per run.
 *
 *  Plain mode sums each rank's terms with a double reducer and the ranks' partial sums with
 *  MPI_Allreduce: fast, but the last bits depend on the rank count, the thread count and the
 *  back end. Exact mode (--sums exact, and --reproducible) accumulates the terms in porta_xsum_f64
 *  superaccumulators (porta/xsum.h), adds their integer limbs over the ranks with MPI_SUM
 *  (exact, so MPI's order does not matter) and rounds once: every global sum is then the
 *  correctly rounded sum of its terms, a function of the terms alone, and so are the answers
 *  computed from it.
 *
 *  A reduction is written once, as a term function; APP_SUM_KERNEL generates both kernels
 *  from it, so no app carries twin kernels:
 *  @code
 *  APP_SUM_KERNEL(dot_rr, my_args, a, i) { return PORTA_AT1(a->r, i) * PORTA_AT1(a->r, i); }
 *  ...
 *  double rr;
 *  PORTA_CHECK(APP_SUM_REDUCE(dot_rr, sum, "dot_rr", exec, porta_range(0, n), &args, 0, &rr));
 *  PORTA_CHECK(app_sum_allreduce(sum, &rr, 1));   // rr is now the global sum
 *  @endcode
 *  Several sums can travel in one allreduce: reduce into slots 0, 1, ... (slot 0 starts a new
 *  set), then app_sum_allreduce(sum, values, nslots).
 *
 *  This header has no MPI in it, so kernel files (compiled by nvcc in CUDA builds) can include
 *  it; app_sum_create, which takes the communicator, is in app_sum_comm.h. */
#ifndef APP_SUM_H
#define APP_SUM_H

#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Most sums that travel in one allreduce. */
#define APP_SUM_MAX_SLOTS 8

/** A run's summation state (opaque; app_sum_comm.h creates it). */
typedef struct app_sum app_sum;

/** Non-zero in exact mode. */
int app_sum_is_exact(const app_sum *s);
/** Exact mode, for APP_SUM_REDUCE: the accumulator of slot `slot`, claimed in order (0 starts
 *  a new set), or NULL with the failure recorded when the slot is out of order. */
porta_xsum_f64_value *app_sum_claim_(app_sum *s, const char *label, int slot);
/** Exact mode, for APP_SUM_REDUCE: slot `slot` holds its sum; *local = that sum rounded. */
void app_sum_claimed_(app_sum *s, int slot, double *local);
/** Sum `values[0..n)` over the ranks in place. In exact mode the values must be the local sums
 *  just left by APP_SUM_REDUCE in slots 0..n-1 (checked: a mismatch is an error, so a kernel
 *  that bypassed the exact accumulator cannot go unnoticed). */
int app_sum_allreduce(app_sum *s, double *values, int n);
/** Allreduces done so far (for the run report). */
int64_t app_sum_count(const app_sum *s);
void app_sum_destroy(app_sum *s);

PORTA_EXTERN_C_END

/** Reduce the terms of kernel NAME (an APP_SUM_KERNEL or APP_SUM_KERNEL_MD2) over POLICY into
 *  slot SLOT of the summation state S (the plain or the exact kernel, as S's mode says) and
 *  write this rank's (rounded) sum to *LOCAL. Slots are filled in order from 0 (0 starts a new
 *  set). Typed: ARGS must point to the kernel's ARGS_T and POLICY be a range (APP_SUM_KERNEL)
 *  or a rank-2 box (_MD2). Each argument is evaluated once. */
#define APP_SUM_REDUCE(NAME, S, LABEL, EXEC, POLICY, ARGS, SLOT, LOCAL)                            \
  NAME##_reduce_((S), (LABEL), (EXEC), (POLICY), (ARGS), (SLOT), (LOCAL))

/** Where a reduction into memory (APP_SUM_REDUCE_INTO) leaves its sum, in memory of the
 *  launch's space: the double `value` (plain mode), or with `exact` set the accumulator there
 *  (exact mode), which app_sum_finish_on (app_sum_comm.h) then sums over the ranks and rounds
 *  into `value`. */
typedef struct app_sum_to {
  double *value;
  porta_xsum_f64_value *exact; /**< NULL: plain mode */
} app_sum_to;

/** Doubles a value travels as between the ranks in app_sum_finish_on: its limbs, the top one
 *  in two halves, and its three status flags (each a small integer, so a sum of them over up to
 *  2^21 ranks is exact in any order). */
#define APP_SUM_WIRE (PORTA_XSUM_LIMBS + 4)

PORTA_EXTERN_C_BEGIN
/** Exact mode, device side (app_sum_kernels.c): values[i] = accumulator acc[i] rounded, for i
 *  in [0, n), queued on exec (memory of its space). */
int app_sum_round_on(porta_exec exec, const porta_xsum_f64_value *acc, double *values, int n);
/** ... acc[i] normalised into wire[APP_SUM_WIRE i ..] (APP_SUM_WIRE doubles each). */
int app_sum_pack_on(porta_exec exec, const porta_xsum_f64_value *acc, double *wire, int n);
/** ... values[i] = the sum of `nranks` packed accumulators added by wire, rounded. */
int app_sum_unpack_on(porta_exec exec, const double *wire, double *values, int n, int nranks);
PORTA_EXTERN_C_END

/** NAME's kernel into TO (an app_sum_to: its plain kernel into TO.value, or its exact one into
 *  TO.exact), typed, without waiting (PORTA_PARALLEL_REDUCE_INTO): a device loop's body. The
 *  plain kernel is the host loop's default-mode one, so with its grid and its bits. No app_sum
 *  is touched. */
#define APP_SUM_REDUCE_INTO(NAME, LABEL, EXEC, POLICY, ARGS, TO)                                   \
  ((void)sizeof(PORTA_TYPED_VALUE_ARGS_(NAME##_plain_, ARGS)),                                     \
   NAME##_into_((LABEL), (EXEC), (POLICY), (ARGS), (TO)))

/** Run kernel NAME for what its terms write, its sum discarded: the plain kernel, no app_sum's
 *  slots touched. Typed as APP_SUM_REDUCE. */
#define APP_SUM_RUN(NAME, LABEL, EXEC, POLICY, ARGS) NAME##_run_((LABEL), (EXEC), (POLICY), (ARGS))

/* The typed launchers of an app_sum kernel NAME over POLICY_T (APP_SUM_REDUCE and APP_SUM_RUN
 * call them). */
#define APP_SUM_LAUNCHER_(NAME, ARGS_T, POLICY_T)                                                  \
  static inline PORTA_UNUSED int NAME##_reduce_(app_sum *s, const char *label, porta_exec exec,    \
                                                POLICY_T p, const ARGS_T *args, int slot,          \
                                                double *local) {                                   \
    if (!app_sum_is_exact(s)) {                                                                    \
      *local = 0.0;                                                                                \
      return PORTA_PARALLEL_REDUCE_LABELED(label, NAME##_plain_, exec, p, args, local);            \
    }                                                                                              \
    porta_xsum_f64_value *acc = app_sum_claim_(s, label, slot);                                    \
    if (!acc) return PORTA_ERROR_INVALID_ARGUMENT;                                                 \
    PORTA_CHECK(PORTA_PARALLEL_REDUCE_LABELED(label, NAME##_exact_, exec, p, args, acc));          \
    app_sum_claimed_(s, slot, local);                                                              \
    return PORTA_SUCCESS;                                                                          \
  }                                                                                                \
  static inline PORTA_UNUSED int NAME##_run_(const char *label, porta_exec exec, POLICY_T p,       \
                                             const ARGS_T *args) {                                 \
    double unused;                                                                                 \
    return PORTA_PARALLEL_REDUCE_LABELED(label, NAME##_plain_, exec, p, args, &unused);            \
  }                                                                                                \
  static inline PORTA_UNUSED int NAME##_into_(const char *label, porta_exec exec, POLICY_T p,      \
                                              const ARGS_T *args, app_sum_to to) {                 \
    if (to.exact)                                                                                  \
      return PORTA_PARALLEL_REDUCE_INTO_LABELED(label, NAME##_exact_, exec, p, args, to.exact);    \
    return PORTA_PARALLEL_REDUCE_INTO_LABELED(label, NAME##_plain_, exec, p, args, to.value);      \
  }

/** Define reduction `NAME` (its plain and exact kernels, with their typed launchers for
 *  APP_SUM_REDUCE, APP_SUM_REDUCE_INTO and APP_SUM_RUN) over a range from a term function
 *  `double body(const ARGS_T *A, int64_t I)`; the braces that follow are its body. */
#define APP_SUM_KERNEL(NAME, ARGS_T, A, I)                                                         \
  PORTA_FORCEINLINE_FUNCTION double NAME##_term_(const ARGS_T *A, int64_t I);                      \
  PORTA_REDUCE(NAME##_plain_, ARGS_T, a_, i_, porta_sum_f64, acc_) {                               \
    *acc_ += NAME##_term_(a_, i_);                                                                 \
  }                                                                                                \
  PORTA_REDUCE(NAME##_exact_, ARGS_T, a_, i_, porta_xsum_f64, acc_) {                              \
    porta_xsum_f64_add(acc_, NAME##_term_(a_, i_));                                                \
  }                                                                                                \
  APP_SUM_LAUNCHER_(NAME, ARGS_T, porta_range_policy)                                              \
  PORTA_FORCEINLINE_FUNCTION double NAME##_term_(const ARGS_T *A PORTA_UNUSED,                     \
                                                 int64_t I PORTA_UNUSED)

/** The same over a rank-2 box: `double body(const ARGS_T *A, int64_t I0, int64_t I1)`. */
#define APP_SUM_KERNEL_MD2(NAME, ARGS_T, A, I0, I1)                                                \
  PORTA_FORCEINLINE_FUNCTION double NAME##_term_(const ARGS_T *A, int64_t I0, int64_t I1);         \
  PORTA_MDREDUCE2(NAME##_plain_, ARGS_T, a_, i0_, i1_, porta_sum_f64, acc_) {                      \
    *acc_ += NAME##_term_(a_, i0_, i1_);                                                           \
  }                                                                                                \
  PORTA_MDREDUCE2(NAME##_exact_, ARGS_T, a_, i0_, i1_, porta_xsum_f64, acc_) {                     \
    porta_xsum_f64_add(acc_, NAME##_term_(a_, i0_, i1_));                                          \
  }                                                                                                \
  APP_SUM_LAUNCHER_(NAME, ARGS_T, porta_mdrange_policy)                                            \
  PORTA_FORCEINLINE_FUNCTION double NAME##_term_(const ARGS_T *A PORTA_UNUSED,                     \
                                                 int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED)

#endif /* APP_SUM_H */
