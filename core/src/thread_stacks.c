/** @file thread_stacks.c
 *  Whether a process's host threads have room for their stacks under its address-space limit
 *  (RLIMIT_AS, `ulimit -v`): OpenMP starts its threads at the first parallel region, and a
 *  thread it cannot create ends the process there ("libgomp: Thread creation failed", exit 1)
 *  with no word of the limit. Refusing the thread count up front names the cause. */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "runtime_private.h"

/* OMP_STACKSIZE in bytes ("N", "NB", "NK", "NM", "NG"; a bare number is KiB, as OpenMP says), or
   0 when it is not set or not such a size (then libgomp uses the default pthread stack too). */
static double omp_stacksize(void) {
  const char *v = getenv("OMP_STACKSIZE");
  if (!v) return 0.0;
  char *end = NULL;
  const double n = strtod(v, &end);
  if (end == v || !(n > 0.0)) return 0.0;
  while (isspace((unsigned char)*end)) ++end;
  switch (toupper((unsigned char)*end)) {
  case 'B': return n;
  case '\0':
  case 'K': return n * 1024.0;
  case 'M': return n * 1024.0 * 1024.0;
  case 'G': return n * 1024.0 * 1024.0 * 1024.0;
  default: return 0.0;
  }
}

/* The stack a new thread gets: OMP_STACKSIZE, else the pthread default (glibc: RLIMIT_STACK). */
static double thread_stack_bytes(void) {
  const double omp = omp_stacksize();
  if (omp > 0.0) return omp;
  pthread_attr_t attr;
  size_t bytes = 0;
  if (pthread_attr_init(&attr) != 0) return 0.0;
  if (pthread_attr_getstacksize(&attr, &bytes) != 0) bytes = 0;
  pthread_attr_destroy(&attr);
  return (double)bytes;
}

/* The address space the process maps now (/proc/self/statm), 0 where unknown. */
static double address_space_in_use(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (!f) return 0.0;
  if (fscanf(f, "%lu", &pages) != 1) pages = 0;
  fclose(f);
  return (double)pages * (double)sysconf(_SC_PAGESIZE);
}

int porta_thread_stacks_check_(int n, const char *op) {
  struct rlimit rl;
  if (n <= 1 || getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return PORTA_SUCCESS;
  const double stack = thread_stack_bytes(), page = (double)sysconf(_SC_PAGESIZE);
  const double limit = (double)rl.rlim_cur, used = address_space_in_use();
  const double need = (double)(n - 1) * (stack + page); /* the first thread is this one */
  if (stack <= 0.0 || need <= limit - used) return PORTA_SUCCESS;
  const double mb = 1024.0 * 1024.0;
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                     "%d threads need %.0f MB of address space for the stacks of the %d it starts "
                     "(%.0f MB each), more than the %.0f MB that the address-space limit "
                     "(RLIMIT_AS, ulimit -v) of %.0f MB leaves beside the %.0f MB in use: run "
                     "fewer threads (--porta-threads, OMP_NUM_THREADS), smaller stacks "
                     "(OMP_STACKSIZE) or under a larger ulimit -v",
                     n, need / mb, n - 1, stack / mb, limit > used ? (limit - used) / mb : 0.0,
                     limit / mb, used / mb);
}
