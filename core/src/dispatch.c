/** @file dispatch.c
 *  From a launch call to a kernel's back-end launcher: validate the policy,
 *  resolve AUTO sizes, call the tools hooks (one branch when none is loaded). */
#include <stdio.h>
#include <string.h>

#include "profiling_private.h"
#include "reduce_end_private.h"
#include "runtime_private.h"

static const char *const pattern_names[3] = {"parallel_for", "parallel_reduce", "parallel_scan"};
static const char *const policy_names[3] = {"range", "mdrange", "team"};

static int prepare(porta_launch *L, const char *op, const char *label, porta_exec exec,
                   const porta_kernel *k, int pattern, int policy) {
  if (PORTA_UNLIKELY(!porta_state_.initialized))
    return porta_error(PORTA_ERROR_NOT_INITIALIZED, op, label,
                       "porta_initialize has not been called");
  if (PORTA_UNLIKELY(!k))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no kernel given");
  if (PORTA_UNLIKELY(k->pattern != pattern || k->policy != policy))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "kernel '%s' is a %s over a %s policy, launched as a %s over a %s policy",
                       k->name, pattern_names[k->pattern], policy_names[k->policy],
                       pattern_names[pattern], policy_names[policy]);
  if (PORTA_UNLIKELY((int)exec.backend < 0 || exec.backend >= PORTA_NUM_BACKENDS ||
                     !k->launch[exec.backend]))
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, label,
                       "kernel '%s' was not compiled for the %s back end", k->name,
                       porta_backend_name(exec.backend));
  /* one load, no call: porta_initialize recorded the usable back ends */
  const porta_backend_ops *ops = porta_backend_usable_[exec.backend];
  if (PORTA_UNLIKELY(!ops))
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, label, "the %s back end is not available",
                       porta_backend_name(exec.backend));
  L->label = label;
  L->exec = exec;
  L->num_threads = ops->uses_host_threads ? porta_state_.num_threads : 1;
  L->deterministic = porta_state_.deterministic;
  L->result_in_space = 0;
  L->initial = NULL;
  L->league_begin = L->league_end = 0;
  L->end = NULL;
  return PORTA_SUCCESS;
}

/** A launch while a loop's body is recorded (porta_state_.recording): it must go to the
 *  loop's execution space, and a value must stay there (the body runs once, while recorded:
 *  a value brought to the host would be that one pass's, and the wait is not allowed). */
static int check_recording(const porta_launch *L, const char *op, int pattern) {
  const porta_exec r = porta_state_.recording_exec;
  if (L->exec.backend != r.backend || (L->exec.instance != r.instance && !porta_forked_(L->exec)))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, L->label,
                       "a launch on %s instance %d inside loop '%s': a loop's body launches on "
                       "the execution space its body function is given (the porta_exec "
                       "argument) or an instance forked from it (porta_exec_wait), not on "
                       "another",
                       porta_backend_name(L->exec.backend), L->exec.instance,
                       porta_state_.recording);
  if (pattern == PORTA_PATTERN_SCAN)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, L->label,
                       "a parallel_scan inside loop '%s': a scan returns its total to the host "
                       "and waits; run it before or after the loop",
                       porta_state_.recording);
  if (pattern == PORTA_PATTERN_REDUCE && !L->result_in_space)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, L->label,
                       "a parallel_reduce returning its value to the host inside loop '%s': inside "
                       "a loop, reduce into memory of the execution space "
                       "(porta_parallel_reduce_into)",
                       porta_state_.recording);
  return PORTA_SUCCESS;
}

