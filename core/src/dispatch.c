/** @file dispatch.c
 *  From a launch call to a kernel's back-end launcher: validate the policy,
 *  resolve AUTO sizes, call the tools hooks (one branch when none is loaded). */
#include <string.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

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
  if (PORTA_UNLIKELY(!porta_backend_available(exec.backend)))
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, label, "the %s back end is not available",
                       porta_backend_name(exec.backend));
  L->label = label;
  L->exec = exec;
  L->num_threads = exec.backend == PORTA_BACKEND_OPENMP ? porta_state_.num_threads : 1;
  L->deterministic = porta_state_.deterministic;
  return PORTA_SUCCESS;
}

static int run(porta_launch *L, const char *op, const porta_kernel *k, int pattern,
               const void *args, void *result) {
  int rc;
  if (PORTA_UNLIKELY(porta_profiling_active_)) {
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
  if (PORTA_UNLIKELY(rc != PORTA_SUCCESS))
    return porta_error(rc, op, L->label, "the %s launcher of kernel '%s' failed",
                       porta_backend_name(L->exec.backend), k->name);
  return PORTA_SUCCESS;
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

int porta_team_size_max(porta_exec exec, porta_team_policy policy) {
#if PORTA_ENABLE_CUDA
  if (exec.backend == PORTA_BACKEND_CUDA) return porta_cuda_team_size_max_(policy.vector_length);
#endif
  (void)policy;
#if defined(_OPENMP)
  if (exec.backend == PORTA_BACKEND_OPENMP) {
    int limit = omp_get_thread_limit(); /* a team needs all its threads at once */
    return porta_state_.num_threads < limit ? porta_state_.num_threads : limit;
  }
#endif
  return 1;
}

int porta_team_size_recommended(porta_exec exec, porta_team_policy policy) {
  if (exec.backend == PORTA_BACKEND_CUDA) {
    int v = policy.vector_length > 0 ? policy.vector_length : 1;
    return 256 / v > 0 ? 256 / v : 1;
  }
  return 1;
}

static int check_team(const char *op, const char *label, porta_exec exec, porta_team_policy *p) {
  if (p->league_size < 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "negative league size %lld",
                       (long long)p->league_size);
  if (p->team_size == PORTA_AUTO) p->team_size = porta_team_size_recommended(exec, *p);
  if (p->vector_length == PORTA_AUTO) p->vector_length = 1;
  if (exec.backend == PORTA_BACKEND_CUDA && p->vector_length > 32)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "vector length %d exceeds the warp size 32", (int)p->vector_length);
  int max = porta_team_size_max(exec, *p);
  if (p->team_size < 1 || p->team_size > max)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "team size %d is outside 1..%d for the %s back end", (int)p->team_size, max,
                       porta_backend_name(exec.backend));
  if (p->vector_length < 1 || (p->vector_length & (p->vector_length - 1)))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "vector length %d is not a power of two", (int)p->vector_length);
  for (int l = 0; l < 2; ++l)
    if (p->scratch_team[l] > ((size_t)1 << 40) || p->scratch_thread[l] > ((size_t)1 << 40))
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                         "scratch request at level %d is too large", l);
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
  PORTA_CHECK(check_team(op, label, exec, &policy));
  L.team = policy;
  return run(&L, op, kernel, PORTA_PATTERN_FOR, args, NULL);
}

int porta_parallel_reduce(const char *label, porta_exec exec, porta_range_policy policy,
                          const porta_kernel *kernel, const void *args, void *result) {
  static const char op[] = "porta_parallel_reduce";
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_REDUCE, PORTA_POLICY_RANGE));
  PORTA_CHECK(check_range(op, label, policy));
  if (!result) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no result pointer");
  L.range = policy;
  return run(&L, op, kernel, PORTA_PATTERN_REDUCE, args, result);
}

int porta_parallel_reduce_md(const char *label, porta_exec exec, porta_mdrange_policy policy,
                             const porta_kernel *kernel, const void *args, void *result) {
  static const char op[] = "porta_parallel_reduce_md";
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_REDUCE, PORTA_POLICY_MDRANGE));
  PORTA_CHECK(check_md(op, label, kernel, policy));
  if (!result) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no result pointer");
  L.md = policy;
  return run(&L, op, kernel, PORTA_PATTERN_REDUCE, args, result);
}

int porta_parallel_reduce_team(const char *label, porta_exec exec, porta_team_policy policy,
                               const porta_kernel *kernel, const void *args, void *result) {
  static const char op[] = "porta_parallel_reduce_team";
  porta_launch L;
  PORTA_CHECK(prepare(&L, op, label, exec, kernel, PORTA_PATTERN_REDUCE, PORTA_POLICY_TEAM));
  PORTA_CHECK(check_team(op, label, exec, &policy));
  if (!result) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no result pointer");
  L.team = policy;
  return run(&L, op, kernel, PORTA_PATTERN_REDUCE, args, result);
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
