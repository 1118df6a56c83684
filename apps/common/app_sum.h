/** @file app_sum.h
 *  Global sums of doubles for the mini-apps: plain or exact, chosen once per run.
 *
 *  Plain mode sums each rank's terms with a double reducer and the ranks' partial sums with
 *  MPI_Allreduce: fast, but the last bits depend on the rank count, the thread count and the
 *  back end. Exact mode (--sums exact, and --reproducible) gives every global sum as the
 *  correctly rounded sum of its terms, a function of the terms alone, and so are the answers
 *  computed from it. It takes two passes at most:
 *  - the first sums the terms as a double-double with a bound on its error (porta_ddsum_f64,
 *    porta/ddsum.h: about what a plain sum costs); the ranks' sums and bounds travel exactly in
 *    any order (as integer limbs, or in a device loop as each rank's words at a place of its
 *    own, porta_ddsum_f64_to_words), and where the bound decides the rounding, that is the sum;
 *  - where it does not (an exact tie, a sum that cancels to nothing, a term out of range: about
 *    never for a solver's dot products), the terms are summed again in porta_xsum_f64
 *    superaccumulators (porta/xsum.h), whose integer limbs are added over the ranks with MPI_SUM
 *    and rounded once.
 *  Both give the bits of the exact sum. The second pass reads the terms again, after the first
 *  pass's kernel wrote what it writes: a kernel that updates what its terms read (r -= a w;
 *  r.r) says so with APP_SUM_KERNEL_MD2_UPDATING and gives the term as the arrays now hold it.
 *
 *  A reduction is written once, as a term function; APP_SUM_KERNEL generates its kernels (plain,
 *  first and second pass) from it, so no app carries twin kernels:
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

#include <string.h>

#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Most sums that travel in one allreduce. */
#define APP_SUM_MAX_SLOTS 8
/** Largest arguments struct of an APP_SUM kernel (a second pass keeps a copy). */
#define APP_SUM_ARGS_MAX 4096

/** A run's summation state (opaque; app_sum_comm.h creates it). */
typedef struct app_sum app_sum;

/** Non-zero in exact mode. */
int app_sum_is_exact(const app_sum *s);
/** How an exact sum's second pass reads its terms again (APP_SUM_KERNEL's launchers fill it):
 *  the kernel of the terms into an exact accumulator, over the first pass's policy with a copy
 *  of its arguments. */
typedef struct app_sum_rerun {
  /** The terms into *acc: in memory of exec's space without a wait (into), or on the host. */
  int (*run)(const struct app_sum_rerun *r, porta_exec exec, porta_xsum_f64_value *acc, int into);
  /** *value = acc's first pass rounded where its bound decides it (one thread), else (or
   *  `force`) the terms again, exactly, by one team of threads: no conditional step. Over the
   *  ranks of `ranks` where it holds a cross-rank sum (a GPU's peer transport,
   *  porta_device_comm_end_sum; NULL or none: this rank's alone), their first passes gathered
   *  and their exact sums' limbs added by that kernel itself. */
  int (*settle)(const struct app_sum_rerun *r, porta_exec exec, const porta_xsum_f64_value *acc,
                double *value, int force, const porta_reduce_end *ranks);
  const char *label;
  porta_exec exec;
  porta_range_policy range; /**< the policy of a range kernel, */
  porta_mdrange_policy box; /**< or of a box kernel */
  union {
    double d;
    int64_t i;
    void *p;
    unsigned char bytes[APP_SUM_ARGS_MAX];
  } args;
} app_sum_rerun;

/** Exact mode, for APP_SUM_REDUCE: the first pass's accumulator of slot `slot`, claimed in order
 *  (0 starts a new set), and *rerun its second pass's record to fill; NULL with the failure
 *  recorded when the slot is out of order. */
porta_ddsum_f64_value *app_sum_claim_(app_sum *s, const char *label, int slot,
                                      app_sum_rerun **rerun);
/** Exact mode, for APP_SUM_REDUCE: slot `slot` holds its first pass; *local = this rank's exact
 *  sum (the second pass run at once where the first does not decide it). */
int app_sum_claimed_(app_sum *s, int slot, double *local);
/** Force the second pass on every exact sum (1) or leave it to the bound (0), for tests: the
 *  environment's APP_SUMS_SECOND_PASS=1 sets it at start. */