static int run(porta_launch *L, const char *op, const porta_kernel *k, int pattern,
               const void *args, void *result) {
  int rc;
  const unsigned long errors = porta_error_serial_();
  if (PORTA_UNLIKELY(porta_state_.recording != NULL)) PORTA_CHECK(check_recording(L, op, pattern));
  if (PORTA_UNLIKELY(porta_state_.capturing)) {
    /* recorded, not run: tools and the profile see the loop's runs instead (porta_loop_run) */
    rc = k->launch[L->exec.backend](L, args, result);
  } else if (PORTA_UNLIKELY(porta_profiling_active_)) {
    uint32_t dev = porta_profile_device_id(L->exec.backend, (uint32_t)porta_state_.device_id,
                                           (uint32_t)L->exec.instance);
    uint64_t h = porta_profile_begin_kernel_((porta_pattern)pattern, L->label, dev);
    rc = k->launch[L->exec.backend](L, args, result);
    /* The time table needs the kernel finished; tools time launches as Kokkos does. */
    if (porta_state_.profile_table) porta_fence_quiet_(L->exec);
    porta_profile_end_kernel_((porta_pattern)pattern, h);
  } else {
    rc = k->launch[L->exec.backend](L, args, result);
  }
  if (PORTA_UNLIKELY(rc != PORTA_SUCCESS)) {
    /* keep the launcher's own message (a CUDA fault, a failed device view check) */
    char cause[640] = "";
    if (porta_error_serial_() != errors) {
      const char *m = porta_last_error_message();
      snprintf(cause, sizeof cause, ": %s", strncmp(m, "porta: ", 7) == 0 ? m + 7 : m);
      /* the outer message ends with the same code's tag: keep one */
      char tag[64];
      snprintf(tag, sizeof tag, " [%s]", porta_error_name(rc));
      const size_t n = strlen(cause), t = strlen(tag);
      if (n >= t && strcmp(cause + n - t, tag) == 0) cause[n - t] = '\0';
    }
    return porta_error(rc, op, L->label, "the %s launcher of kernel '%s' failed%s",
                       porta_backend_name(L->exec.backend), k->name, cause);
  }
  return PORTA_SUCCESS;
}

/** A reduction: into memory, it takes its instance's end (porta/reduce_end.h), which a host
 *  back end runs here after the launcher. */
static int run_reduce(porta_launch *L, const char *op, const porta_kernel *k, const void *args,
                      void *result, int team) {
  porta_reduce_end end;
  if (L->result_in_space) PORTA_CHECK(porta_reduce_end_take_(L, k, op, team, &end));
  PORTA_CHECK(run(L, op, k, PORTA_PATTERN_REDUCE, args, result));
  return porta_reduce_end_host_(L);
}

static int check_range(const char *op, const char *label, porta_range_policy p) {
  if (PORTA_UNLIKELY(p.begin > p.end))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "range begin %lld > end %lld",
                       (long long)p.begin, (long long)p.end);
  if (PORTA_UNLIKELY(p.schedule != PORTA_SCHEDULE_STATIC && p.schedule != PORTA_SCHEDULE_DYNAMIC))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "unknown schedule %d",
                       (int)p.schedule);
  if (PORTA_UNLIKELY(p.chunk < 0))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "negative chunk %lld",
                       (long long)p.chunk);
  return PORTA_SUCCESS;
}

static int check_md(const char *op, const char *label, const porta_kernel *k,
                    porta_mdrange_policy p) {
  if (p.rank != k->md_rank)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "kernel '%s' has rank %d, the policy rank %d", k->name, k->md_rank,
                       (int)p.rank);
  for (int r = 0; r < p.rank; ++r)
    if (p.lower[r] > p.upper[r])
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                         "mdrange lower[%d] = %lld > upper[%d] = %lld", r, (long long)p.lower[r], r,
                         (long long)p.upper[r]);
  return PORTA_SUCCESS;
}

/** Per-request cap on scratch bytes (any level, team or thread): beyond it a request is a bug. */
#define PORTA_TEAM_SCRATCH_MAX ((size_t)1 << 40)

/** Reducer bytes per member a team kernel's block reduction needs (0: parallel_for or none). */
static size_t team_value_size(const porta_kernel *k) {
  return k && k->pattern == PORTA_PATTERN_REDUCE ? (size_t)k->value_size : 0;
}

size_t porta_team_policy_level0_bytes(porta_team_policy policy, int team_size,
                                      const porta_kernel *kernel) {
  return porta_team_level0_bytes_(&policy, team_size > 0 ? (size_t)team_size : 0,
                                  team_value_size(kernel));
}

size_t porta_team_level0_limit(porta_exec exec) {
  const porta_backend_ops *ops = porta_backend_ops_of_(exec.backend);
  return ops && ops->team_level0_limit ? ops->team_level0_limit() : PORTA_TEAM_SCRATCH_MAX;
}

/** Threads a team may have on `exec` with `vector_length` lanes each, memory aside. */
static int team_thread_limit(porta_exec exec, int vector_length) {
  const porta_backend_ops *ops = porta_backend_ops_[exec.backend];
  return ops->team_thread_limit ? ops->team_thread_limit(vector_length) : 1;
}

/** Resolve an AUTO vector length and check it and the scratch requests (`op`, `label`: for
 *  the messages). */
