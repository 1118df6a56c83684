/** @file app_omp_wait.h
 *  OpenMP's waiting threads on a crowded node. Between parallel regions libgomp's idle threads
 *  spin 300000 times before they sleep. On cores of their own that makes launches fast; where
 *  the node's ranks x threads exceed the CPUs they may use, the spinning threads take the time
 *  slices the working ones need (miniFE on 2 ranks x 2 threads on 2 cores: 55 times slower per
 *  CG iteration). libgomp reads its wait policy once, as it loads, before main: so an app whose
 *  start finds the node oversubscribed starts itself again, the same process with the same
 *  arguments, with GOMP_SPINCOUNT=1000 (what libgomp itself uses where one process has more
 *  threads than CPUs), and says so on the first line of the run. The user's OMP_WAIT_POLICY or
 *  GOMP_SPINCOUNT always wins (GOMP_SPINCOUNT=300000 keeps libgomp's default). The Python
 *  package applies the same rule as it loads (python/porta/__init__.py). */
#ifndef APP_OMP_WAIT_H
#define APP_OMP_WAIT_H

#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

/** Before MPI and before any OpenMP region: where this node is oversubscribed (the threads
 *  the core will use, read by its rules with porta_settings_read - --porta-threads,
 *  PORTA_NUM_THREADS, OMP_NUM_THREADS, else one per CPU of the process's affinity - times the
 *  node's ranks when the process is not bound, against the CPUs of its affinity or, where fewer,
 *  of its cgroup v2 CPU quota rounded up) and the OpenMP back end may run, start this program
 *  again with GOMP_SPINCOUNT=1000. The new start is marked by PORTA_OMP_WAIT_RESTARTED=<its pid>
 *  (execv keeps it), which it removes; a marker from the caller's environment is dropped, and
 *  the new start counts its figures again. Test hook: PORTA_TEST_CPU_MAX_FILE names a file read
 *  instead of the cgroup's cpu.max. Returns only when nothing is to be done or the new start
 *  failed. */
void app_omp_wait_prepare(int argc, char **argv);

/** After MPI started, on every rank: rank 0 prints the line that says a rank of the run started
 *  again with fewer spins (or, where that failed, which setting would fix it). */
void app_omp_wait_report(void);

PORTA_EXTERN_C_END

#endif /* APP_OMP_WAIT_H */