void app_sum_force_second_pass(int force);
/** Whether exact sums take their second pass every time (app_sum_force_second_pass). */
int app_sum_second_pass_forced(void);
/** Sum `values[0..n)` over the ranks in place. In exact mode the values must be the local sums
 *  just left by APP_SUM_REDUCE in slots 0..n-1 (checked: a mismatch is an error, so a kernel
 *  that bypassed the exact accumulator cannot go unnoticed). */
int app_sum_allreduce(app_sum *s, double *values, int n);
/** A device loop's first passes over several ranks travel as each rank's words in a place of
 *  its own (porta_ddsum_f64_to_words: 3 doubles a rank), or with `limbs` set as limbs
 *  (2 APP_SUM_WIRE doubles a sum, what more ranks than fit take: 16 with the default window),
 *  for tests: the environment's APP_SUMS_WIRE=limbs sets it at start. Every rank must choose
 *  alike (the sums' lengths differ). */
void app_sum_gather_by_limbs(int limbs);
/** Whether they travel as limbs (app_sum_gather_by_limbs). */
int app_sum_gathers_by_limbs(void);
/** This process's rank in the sums' communicator (0 for a single process). */
int app_sum_rank(const app_sum *s);
/** The ranks of the sums' communicator (1 for a single process). */
int app_sum_ranks(const app_sum *s);
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
 *  into `value`. The first pass's double-double (porta_ddsum_f64_value) lands in the same
 *  memory (app_sum_dd_of), and its second pass's record in *rerun (host memory). */
typedef struct app_sum_to {
  double *value;
  porta_xsum_f64_value *exact; /**< NULL: plain mode */
  app_sum_rerun *rerun;        /**< exact mode: the second pass's record */
} app_sum_to;

/** The first pass's accumulator in an exact accumulator's memory (the second pass, where it
 *  runs, overwrites it). */
PORTA_FORCEINLINE_FUNCTION porta_ddsum_f64_value *app_sum_dd_of(porta_xsum_f64_value *acc) {
  return (porta_ddsum_f64_value *)(void *)acc;
}

PORTA_FORCEINLINE_FUNCTION const porta_ddsum_f64_value *
app_sum_dd_of_c(const porta_xsum_f64_value *acc) {
  return (const porta_ddsum_f64_value *)(const void *)acc;
}

/** The next slot's place after `to` (its value, accumulator and record). */
static inline app_sum_to app_sum_to_next(app_sum_to to) {
  app_sum_to n;
  n.value = to.value + 1;
  n.exact = to.exact ? to.exact + 1 : NULL;
  n.rerun = to.rerun ? to.rerun + 1 : NULL;
  return n;
}

PORTA_EXTERN_C_BEGIN
/** Exact mode, device side (app_sum_kernels.c): values[i] = accumulator acc[i] rounded, for i
 *  in [0, n), queued on exec (memory of its space). */
int app_sum_round_on(porta_exec exec, const porta_xsum_f64_value *acc, double *values, int n);
/** ... acc[i] normalised into wire[APP_SUM_WIRE i ..] (APP_SUM_WIRE doubles each). */
int app_sum_pack_on(porta_exec exec, const porta_xsum_f64_value *acc, double *wire, int n);
/** ... values[i] = the sum of `nranks` packed accumulators added by wire, rounded. */
int app_sum_unpack_on(porta_exec exec, const double *wire, double *values, int n, int nranks);
/** First passes (in the accumulators' memory, app_sum_dd_of), several ranks: acc[i]'s first
 *  pass, its sum and bound, packed into
 *  wire[2 APP_SUM_WIRE i ..]. */
int app_sum_pack_dd_on(porta_exec exec, const porta_xsum_f64_value *acc, double *wire, int n);
/** ... the ranks' packed first passes added by wire: values[i] their exact rounding where the
 *  summed bound decides it; `again` set where one does not (or `force`), else cleared. */
int app_sum_unpack_dd_on(porta_exec exec, const double *wire, double *values,
                         const porta_cond *again, int n, int nranks, int force);
/** First passes over several ranks, gathered by the sum that follows: acc[i]'s first pass as
 *  PORTA_DDSUM_WORDS doubles (porta_ddsum_f64_to_words) at rank `rank`'s place of
 *  wire[PORTA_DDSUM_WORDS nranks i ..], zeros at the other ranks' places. */