static int team_check_shape(const char *op, const char *label, porta_exec exec,
                            porta_team_policy *p) {
  if (p->vector_length == PORTA_AUTO) p->vector_length = 1;
  if (p->vector_length < 1 || (p->vector_length & (p->vector_length - 1)))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "vector length %d is not a power of two", (int)p->vector_length);
  const int max_vector = porta_backend_ops_[exec.backend]->max_vector_length;
  if (max_vector > 0 && p->vector_length > max_vector)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "vector length %d exceeds the warp size %d", (int)p->vector_length,
                       max_vector);
  for (int l = 0; l < 2; ++l)
    if (p->scratch_team[l] > PORTA_TEAM_SCRATCH_MAX ||
        p->scratch_thread[l] > PORTA_TEAM_SCRATCH_MAX)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                         "scratch request at level %d (%zu bytes per team, %zu per thread) is "
                         "larger than %zu bytes",
                         l, p->scratch_team[l], p->scratch_thread[l], PORTA_TEAM_SCRATCH_MAX);
  return PORTA_SUCCESS;
}

/** Largest team size that fits the thread limit and, on a back end with a level-0 limit (the
 *  GPU's shared memory per block), that limit (level-0 bytes grow with the team size, so a
 *  binary search finds it); 0 if none fits. */
static int team_fit_max(porta_exec exec, const porta_team_policy *p, size_t value_size) {
  int hi = team_thread_limit(exec, p->vector_length), lo = 0;
  if (!porta_backend_ops_[exec.backend]->team_level0_limit) return hi;
  const size_t limit = porta_team_level0_limit(exec);
  while (lo < hi) { /* invariant: lo fits (or is 0), everything above hi does not */
    int mid = lo + (hi - lo + 1) / 2;
    if (porta_team_level0_bytes_(p, (size_t)mid, value_size) <= limit)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/** The message for a team that does not fit the block's shared memory. */
static int team_no_fit(const char *op, const char *label, porta_exec exec, const porta_kernel *k,
                       const porta_team_policy *p, int team_size, size_t value_size, int fit) {
  const size_t need = porta_team_level0_bytes_(p, (size_t)team_size, value_size);
  const size_t own = (((size_t)team_size * PORTA_TEAM_SLOT_BYTES + 63) & ~(size_t)63) +
                     (size_t)team_size * value_size;
  char hint[96] = "no team size fits";
  if (fit > 0) snprintf(hint, sizeof hint, "the largest team size that fits is %d", fit);
  return porta_error(
      PORTA_ERROR_INVALID_ARGUMENT, op, label,
      "kernel '%s': a team of %d needs %zu bytes of level-0 memory (team scratch %zu, "
      "per-thread scratch %d x %zu, team slots and reduction %zu), more than the %s back "
      "end's limit of %zu bytes per team%s; %s",
      k ? k->name : "(none)", team_size, need, p->scratch_team[0], team_size, p->scratch_thread[0],
      own, porta_backend_name(exec.backend), porta_team_level0_limit(exec),
      porta_backend_ops_[exec.backend]->team_level0_what
          ? porta_backend_ops_[exec.backend]->team_level0_what
          : "",
      hint);
}

/** Team size PORTA_AUTO becomes: the back end's choice (on CUDA 256 threads or as many as
 *  fit, in whole warps), else 1. */
static int team_recommended(porta_exec exec, const porta_team_policy *p, int fit) {
  const porta_backend_ops *ops = porta_backend_ops_[exec.backend];
  if (!ops->team_recommended || fit < 1) return fit < 1 ? fit : 1;
  return ops->team_recommended((int)p->vector_length, fit);
}

/** The team-size queries' common part: check the policy, then the largest and the
 *  recommended size that fit. */
static int team_sizes(const char *op, porta_exec exec, porta_team_policy policy,
                      const porta_kernel *kernel, int *max, int *recommended) {
  *max = *recommended = 0;
  if (PORTA_UNLIKELY((int)exec.backend < 0 || exec.backend >= PORTA_NUM_BACKENDS ||
                     !porta_backend_available(exec.backend)))
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "the %s back end is not available",
                       porta_backend_name(exec.backend));
  const char *label = kernel ? kernel->name : NULL;
  PORTA_CHECK(team_check_shape(op, label, exec, &policy));
  const size_t vs = team_value_size(kernel);
  const int fit = team_fit_max(exec, &policy, vs);
  if (fit < 1) return team_no_fit(op, label, exec, kernel, &policy, 1, vs, 0);
  *max = fit;
  *recommended = team_recommended(exec, &policy, fit);
  return PORTA_SUCCESS;
}

int porta_team_policy_team_size_max(porta_exec exec, porta_team_policy policy,
                                    const porta_kernel *kernel, int *team_size) {
  int rec;
  return team_sizes("porta_team_policy_team_size_max", exec, policy, kernel, team_size, &rec);
}

int porta_team_policy_team_size_recommended(porta_exec exec, porta_team_policy policy,
                                            const porta_kernel *kernel, int *team_size) {
  int max;
  return team_sizes("porta_team_policy_team_size_recommended", exec, policy, kernel, &max,
                    team_size);
}

int porta_team_size_max(porta_exec exec, porta_team_policy policy) {
  int n = 0;
  return porta_team_policy_team_size_max(exec, policy, NULL, &n) == PORTA_SUCCESS ? n : 0;
}

int porta_team_size_recommended(porta_exec exec, porta_team_policy policy) {
  int n = 0;
  return porta_team_policy_team_size_recommended(exec, policy, NULL, &n) == PORTA_SUCCESS ? n : 0;
}

/** Validate a team policy for kernel `k` and resolve its AUTO sizes: the team size must fit
 *  the back end's threads and, on CUDA, the block's shared memory (explicit sizes that do not
 *  fit are refused here, naming the bytes and the limit, rather than failing at launch). */
static int check_team(const char *op, const char *label, porta_exec exec, const porta_kernel *k,
                      porta_team_policy *p) {
  if (p->league_size < 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "negative league size %lld",
                       (long long)p->league_size);
  PORTA_CHECK(team_check_shape(op, label, exec, p));
  const size_t vs = team_value_size(k);
  const int fit = team_fit_max(exec, p, vs);
  if (p->team_size == PORTA_AUTO) {
    if (fit < 1) return team_no_fit(op, label, exec, k, p, 1, vs, 0);
    p->team_size = team_recommended(exec, p, fit);
    return PORTA_SUCCESS;
  }
  const int threads = team_thread_limit(exec, p->vector_length);
  if (p->team_size < 1 || p->team_size > threads)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "team size %d is outside 1..%d for the %s back end", (int)p->team_size,
                       threads, porta_backend_name(exec.backend));
  if (p->team_size > fit) return team_no_fit(op, label, exec, k, p, p->team_size, vs, fit);
  return PORTA_SUCCESS;
}

