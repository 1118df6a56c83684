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
#include "porta/porta.h"

/** libgomp's own spin count where one process has more threads than CPUs. */
#define APP_OMP_SPINCOUNT "1000"
/** Set for the new start: the pid of the process that asked for it (execv keeps the pid), so
 *  that a value from the caller's environment is not taken for a restart. */
#define APP_OMP_RESTARTED "PORTA_OMP_WAIT_RESTARTED"
/** Test hook: a file read instead of the process's cgroup CPU quota, in cgroup v2's cpu.max
 *  form ("25000 100000": a quarter of a CPU; "max 100000": none). */
#define APP_OMP_CPU_MAX_HOOK "PORTA_TEST_CPU_MAX_FILE"

/** What a node's start found: its ranks x threads on its CPUs. */
typedef struct crowd {
  int ranks, threads, cpus;
} crowd;

/** What the new start found (restarted 1; crowd.ranks 0 where it found no crowd). */
static int g_restarted;
static crowd g_crowd;
/** What the new start could not do (for app_omp_wait_report). */
static char g_failed[160];

/** A positive integer at the start of `s`, else 0 (the launchers' rank counts). */
static int leading_count(const char *s) {
  if (!s || *s < '1' || *s > '9') return 0;
  const long v = strtol(s, NULL, 10);
  return v > 0 && v < 1000000 ? (int)v : 0;
}

/** Whether the run may use the OpenMP back end (not when another one is named, nor by default
 *  where a CUDA build finds a GPU driver). `s`: the core's reading of the settings. */
static int openmp_may_run(const porta_settings *s) {
  if (!PORTA_ENABLE_OPENMP) return 0;
  if (s->backend >= 0) return s->backend == (int)PORTA_BACKEND_OPENMP;
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

/** The CPUs a cgroup v2 cpu.max file allows ("QUOTA PERIOD"), rounded up, at least 1; 0 where
 *  it sets no quota ("max") or cannot be read. */
static int quota_cpus(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char quota[32] = "";
  long long period = 0;
  const int got = fscanf(f, "%31s %lld", quota, &period);
  fclose(f);
  if (got != 2 || period <= 0 || quota[0] < '0' || quota[0] > '9') return 0;
  const long long q = strtoll(quota, NULL, 10);
  if (q <= 0) return 0;
  const long long n = (q + period - 1) / period;
  return n < 1 ? 1 : n > 1000000 ? 1000000 : (int)n;
}

/** The CPUs the process's cgroup quota allows (the smallest of its cgroup's and its
 *  ancestors' cpu.max, cgroup v2), 0 where none is set. */
static int cgroup_cpus(void) {
  const char *hook = getenv(APP_OMP_CPU_MAX_HOOK);
  if (hook && *hook) return quota_cpus(hook);
  char line[512], dir[600];
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f) return quota_cpus("/sys/fs/cgroup/cpu.max");
  dir[0] = '\0';
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "0::", 3)) {
      line[strcspn(line, "\n")] = '\0';
      snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", strcmp(line + 3, "/") ? line + 3 : "");
      break;
    }
  fclose(f);
  if (!dir[0]) return 0;
  int least = 0;
  for (;;) { /* from the process's cgroup up to the root of the mount */
    char path[640];
    snprintf(path, sizeof path, "%s/cpu.max", dir);
    const int n = quota_cpus(path);
    if (n > 0 && (least == 0 || n < least)) least = n;
    char *slash = strrchr(dir, '/');
    if (!slash || slash - dir < (long)strlen("/sys/fs/cgroup")) break;
    *slash = '\0';
  }
  return least;
}

/** Whether this node is crowded (its figures in *c): the threads the core would use, times
 *  the node's ranks when the process is not bound, against the CPUs of its affinity and its
 *  cgroup's quota, where the OpenMP back end may run. */
static int crowded(int argc, char **argv, crowd *c) {
  porta_settings s;
  const porta_error_scope scope = porta_error_scope_begin(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  const int rc = porta_settings_read(argc, argv, &s); /* a bad value: porta_initialize says */
  porta_error_scope_end(scope);
  if (rc != PORTA_SUCCESS || !openmp_may_run(&s)) return 0;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  const int affinity = CPU_COUNT(&set), quota = cgroup_cpus();
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  c->cpus = quota > 0 && quota < affinity ? quota : affinity;
  c->threads = s.threads;
  /* a process bound to some CPUs has them to itself; an unbound one shares them with every
     rank of the node */
  c->ranks = affinity >= online ? node_ranks() : 1;
  return c->cpus > 0 && (long)c->threads * c->ranks > c->cpus;
}

void app_omp_wait_prepare(int argc, char **argv) {
  char pid[32];
  snprintf(pid, sizeof pid, "%ld", (long)getpid());
  const char *marker = getenv(APP_OMP_RESTARTED), *spin = getenv("GOMP_SPINCOUNT");
  /* a restart of this very process (the pid it set, the spin count it set), else a value
     from the caller's environment: dropped, and the node looked at afresh */
  const int restarted = marker && !strcmp(marker, pid) && spin && !strcmp(spin, APP_OMP_SPINCOUNT);
  if (marker) unsetenv(APP_OMP_RESTARTED); /* not for the programs this one starts */
  crowd c;
  memset(&c, 0, sizeof c);
  if (restarted) { /* the figures, counted again rather than taken from the environment */
    g_restarted = 1;
    if (crowded(argc, argv, &c)) g_crowd = c;
    return;
  }
  if (getenv("OMP_WAIT_POLICY") || spin || !crowded(argc, argv, &c)) return;
  if (setenv("GOMP_SPINCOUNT", APP_OMP_SPINCOUNT, 1) || setenv(APP_OMP_RESTARTED, pid, 1)) return;
  execv("/proc/self/exe", argv); /* returns only on failure */
  unsetenv("GOMP_SPINCOUNT");
  unsetenv(APP_OMP_RESTARTED);
  snprintf(g_failed, sizeof g_failed, "%d rank%s x %d threads share %d CPU%s", c.ranks,
           c.ranks > 1 ? "s" : "", c.threads, c.cpus, c.cpus > 1 ? "s" : "");
}

void app_omp_wait_report(void) {
  /* 2: a rank started again; 1: one could not (its words in g_failed) */
  int mine = g_restarted ? 2 : g_failed[0] ? 1 : 0, any = mine;
  if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) any = mine;
  if (app_mpi_rank() != 0 || !any) return;
  const crowd c = g_crowd;
  if (g_restarted && c.ranks > 0)
    printf("porta: %d rank%s x %d threads share %d CPU%s: OpenMP's idle threads spin %s times "
           "before they sleep (GOMP_SPINCOUNT=%s; set OMP_WAIT_POLICY or GOMP_SPINCOUNT to "
           "choose)\n",
           c.ranks, c.ranks > 1 ? "s" : "", c.threads, c.cpus, c.cpus > 1 ? "s" : "",
           APP_OMP_SPINCOUNT, APP_OMP_SPINCOUNT);
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