int app_sum_pack_words_on(porta_exec exec, const porta_xsum_f64_value *acc, double *wire, int n,
                          int rank, int nranks);
/** ... after the sum: values[i] the exact rounding where the gathered bounds decide it
 *  (porta_ddsum_f64_round_words); `again` set where they do not (or `force`), else cleared. */
int app_sum_unpack_words_on(porta_exec exec, const double *wire, double *values,
                            const porta_cond *again, int n, int nranks, int force);
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

PORTA_EXTERN_C_BEGIN
/** The team of an exact sum's settle kernel (app_sum_rerun.settle) on exec: one, of up to 64
 *  threads, with level-0 scratch for an accumulator each. */
porta_team_policy app_sum_settle_policy(porta_exec exec);
PORTA_EXTERN_C_END

/* Point I (an int64_t, 0 .. count) of a range or a rank-2 box P as the term's index arguments. */
#define APP_SUM_POINT_range_(P, I) (P).begin + (I)
#define APP_SUM_POINT_box_(P, I)                                                                   \
  (P).lower[0] + (I) / ((P).upper[1] - (P).lower[1]),                                              \
      (P).lower[1] + (I) % ((P).upper[1] - (P).lower[1])
PORTA_FORCEINLINE_FUNCTION int64_t app_sum_points_range_(porta_range_policy p) {
  return p.end > p.begin ? p.end - p.begin : 0;
}
PORTA_FORCEINLINE_FUNCTION int64_t app_sum_points_box_(porta_mdrange_policy p) {
  return p.upper[0] > p.lower[0] && p.upper[1] > p.lower[1]
             ? (p.upper[0] - p.lower[0]) * (p.upper[1] - p.lower[1])
             : 0;
}

/** Doubles a value travels as between the ranks in app_sum_finish_on: its limbs, the top one
 *  in two halves, and its three status flags (each a small integer, so a sum of them over up to
 *  2^21 ranks is exact in any order). A first pass travels as two such values (the sum and its
 *  bound). */
#define APP_SUM_WIRE (PORTA_XSUM_LIMBS + 4)

/* v normalised into w[0 .. APP_SUM_WIRE): limbs 0 .. L-2 in [0, 2^32) after normalising, the
   top one signed below 2^61 in magnitude travels as its low 32 bits and the rest, so every
   double is an integer below 2^32 */
PORTA_INLINE_FUNCTION void app_sum_put_(porta_xsum_f64_value v, double *w) {
  porta_xsum_f64_normalize(&v);
  for (int l = 0; l < PORTA_XSUM_LIMBS - 1; ++l) w[l] = (double)v.limb[l];
  const int64_t top = v.limb[PORTA_XSUM_LIMBS - 1];
  const int64_t low = (int64_t)((uint64_t)top & 0xFFFFFFFFull);
  w[PORTA_XSUM_LIMBS - 1] = (double)low;
  w[PORTA_XSUM_LIMBS] = (double)((top - low) / ((int64_t)1 << 32)); /* exact: a multiple */
  w[PORTA_XSUM_LIMBS + 1] = (v.flags & PORTA_XSUM_INEXACT) ? 1.0 : 0.0;
  w[PORTA_XSUM_LIMBS + 2] = (v.flags & PORTA_XSUM_OVERFLOW) ? 1.0 : 0.0;
  w[PORTA_XSUM_LIMBS + 3] = (v.flags & PORTA_XSUM_NONFINITE) ? 1.0 : 0.0;
}

/** The sum of `nranks` values app_sum_put_ wrote, added word by word. */
PORTA_INLINE_FUNCTION porta_xsum_f64_value app_sum_get_(const double *w, int nranks) {
  porta_xsum_f64_value v;
  porta_xsum_f64_init(&v); /* an empty expansion: round reads it */
  for (int l = 0; l < PORTA_XSUM_LIMBS - 1; ++l) v.limb[l] = (int64_t)w[l];
  v.limb[PORTA_XSUM_LIMBS - 1] =
      (int64_t)w[PORTA_XSUM_LIMBS - 1] + (int64_t)w[PORTA_XSUM_LIMBS] * ((int64_t)1 << 32);
  v.flags = (w[PORTA_XSUM_LIMBS + 1] != 0.0 ? PORTA_XSUM_INEXACT : 0) |
            (w[PORTA_XSUM_LIMBS + 2] != 0.0 ? PORTA_XSUM_OVERFLOW : 0) |
            (w[PORTA_XSUM_LIMBS + 3] != 0.0 ? PORTA_XSUM_NONFINITE : 0);
  v.count = nranks; /* each limb holds at most nranks normalised digits */
  return v;
}