int porta_parallel_for(const char *label, porta_exec exec, porta_range_policy policy,
                       const porta_kernel *kernel, const void *args) {
  static const char op[] = "porta_parallel_for";
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_FOR, PORTA_POLICY_RANGE));
  PORTA_CHECK(check_range(op, label, policy));
  L.range = policy;
  return run(&L, op, kernel, PORTA_PATTERN_FOR, args, NULL);
}

int porta_parallel_for_md(const char *label, porta_exec exec, porta_mdrange_policy policy,
                          const porta_kernel *kernel, const void *args) {
  static const char op[] = "porta_parallel_for_md";
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_FOR, PORTA_POLICY_MDRANGE));
  PORTA_CHECK(check_md(op, label, kernel, policy));
  L.md = policy;
  return run(&L, op, kernel, PORTA_PATTERN_FOR, args, NULL);
}

int porta_parallel_for_team(const char *label, porta_exec exec, porta_team_policy policy,
                            const porta_kernel *kernel, const void *args) {
  static const char op[] = "porta_parallel_for_team";
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_FOR, PORTA_POLICY_TEAM));
  PORTA_CHECK(check_team(op, label, exec, kernel, &policy));
  L.team = policy;
  L.league_end = policy.league_size;
  return run(&L, op, kernel, PORTA_PATTERN_FOR, args, NULL);
}

/* A reduction's result is a host pointer (a blocking launch) or, `into`, memory of the
   execution space written with no wait. */
static int reduce_range(const char *op, const char *label, porta_exec exec,
                        porta_range_policy policy, const porta_kernel *kernel, const void *args,
                        void *result, int into) {
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_REDUCE, PORTA_POLICY_RANGE));
  PORTA_CHECK(check_range(op, label, policy));
  if (!result) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no result pointer");
  L.range = policy;
  L.result_in_space = into;
  return run_reduce(&L, op, kernel, args, result, 0);
}

static int reduce_md(const char *op, const char *label, porta_exec exec,
                     porta_mdrange_policy policy, const porta_kernel *kernel, const void *args,
                     void *result, int into) {
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_REDUCE, PORTA_POLICY_MDRANGE));
  PORTA_CHECK(check_md(op, label, kernel, policy));
  if (!result) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no result pointer");
  L.md = policy;
  L.result_in_space = into;
  return run_reduce(&L, op, kernel, args, result, 0);
}

