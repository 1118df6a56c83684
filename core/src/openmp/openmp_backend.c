/** @file openmp/openmp_backend.c
 *  The OpenMP back end's execution interface: porta_num_threads() host threads per launch,
 *  instance 0 only; every launch completes before it returns, so a fence has nothing to wait
 *  for. A team needs all its threads at once. The launchers are generated in the user's files
 *  (porta/backend/openmp/). In a build without OpenMP only its name is kept. */
#include "../backend_private.h"

#if PORTA_ENABLE_OPENMP
#include <omp.h>
#include <string.h>

#include "../runtime_private.h"

static int openmp_available(void) { return 1; }
static int openmp_default_threads(void) { return omp_get_max_threads(); }
static int openmp_num_procs(void) { return omp_get_num_procs(); }

static int openmp_team_thread_limit(int vector_length) {
  (void)vector_length;
  const int limit = omp_get_thread_limit();
  return porta_state_.num_threads < limit ? porta_state_.num_threads : limit;
}

/** `bytes` copied from `src` to `dst` (zeroed when `src` is NULL), one contiguous block per
 *  thread. */
static int openmp_spread(void *dst, const void *src, size_t bytes, int nthreads) {
  char *d = (char *)dst;
  const char *s = (const char *)src;
  PORTA_OMP(parallel num_threads(nthreads)) {
    int64_t lo, hi;
    porta_partition_(0, (int64_t)bytes, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
    if (s)
      memcpy(d + lo, s + lo, (size_t)(hi - lo));
    else
      memset(d + lo, 0, (size_t)(hi - lo));
  }
  return PORTA_SUCCESS;
}

static int openmp_host_zero(void *ptr, size_t bytes, int nthreads) {
  return openmp_spread(ptr, NULL, bytes, nthreads);
}

const porta_backend_ops porta_openmp_backend_ops_ = {
    .id = PORTA_BACKEND_OPENMP,
    .name = "openmp",
    .memory_space = PORTA_HOST_SPACE,
    .available = openmp_available,
    .uses_host_threads = 1,
    .default_threads = openmp_default_threads,
    .num_procs = openmp_num_procs,
    .host_zero = openmp_host_zero,
    .host_copy = openmp_spread,
    .team_thread_limit = openmp_team_thread_limit,
};
#else
const porta_backend_ops porta_openmp_backend_ops_ = {
    .id = PORTA_BACKEND_OPENMP, .name = "openmp", .memory_space = PORTA_HOST_SPACE};
#endif