/* A settle kernel's decision (one thread): dd's rounding where its bound decides it; over the
   ranks of `ranks` (nranks > 1) every rank's words gathered first (always, so every rank runs
   the same sums) and decided together, as porta_ddsum_f64_round_words does after a sum. */
PORTA_INLINE_FUNCTION int app_sum_settle_first_(const porta_ddsum_f64_value *dd,
                                                const porta_reduce_end *ranks, int force,
                                                double *out) {
  if (ranks->nranks < 2) return !force && porta_ddsum_f64_round(dd, out);
  double mine[PORTA_DDSUM_WORDS], all[PORTA_DDSUM_WORDS * PORTA_REDUCE_END_RANKS];
  porta_ddsum_f64_to_words(dd, mine);
  /* no gather (a back end without the sums): undecided, and app_sum_settle_exact_ says NaN */
  return porta_reduce_end_gather(ranks, mine, PORTA_DDSUM_WORDS, all) && !force &&
         porta_ddsum_f64_round_words(all, ranks->nranks, out);
}

/* A settle kernel's exact sum (one thread): acc rounded, over the ranks of `ranks` after its
   limbs are added over them, as app_sum_finish_on. */
PORTA_INLINE_FUNCTION double app_sum_settle_exact_(const porta_xsum_f64_value *acc,
                                                   const porta_reduce_end *ranks) {
  if (ranks->nranks < 2) return porta_xsum_f64_round(acc);
  double w[APP_SUM_WIRE];
  app_sum_put_(*acc, w);
  /* not summed: this rank's alone, so NaN, never a wrong number */
  if (!porta_reduce_end_sum(ranks, w, APP_SUM_WIRE)) return (double)NAN;
  const porta_xsum_f64_value v = app_sum_get_(w, ranks->nranks);
  return porta_xsum_f64_round(&v);
}

PORTA_EXTERN_C_BEGIN
/** A settle kernel's ranks (*out, zeroed where `ranks` is NULL or holds none): refused on a
 *  host back end, whose kernels cannot sum over the ranks themselves. */
int app_sum_settle_ranks_(porta_exec exec, const porta_reduce_end *ranks, porta_reduce_end *out);
PORTA_EXTERN_C_END

/* The settle kernel of NAME (app_sum_rerun.settle): thread 0 decides the first pass; where it
 * cannot, each thread of the team adds every team_size-th term (TERM, the second pass's) into
 * an accumulator of its own in the scratch and thread 0 joins them and rounds. */