static int reduce_team(const char *op, const char *label, porta_exec exec, porta_team_policy policy,
                       const porta_kernel *kernel, const void *args, void *result, int into) {
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_REDUCE, PORTA_POLICY_TEAM));
  PORTA_CHECK(check_team(op, label, exec, kernel, &policy));
  if (!result) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no result pointer");
  L.team = policy;
  L.league_end = policy.league_size;
  L.result_in_space = into;
  return run_reduce(&L, op, kernel, args, result, 1);
}

int porta_parallel_reduce(const char *label, porta_exec exec, porta_range_policy policy,
                          const porta_kernel *kernel, const void *args, void *result) {
  return reduce_range("porta_parallel_reduce", label, exec, policy, kernel, args, result, 0);
}

int porta_parallel_reduce_md(const char *label, porta_exec exec, porta_mdrange_policy policy,
                             const porta_kernel *kernel, const void *args, void *result) {
  return reduce_md("porta_parallel_reduce_md", label, exec, policy, kernel, args, result, 0);
}

int porta_parallel_reduce_team(const char *label, porta_exec exec, porta_team_policy policy,
                               const porta_kernel *kernel, const void *args, void *result) {
  return reduce_team("porta_parallel_reduce_team", label, exec, policy, kernel, args, result, 0);
}

int porta_parallel_reduce_into(const char *label, porta_exec exec, porta_range_policy policy,
                               const porta_kernel *kernel, const void *args, void *result) {
  /* a launch that failed leaves no end for a later one */
  return porta_reduce_end_settle_(exec, reduce_range("porta_parallel_reduce_into", label, exec,
                                                     policy, kernel, args, result, 1));
}

int porta_parallel_reduce_md_into(const char *label, porta_exec exec, porta_mdrange_policy policy,
                                  const porta_kernel *kernel, const void *args, void *result) {
  /* a launch that failed leaves no end for a later one */
  return porta_reduce_end_settle_(exec, reduce_md("porta_parallel_reduce_md_into", label, exec,
                                                  policy, kernel, args, result, 1));
}

int porta_parallel_reduce_team_into(const char *label, porta_exec exec, porta_team_policy policy,
                                    const porta_kernel *kernel, const void *args, void *result) {
  return porta_reduce_end_settle_(exec, reduce_team("porta_parallel_reduce_team_into", label, exec,
                                                    policy, kernel, args, result, 1));
}

int porta_parallel_scan(const char *label, porta_exec exec, porta_range_policy policy,
                        const porta_kernel *kernel, const void *args, void *total) {
  static const char op[] = "porta_parallel_scan";
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_SCAN, PORTA_POLICY_RANGE));
  PORTA_CHECK(check_range(op, label, policy));
  L.range = policy;
  return run(&L, op, kernel, PORTA_PATTERN_SCAN, args, total);
}

int porta_launch_piece_(const char *label, porta_exec exec, const porta_kernel *kernel,
                        const void *policy, int64_t league_begin, int64_t league_end,
                        const void *args, void *result, int accumulate) {
  static const char op[] = "porta_launch_piece_";
  if (PORTA_UNLIKELY(!kernel || !policy))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no kernel or policy given");
  const int pattern = kernel->pattern, kind = kernel->policy;
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, pattern, kind));
  if (PORTA_UNLIKELY(porta_backend_ops_[exec.backend]->on_device))
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, label,
                       "a launch in pieces runs on the host back ends, not on %s",
                       porta_backend_name(exec.backend));
  if (PORTA_UNLIKELY(pattern != PORTA_PATTERN_FOR && !result))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no result pointer");
  if (kind == PORTA_POLICY_RANGE) {
    L.range = *(const porta_range_policy *)policy;
    PORTA_CHECK(check_range(op, label, L.range));
  } else if (kind == PORTA_POLICY_MDRANGE) {
    L.md = *(const porta_mdrange_policy *)policy;
    PORTA_CHECK(check_md(op, label, kernel, L.md));
  } else {
    L.team = *(const porta_team_policy *)policy;
    PORTA_CHECK(check_team(op, label, exec, kernel, &L.team));
    if (league_begin < 0 || league_begin > league_end || league_end > L.team.league_size)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                         "league ranks [%lld, %lld) outside the league of %lld",
                         (long long)league_begin, (long long)league_end,
                         (long long)L.team.league_size);
    L.league_begin = league_begin;
    L.league_end = league_end;
  }
  if (accumulate && pattern != PORTA_PATTERN_FOR) L.initial = result;
  return run(&L, op, kernel, pattern, args, pattern == PORTA_PATTERN_FOR ? NULL : result);
}

int (*porta_wait_check_)(int poll) = NULL;

void porta_set_wait_check_(int (*check)(int poll)) { porta_wait_check_ = check; }
