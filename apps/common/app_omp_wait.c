/** @file app_omp_wait.c
 *  Fewer spins for OpenMP's waiting threads on an oversubscribed node (see app_omp_wait.h). */
#define _GNU_SOURCE
#include "app_omp_wait.h"

#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_mpi.h"
#include "porta/config.h"

/** libgomp's own spin count where one process has more threads than CPUs. */
#define APP_OMP_SPINCOUNT "1000"
/** Set for the new start: "threads ranks cpus" of the node that asked for it. */
#define APP_OMP_RESTARTED "PORTA_OMP_WAIT_RESTARTED"

/** What the new start found, or could not do (for app_omp_wait_report). */
static char g_failed[160];

/** A positive integer at the start of `s` (the first of OMP_NUM_THREADS's list), else 0. */
static int leading_count(const char *s) {
  if (!s || *s < '1' || *s > '9') return 0;
  const long v = strtol(s, NULL, 10);
  return v > 0 && v < 1000000 ? (int)v : 0;
}

/** The value of `--name=V` among the arguments, else NULL. */
static const char *option(int argc, char **argv, const char *name) {
  const size_t n = strlen(name);
  for (int i = 1; i < argc; ++i)
    if (!strncmp(argv[i], name, n) && argv[i][n] == '=') return argv[i] + n + 1;
  return NULL;
}

/** The OpenMP threads the run asks for, in the core's order of precedence (0: not said). */
static int threads_asked(int argc, char **argv) {
  const char *v = option(argc, argv, "--porta-threads");
  if (!v) v = option(argc, argv, "--porta-num-threads");
  if (!v) v = getenv("PORTA_NUM_THREADS");
  if (!v) v = getenv("OMP_NUM_THREADS");
  return leading_count(v);
}

/** Whether the run may use the OpenMP back end (not when another one is named, nor by default
 *  where a CUDA build finds a GPU driver). */
static int openmp_may_run(int argc, char **argv) {
  if (!PORTA_ENABLE_OPENMP) return 0;
  const char *b = option(argc, argv, "--porta-backend");
  if (!b) b = getenv("PORTA_BACKEND");
  if (b && *b) return strcmp(b, "openmp") == 0;
  return !(PORTA_ENABLE_CUDA && access("/dev/nvidiactl", F_OK) == 0);
}

/** The ranks of this node, from the launcher's environment (1 when none says). */
static int node_ranks(void) {
  const char *names[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
    const int n = leading_count(getenv(names[k]));
    if (n > 0) return n;
  }
  return 1;
}

void app_omp_wait_prepare(int argc, char **argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || !openmp_may_run(argc, argv)) return;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  const int cpus = CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int asked = threads_asked(argc, argv), threads = asked > 0 ? asked : cpus;
  /* a process bound to some CPUs has them to itself; an unbound one shares them with every
     rank of the node */
  const int ranks = cpus >= online ? node_ranks() : 1;
  if (cpus <= 0 || (long)threads * ranks <= cpus) return;
  char what[64];
  snprintf(what, sizeof what, "%d %d %d", ranks, threads, cpus);
  if (setenv("GOMP_SPINCOUNT", APP_OMP_SPINCOUNT, 1) || setenv(APP_OMP_RESTARTED, what, 1)) return;
  execv("/proc/self/exe", argv); /* returns only on failure */
  unsetenv("GOMP_SPINCOUNT");
  unsetenv(APP_OMP_RESTARTED);
  snprintf(g_failed, sizeof g_failed, "%d rank%s x %d threads share %d CPU%s", ranks,
           ranks > 1 ? "s" : "", threads, cpus, cpus > 1 ? "s" : "");
}

void app_omp_wait_report(void) {
  /* 2: a rank started again; 1: one could not (its words in g_failed) */
  const char *restarted = getenv(APP_OMP_RESTARTED);
  int mine = restarted ? 2 : g_failed[0] ? 1 : 0, any = mine;
  if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) any = mine;
  if (restarted) unsetenv(APP_OMP_RESTARTED); /* not for the programs this one starts */
  if (app_mpi_rank() != 0 || !any) return;
  int ranks = 0, threads = 0, cpus = 0;
  if (restarted && sscanf(restarted, "%d %d %d", &ranks, &threads, &cpus) == 3)
    printf("porta: %d rank%s x %d threads share %d CPU%s: OpenMP's idle threads spin %s times "
           "before they sleep (GOMP_SPINCOUNT=%s; set OMP_WAIT_POLICY or GOMP_SPINCOUNT to "
           "choose)\n",
           ranks, ranks > 1 ? "s" : "", threads, cpus, cpus > 1 ? "s" : "", APP_OMP_SPINCOUNT,
           APP_OMP_SPINCOUNT);
  else if (any == 2)
    printf("porta: the ranks of a node outnumber its CPUs: OpenMP's idle threads spin %s times "
           "before they sleep (GOMP_SPINCOUNT=%s; set OMP_WAIT_POLICY or GOMP_SPINCOUNT to "
           "choose)\n",
           APP_OMP_SPINCOUNT, APP_OMP_SPINCOUNT);
  else
    printf("porta: warning: %s; OpenMP's waiting threads will slow this run many times: set "
           "OMP_WAIT_POLICY=passive or use fewer threads (--porta-threads)\n",
           g_failed[0] ? g_failed : "the ranks x threads of a node outnumber its CPUs");
  fflush(stdout);
}