#define APP_SUM_SETTLE_(NAME, ARGS_T, POLICY_T, MEMBER, TERM)                                      \
  typedef struct NAME##_settle_args_ {                                                             \
    ARGS_T a;                                                                                      \
    POLICY_T p;                                                                                    \
    const porta_xsum_f64_value *acc;                                                               \
    double *value;                                                                                 \
    int force;                                                                                     \
    porta_reduce_end ranks;                                                                        \
  } NAME##_settle_args_;                                                                           \
  /* CUDA 12.1's kernel parameters, sm_70 on */                                                    \
  typedef char NAME##_settle_fits_[sizeof(NAME##_settle_args_) <= 32764 ? 1 : -1];                 \
  PORTA_TEAM_FOR(NAME##_settle_k_, NAME##_settle_args_, s_, t_) {                                  \
    int32_t *decided = (int32_t *)porta_team_scratch(t_, 0, sizeof(int32_t));                      \
    porta_xsum_f64_value *part = (porta_xsum_f64_value *)porta_team_scratch(                       \
        t_, 0, (size_t)t_->team_size * sizeof(porta_xsum_f64_value));                              \
    if (t_->team_rank == 0 && t_->vector_lane == 0) {                                              \
      double r_ = 0.0;                                                                             \
      *decided = app_sum_settle_first_(app_sum_dd_of_c(s_->acc), &s_->ranks, s_->force, &r_);      \
      if (*decided) *s_->value = r_;                                                               \
    }                                                                                              \
    porta_team_barrier(t_);                                                                        \
    if (*decided) return;                                                                          \
    porta_xsum_f64_value mine_;                                                                    \
    porta_xsum_f64_init(&mine_);                                                                   \
    const int64_t n_ = app_sum_points_##MEMBER##_(s_->p);                                          \
    if (t_->vector_lane == 0)                                                                      \
      for (int64_t i_ = t_->team_rank; i_ < n_; i_ += t_->team_size)                               \
        porta_xsum_f64_add(&mine_, TERM(&s_->a, APP_SUM_POINT_##MEMBER##_(s_->p, i_)));            \
    if (t_->vector_lane == 0) part[t_->team_rank] = mine_;                                         \
    porta_team_barrier(t_);                                                                        \
    if (t_->team_rank == 0 && t_->vector_lane == 0) {                                              \
      for (int k_ = 1; k_ < t_->team_size; ++k_) porta_xsum_f64_join(&part[0], &part[k_]);         \
      *s_->value = app_sum_settle_exact_(&part[0], &s_->ranks);                                    \
    }                                                                                              \
  }                                                                                                \
  static PORTA_UNUSED int NAME##_settle_(const app_sum_rerun *r, porta_exec exec,                  \
                                         const porta_xsum_f64_value *acc, double *value,           \
                                         int force, const porta_reduce_end *ranks) {               \
    NAME##_settle_args_ s;                                                                         \
    memcpy(&s.a, r->args.bytes, sizeof s.a);                                                       \
    s.p = r->MEMBER;                                                                               \
    s.acc = acc;                                                                                   \
    s.value = value;                                                                               \
    s.force = force;                                                                               \
    PORTA_CHECK(app_sum_settle_ranks_(exec, ranks, &s.ranks));                                     \
    return PORTA_PARALLEL_FOR_LABELED("app_sum_settle", NAME##_settle_k_, exec,                    \
                                      app_sum_settle_policy(exec), &s);                            \
  }

/* The typed launchers of an app_sum kernel NAME over POLICY_T (whose policy is the record's
 * MEMBER: range or box); RECHECK is the exact kernel of its second pass and TERM its term
 * (APP_SUM_REDUCE and APP_SUM_RUN call them). */
#define APP_SUM_LAUNCHER_(NAME, ARGS_T, POLICY_T, MEMBER, RECHECK, TERM)                           \
  typedef char NAME##_args_fit_[sizeof(ARGS_T) <= APP_SUM_ARGS_MAX ? 1 : -1];                      \
  APP_SUM_SETTLE_(NAME, ARGS_T, POLICY_T, MEMBER, TERM)                                            \
  static PORTA_UNUSED int NAME##_rerun_(const app_sum_rerun *r, porta_exec exec,                   \
                                        porta_xsum_f64_value *acc, int into) {                     \
    const ARGS_T *a = (const ARGS_T *)(const void *)r->args.bytes;                                 \
    if (into)                                                                                      \
      return PORTA_PARALLEL_REDUCE_INTO_LABELED(r->label, RECHECK, exec, r->MEMBER, a, acc);       \
    return PORTA_PARALLEL_REDUCE_LABELED(r->label, RECHECK, exec, r->MEMBER, a, acc);              \
  }                                                                                                \
  static inline PORTA_UNUSED void NAME##_record_(                                                  \
      app_sum_rerun *r, const char *label, porta_exec exec, POLICY_T p, const ARGS_T *args) {      \
    r->run = NAME##_rerun_;                                                                        \
    r->settle = NAME##_settle_;                                                                    \
    r->label = label;                                                                              \
    r->exec = exec;                                                                                \
    r->MEMBER = p;                                                                                 \
    memcpy(r->args.bytes, args, sizeof *args);                                                     \
  }                                                                                                \
  static inline PORTA_UNUSED int NAME##_reduce_(app_sum *s, const char *label, porta_exec exec,    \
                                                POLICY_T p, const ARGS_T *args, int slot,          \
                                                double *local) {                                   \
    if (!app_sum_is_exact(s)) {                                                                    \
      *local = 0.0;                                                                                \
      return PORTA_PARALLEL_REDUCE_LABELED(label, NAME##_plain_, exec, p, args, local);            \
    }                                                                                              \
    app_sum_rerun *r = NULL;                                                                       \
    porta_ddsum_f64_value *dd = app_sum_claim_(s, label, slot, &r);                                \
    if (!dd) return PORTA_ERROR_INVALID_ARGUMENT;                                                  \
    NAME##_record_(r, label, exec, p, args);                                                       \
    PORTA_CHECK(NAME##_first_(label, exec, p, args, dd, 0));                                       \
    return app_sum_claimed_(s, slot, local);                                                       \
  }                                                                                                \
  static inline PORTA_UNUSED int NAME##_run_(const char *label, porta_exec exec, POLICY_T p,       \
                                             const ARGS_T *args) {                                 \
    double unused;                                                                                 \
    return PORTA_PARALLEL_REDUCE_LABELED(label, NAME##_plain_, exec, p, args, &unused);            \
  }                                                                                                \
  static inline PORTA_UNUSED int NAME##_into_(const char *label, porta_exec exec, POLICY_T p,      \
                                              const ARGS_T *args, app_sum_to to) {                 \
    if (!to.exact)                                                                                 \
      return PORTA_PARALLEL_REDUCE_INTO_LABELED(label, NAME##_plain_, exec, p, args, to.value);    \
    if (!to.rerun)                                                                                 \
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "APP_SUM_REDUCE_INTO", label,               \
                         "an exact sum without a record of its second pass (app_sum_to.rerun)");   \
    NAME##_record_(to.rerun, label, exec, p, args);                                                \
    return NAME##_first_(label, exec, p, args, app_sum_dd_of(to.exact), 1);                        \
  }

/* The first pass on a host back end: a point of its launch is a row of the box (or
 * APP_SUM_HOST_RANGE_ROW points of a range), whose terms go into porta_ddsum_f64_lanes in an
 * `omp simd` loop over the lanes, so that the term's arithmetic is vectorised as in the plain
 * kernel's loop. Added a term at a time into one double-double, the chain of dependent
 * additions kept the whole loop scalar (TeaLeaf's calc_w took 1.6x its plain time). */
#define APP_SUM_HOST_RANGE_ROW 1024
#define APP_SUM_HOST_TERMS_(ACC, LO, HI, K, TERM)                                                  \
  {                                                                                                \
    porta_ddsum_f64_lanes l_;                                                                      \
    porta_ddsum_f64_lanes_init(&l_);                                                               \
    int64_t k0_ = (LO);                                                                            \
    for (; k0_ + PORTA_DDSUM_LANES <= (HI); k0_ += PORTA_DDSUM_LANES) {                            \
      PORTA_SIMD()                                                                                 \
      for (int j_ = 0; j_ < PORTA_DDSUM_LANES; ++j_) {                                             \
        const int64_t K = k0_ + j_;                                                                \
        porta_ddsum_f64_lanes_add(&l_, j_, (TERM));                                                \
      }                                                                                            \
    }                                                                                              \
    for (int j_ = 0; k0_ < (HI); ++k0_, ++j_) {                                                    \
      const int64_t K = k0_;                                                                       \
      porta_ddsum_f64_lanes_add(&l_, j_, (TERM));                                                  \
    }                                                                                              \
    porta_ddsum_f64_lanes_join((ACC), &l_);                                                        \
  }

/* NAME##_first_: the first pass of NAME over P (a POLICY_T) into *DD (memory of exec's space,
 * without a wait with INTO): NAME##_dd_ on a device, else NAME##_dd_rows_ over ROWS; a policy
 * that is not VALID goes to NAME##_dd_ too, whose launch names what is wrong with it. */
#define APP_SUM_FIRST_(NAME, ARGS_T, POLICY_T, VALID, ROWS)                                        \
  static PORTA_UNUSED int NAME##_first_(const char *label, porta_exec exec, POLICY_T p,            \
                                        const ARGS_T *args, porta_ddsum_f64_value *dd, int into) { \
    if (porta_exec_query(exec).on_device || !(VALID)) {                                            \
      if (into) return PORTA_PARALLEL_REDUCE_INTO_LABELED(label, NAME##_dd_, exec, p, args, dd);   \
      return PORTA_PARALLEL_REDUCE_LABELED(label, NAME##_dd_, exec, p, args, dd);                  \
    }                                                                                              \
    NAME##_rows_args_ h;                                                                           \
    memcpy(&h.a, args, sizeof h.a);                                                                \
    h.p = p;                                                                                       \
    const porta_range_policy rows = ROWS;                                                          \
    if (into)                                                                                      \
      return PORTA_PARALLEL_REDUCE_INTO_LABELED(label, NAME##_dd_rows_, exec, rows, &h, dd);       \
    return PORTA_PARALLEL_REDUCE_LABELED(label, NAME##_dd_rows_, exec, rows, &h, dd);              \
  }

/* The kernels of an app_sum reduction from its term function NAME##_term_: plain, first pass
 * (double-double: on a device NAME##_dd_, on a host by rows, NAME##_dd_rows_) and exact. */
#define APP_SUM_KERNELS_(NAME, ARGS_T)                                                             \
  PORTA_REDUCE(NAME##_plain_, ARGS_T, a_, i_, porta_sum_f64, acc_) {                               \
    *acc_ += NAME##_term_(a_, i_);                                                                 \
  }                                                                                                \
  PORTA_REDUCE(NAME##_dd_, ARGS_T, a_, i_, porta_ddsum_f64, acc_) {                                \
    porta_ddsum_f64_add(acc_, NAME##_term_(a_, i_));                                               \
  }                                                                                                \
  typedef struct NAME##_rows_args_ {                                                               \
    ARGS_T a;                                                                                      \
    porta_range_policy p;                                                                          \
  } NAME##_rows_args_;                                                                             \
  PORTA_REDUCE(NAME##_dd_rows_, NAME##_rows_args_, h_, b_, porta_ddsum_f64, acc_) {                \
    const int64_t lo_ = h_->p.begin + b_ * APP_SUM_HOST_RANGE_ROW;                                 \
    const int64_t hi_ =                                                                            \
        h_->p.end - lo_ < APP_SUM_HOST_RANGE_ROW ? h_->p.end : lo_ + APP_SUM_HOST_RANGE_ROW;       \
    APP_SUM_HOST_TERMS_(acc_, lo_, hi_, i_, NAME##_term_(&h_->a, i_))                              \
  }                                                                                                \
  APP_SUM_FIRST_(                                                                                  \
      NAME, ARGS_T, porta_range_policy,                                                            \
      p.begin <= p.end && p.chunk >= 0 &&                                                          \
          (p.schedule == PORTA_SCHEDULE_STATIC || p.schedule == PORTA_SCHEDULE_DYNAMIC),           \
      porta_range(0, (app_sum_points_range_(p) + APP_SUM_HOST_RANGE_ROW - 1) /                     \
                         APP_SUM_HOST_RANGE_ROW))
#define APP_SUM_KERNELS_MD2_(NAME, ARGS_T)                                                         \
  PORTA_MDREDUCE2(NAME##_plain_, ARGS_T, a_, i0_, i1_, porta_sum_f64, acc_) {                      \
    *acc_ += NAME##_term_(a_, i0_, i1_);                                                           \
  }                                                                                                \
  PORTA_MDREDUCE2(NAME##_dd_, ARGS_T, a_, i0_, i1_, porta_ddsum_f64, acc_) {                       \
    porta_ddsum_f64_add(acc_, NAME##_term_(a_, i0_, i1_));                                         \
  }                                                                                                \
  typedef struct NAME##_rows_args_ {                                                               \
    ARGS_T a;                                                                                      \
    porta_mdrange_policy p;                                                                        \
  } NAME##_rows_args_;                                                                             \
  PORTA_REDUCE(NAME##_dd_rows_, NAME##_rows_args_, h_, i0_, porta_ddsum_f64, acc_) {               \
    const int64_t lo_ = h_->p.lower[1], hi_ = h_->p.upper[1];                                      \
    APP_SUM_HOST_TERMS_(acc_, lo_, hi_, i1_, NAME##_term_(&h_->a, i0_, i1_))                       \
  }                                                                                                \
  APP_SUM_FIRST_(NAME, ARGS_T, porta_mdrange_policy,                                               \
                 p.rank == 2 && p.lower[0] <= p.upper[0] && p.lower[1] <= p.upper[1],              \
                 porta_range(p.lower[0], p.upper[1] > p.lower[1] ? p.upper[0] : p.lower[0]))

/* An app_sum reduction over a range whose second pass sums AGAIN's terms. */
#define APP_SUM_KERNEL_WITH_(NAME, ARGS_T, A, I, AGAIN)                                            \
  PORTA_FORCEINLINE_FUNCTION double NAME##_term_(const ARGS_T *A, int64_t I);                      \
  APP_SUM_KERNELS_(NAME, ARGS_T)                                                                   \
  PORTA_REDUCE(NAME##_exact_, ARGS_T, a_, i_, porta_xsum_f64, acc_) {                              \
    porta_xsum_f64_add(acc_, AGAIN(a_, i_));                                                       \
  }                                                                                                \
  APP_SUM_LAUNCHER_(NAME, ARGS_T, porta_range_policy, range, NAME##_exact_, AGAIN)                 \
  PORTA_FORCEINLINE_FUNCTION double NAME##_term_(const ARGS_T *A PORTA_UNUSED,                     \
                                                 int64_t I PORTA_UNUSED)

/* ... over a rank-2 box. */
#define APP_SUM_KERNEL_MD2_WITH_(NAME, ARGS_T, A, I0, I1, AGAIN)                                   \
  PORTA_FORCEINLINE_FUNCTION double NAME##_term_(const ARGS_T *A, int64_t I0, int64_t I1);         \
  APP_SUM_KERNELS_MD2_(NAME, ARGS_T)                                                               \
  PORTA_MDREDUCE2(NAME##_exact_, ARGS_T, a_, i0_, i1_, porta_xsum_f64, acc_) {                     \
    porta_xsum_f64_add(acc_, AGAIN(a_, i0_, i1_));                                                 \
  }                                                                                                \
  APP_SUM_LAUNCHER_(NAME, ARGS_T, porta_mdrange_policy, box, NAME##_exact_, AGAIN)                 \
  PORTA_FORCEINLINE_FUNCTION double NAME##_term_(const ARGS_T *A PORTA_UNUSED,                     \
                                                 int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED)

/** Define reduction `NAME` (its plain, first-pass and exact kernels, with their typed launchers
 *  for APP_SUM_REDUCE, APP_SUM_REDUCE_INTO and APP_SUM_RUN) over a range from a term function
 *  `double body(const ARGS_T *A, int64_t I)`; the braces that follow are its body. The exact
 *  sum's second pass runs the body again: it must give the same term when run twice (it may
 *  write, as w = A p; p.w does, but not update what it reads: see APP_SUM_KERNEL_MD2_UPDATING). */
#define APP_SUM_KERNEL(NAME, ARGS_T, A, I) APP_SUM_KERNEL_WITH_(NAME, ARGS_T, A, I, NAME##_term_)

/** The same over a rank-2 box: `double body(const ARGS_T *A, int64_t I0, int64_t I1)`. */
#define APP_SUM_KERNEL_MD2(NAME, ARGS_T, A, I0, I1)                                                \
  APP_SUM_KERNEL_MD2_WITH_(NAME, ARGS_T, A, I0, I1, NAME##_term_)

/** A reduction over a rank-2 box whose body updates what its term reads (u += a p; r -= a w;
 *  the term r.r): its exact sum's second pass sums the term as the arrays hold it after the
 *  first, from the function `NAME##_again(const ARGS_T *, int64_t, int64_t)` that the app
 *  defines before it (APP_SUM_AGAIN_MD2). It must give the first pass's terms bit for bit. */
#define APP_SUM_KERNEL_MD2_UPDATING(NAME, ARGS_T, A, I0, I1)                                       \
  APP_SUM_KERNEL_MD2_WITH_(NAME, ARGS_T, A, I0, I1, NAME##_again)

/** The term of an APP_SUM_KERNEL_MD2_UPDATING reduction NAME as the arrays hold it after its
 *  first pass; the braces that follow are its body. */
#define APP_SUM_AGAIN_MD2(NAME, ARGS_T, A, I0, I1)                                                 \
  PORTA_FORCEINLINE_FUNCTION double NAME##_again(const ARGS_T *A PORTA_UNUSED,                     \
                                                 int64_t I0 PORTA_UNUSED, int64_t I1 PORTA_UNUSED)

/** The same over a range (APP_SUM_AGAIN for its term). */
#define APP_SUM_KERNEL_UPDATING(NAME, ARGS_T, A, I)                                                \
  APP_SUM_KERNEL_WITH_(NAME, ARGS_T, A, I, NAME##_again)
#define APP_SUM_AGAIN(NAME, ARGS_T, A, I)                                                          \
  PORTA_FORCEINLINE_FUNCTION double NAME##_again(const ARGS_T *A PORTA_UNUSED,                     \
                                                 int64_t I PORTA_UNUSED)

#endif /* APP_SUM_H */
