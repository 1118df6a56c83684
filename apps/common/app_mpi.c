/** @file app_mpi.c
 *  MPI start-up and the fatal-error paths (see app_mpi.h). */
#include "app_mpi.h"

#include "app_env.h"
#include "porta/exchange.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char g_program[64] = "app";
static int g_rank = 0, g_size = 1;

int app_mpi_init(int *argc, char ***argv, const char *program) {
  int provided = 0, inited = 0;
  if (program) {
    const char *slash = strrchr(program, '/');
    snprintf(g_program, sizeof g_program, "%s", slash ? slash + 1 : program);
  }
  app_mpi_io_env();
  app_mpi_topology_env();
  MPI_Initialized(&inited);
  if (!inited && MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "%s: MPI_Init_thread failed\n", g_program);
    exit(1);
  }
  /* Errors come back as codes; APP_MPI_CHECK turns them into one clear message. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  return 0;
}

int app_mpi_finalize(void) {
  int fin = 0;
  if (porta_is_initialized()) porta_finalize();
  MPI_Finalized(&fin);
  if (!fin) MPI_Finalize();
  return 0;
}

void app_mpi_io_env(void) {
  /* read by Open MPI when its sharedfp framework opens, at the first MPI_File_open */
  if (!getenv("OMPI_MCA_sharedfp")) setenv("OMPI_MCA_sharedfp", "^lockedfile", 0);
}

void app_mpi_topology_env(void) {
  /* read by hwloc when Open MPI (or the orted a singleton starts) loads the node's topology */
  if (!getenv("HWLOC_COMPONENTS")) setenv("HWLOC_COMPONENTS", "-opencl", 0);
}

/* ---- files removed on a signal or a fatal exit ---------------------------------------------
 * The handler reads only the slots whose flag is set; a slot's path is written before its flag
 * is raised (the signal fence keeps the compiler from reordering them). */

static char g_cleanup_path[APP_CLEANUP_MAX][APP_CLEANUP_PATH_MAX];
static volatile sig_atomic_t g_cleanup_used[APP_CLEANUP_MAX];
static const int g_cleanup_sigs[3] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction g_cleanup_old[3];
static int g_cleanup_installed = 0;

static void cleanup_unlink_all(void) {
  for (int i = 0; i < APP_CLEANUP_MAX; ++i)
    if (g_cleanup_used[i]) {
      g_cleanup_used[i] = 0;
      atomic_signal_fence(memory_order_seq_cst);
      unlink(g_cleanup_path[i]);
    }
}

/* Async-signal-safe: unlink, sigaction and raise only. The signal is re-raised with the action
 * it had before (the default: the process dies of it); it is delivered when this returns. */
static void cleanup_signal(int sig) {
  const int saved = errno;
  cleanup_unlink_all();
  for (int k = 0; k < 3; ++k)
    if (g_cleanup_sigs[k] == sig) sigaction(sig, &g_cleanup_old[k], NULL);
  raise(sig);
  errno = saved;
}

static void cleanup_install(void) {
  if (g_cleanup_installed) return;
  g_cleanup_installed = 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = cleanup_signal;
  sigemptyset(&sa.sa_mask);
  for (int k = 0; k < 3; ++k) sigaddset(&sa.sa_mask, g_cleanup_sigs[k]);
  for (int k = 0; k < 3; ++k) {
    struct sigaction old;
    if (sigaction(g_cleanup_sigs[k], NULL, &old) != 0) continue;
    if (old.sa_handler == SIG_IGN) continue; /* ignored (nohup, a background job): stays so */
    g_cleanup_old[k] = old;
    sigaction(g_cleanup_sigs[k], &sa, NULL);
  }
}

int app_cleanup_add(const char *path) {
  if (!path || strlen(path) >= APP_CLEANUP_PATH_MAX) return -1;
  cleanup_install();
  for (int i = 0; i < APP_CLEANUP_MAX; ++i)
    if (!g_cleanup_used[i]) {
      memcpy(g_cleanup_path[i], path, strlen(path) + 1);
      atomic_signal_fence(memory_order_seq_cst);
      g_cleanup_used[i] = 1;
      return i;
    }
  return -1;
}

void app_cleanup_forget(int slot) {
  if (slot >= 0 && slot < APP_CLEANUP_MAX) g_cleanup_used[slot] = 0;
}

void app_cleanup_run(void) { cleanup_unlink_all(); }

int app_mpi_rank(void) { return g_rank; }
int app_mpi_size(void) { return g_size; }
const char *app_program_name(void) { return g_program; }

void app_vfatal(const char *fmt, va_list ap) {
  char msg[2048];
  vsnprintf(msg, sizeof msg, fmt, ap);
  fflush(stdout);
  fprintf(stderr, "%s: rank %d: error: %s\n", g_program, g_rank, msg);
  fflush(stderr);
  app_cleanup_run();
  int inited = 0, fin = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (inited && !fin) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

void app_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  app_vfatal(fmt, ap);
}

/* Whether `op` is a function's name (not an option such as "--summary-json"). */
static int is_function_name(const char *op) {
  static const char ident[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
  return op[0] && !(op[0] >= '0' && op[0] <= '9') && op[strspn(op, ident)] == '\0';
}

void app_error_text(char *out, size_t n, const char *note, const char *call, const char *file,
                    int line) {
  char where[1024] = "", tail[4500] = "";
  const porta_error_parts e = porta_last_error_parts();
  if (call) {
    const char *base = file ? strrchr(file, '/') : NULL;
    snprintf(where, sizeof where, "; %s at %s:%d", call, base ? base + 1 : file ? file : "?", line);
  }
  if (note && note[0]) snprintf(tail, sizeof tail, "; %s", note);
  const char *open = where[0] ? " [" : "", *detail = where[0] ? where + 2 : "",
             *close = where[0] ? "]" : "";
  if (e.code == PORTA_SUCCESS) {
    snprintf(out, n, "an operation failed without a message%s%s%s%s", tail, open, detail, close);
  } else if (!is_function_name(e.op)) { /* an option: kept as it was said */
    if (e.label[0])
      snprintf(out, n, "%s('%s'): %s%s%s%s%s", e.op, e.label, e.reason, tail, open, detail, close);
    else
      snprintf(out, n, "%s: %s%s%s%s%s", e.op, e.reason, tail, open, detail, close);
  } else if (e.label[0] && e.code == PORTA_ERROR_IO) { /* a file: it leads */
    snprintf(out, n, "'%s': %s%s [%s%s]", e.label, e.reason, tail, e.op, where);
  } else if (e.label[0]) {
    snprintf(out, n, "%s%s [%s '%s'%s]", e.reason, tail, e.op, e.label, where);
  } else {
    snprintf(out, n, "%s%s [%s%s]", e.reason, tail, e.op, where);
  }
}

void app_check_fail_(const char *call, const char *file, int line) {
  char text[4096];
  app_error_text(text, sizeof text, NULL, call, file, line);
  app_fatal("%s", text);
}

void app_xmf_fatal(const char *name, const char *call, const char *file, int line) {
  char note[4400], text[8192];
  snprintf(note, sizeof note,
           "the result '%s.h5' is complete and usable without it (the .xmf holds no data, it "
           "only indexes the .h5 for ParaView)",
           name);
  app_error_text(text, sizeof text, note, call, file, line);
  app_fatal("%s", text);
}

void app_exit_all(int status, const char *fmt, ...) {
  if (fmt && g_rank == 0) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", g_program, msg);
    fflush(stderr);
  }
  app_cleanup_run();
  app_mpi_finalize();
  exit(status);
}

/* A cgroup limit file's value in bytes; 0 where there is none ("max", a v1 "unlimited" of
   about 2^63, or no such file). */
static double cgroup_value(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0.0;
  char buf[64] = "";
  const int ok = fgets(buf, sizeof buf, f) != NULL;
  fclose(f);
  if (!ok || !strncmp(buf, "max", 3)) return 0.0;
  char *end = NULL;
  const double v = strtod(buf, &end);
  return end != buf && v > 0.0 && v < 4e18 ? v : 0.0;
}

/* The smallest cgroup memory limit over this process's cgroup and its parents (v2: the line
   "0::/path" of /proc/self/cgroup; v1: the "memory" controller's line); its file in `file`. */
static double cgroup_limit(char *file, size_t n) {
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f) return 0.0;
  char line[4096], best_file[4200] = "";
  double best = 0.0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    const char *path = NULL, *root = NULL, *name = NULL;
    if (!strncmp(line, "0::", 3)) { /* v2 */
      path = line + 3, root = "/sys/fs/cgroup", name = "memory.max";
    } else {
      char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
      if (c1 && c2 && (size_t)(c2 - c1 - 1) == 6 && !strncmp(c1 + 1, "memory", 6))
        path = c2 + 1, root = "/sys/fs/cgroup/memory", name = "memory.limit_in_bytes";
    }
    if (!path) continue;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (;;) { /* the cgroup, then each parent up to the root */
      char p[4200];
      snprintf(p, sizeof p, "%s%s/%s", root, strcmp(dir, "/") ? dir : "", name);
      const double v = cgroup_value(p);
      if (v > 0.0 && (best == 0.0 || v < best)) {
        best = v;
        snprintf(best_file, sizeof best_file, "%s", p);
      }
      char *slash = strrchr(dir, '/');
      if (!slash || slash == dir) {
        if (!strcmp(dir, "/")) break;
        snprintf(dir, sizeof dir, "/");
      } else {
        *slash = '\0';
      }
    }
  }
  fclose(f);
  if (file) snprintf(file, n, "%s", best_file);
  return best;
}

/* RLIMIT_AS in bytes; 0 without one. */
static double address_space_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 0.0;
  return (double)rl.rlim_cur;
}

static double physical_memory(void) {
  const double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  return phys > 0.0 ? phys : 0.0;
}

double app_memory_limit(char *which, size_t n) {
  char file[4200] = "";
  const double lim[3] = {physical_memory(), cgroup_limit(file, sizeof file), address_space_limit()};
  int k = -1;
  for (int i = 0; i < 3; ++i)
    if (lim[i] > 0.0 && (k < 0 || lim[i] < lim[k])) k = i;
  if (which && n) {
    if (k == 0) snprintf(which, n, "this node's memory");
    if (k == 1) snprintf(which, n, "the job's cgroup limit (%s)", file);
    if (k == 2) snprintf(which, n, "the address-space limit (RLIMIT_AS, ulimit -v)");
    if (k < 0) snprintf(which, n, "no known limit");
  }
  return k < 0 ? 0.0 : lim[k];
}

double app_node_memory_share(double bytes_per_rank, char *which, size_t n) {
  char file[4200] = "";
  const double phys = physical_memory(), cgroup = cgroup_limit(file, sizeof file);
  const double as = address_space_limit();
  MPI_Comm node;
  int local = 1;
  APP_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  APP_MPI_CHECK(MPI_Comm_size(node, &local));
  APP_MPI_CHECK(MPI_Comm_free(&node));
  /* the node's ranks share its memory and (as a job's ranks) its cgroup; each has its own
     address-space limit */
  const double node_bytes = bytes_per_rank * (double)local;
  const double share[3] = {phys > 0.0 ? node_bytes / phys : 0.0,
                           cgroup > 0.0 ? node_bytes / cgroup : 0.0,
                           as > 0.0 ? bytes_per_rank / as : 0.0};
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (share[i] > share[k]) k = i;
  /* the worst rank's share, its limit named by that rank */
  struct {
    double share;
    int rank;
  } mine = {share[k], app_mpi_rank()}, worst;
  APP_MPI_CHECK(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
  char what[4400] = "";
  const double lim[3] = {phys, cgroup, as};
  snprintf(what, sizeof what, "%s of %.3g GB",
           k == 0   ? "this node's memory"
           : k == 1 ? "the job's cgroup limit"
                    : "the address-space limit (RLIMIT_AS, ulimit -v)",
           lim[k] / 1e9);
  if (k == 1) snprintf(what + strlen(what), sizeof what - strlen(what), " (%s)", file);
  if (k != 2 && local > 1)
    snprintf(what + strlen(what), sizeof what - strlen(what), " for the node's %d ranks", local);
  APP_MPI_CHECK(MPI_Bcast(what, (int)sizeof what, MPI_CHAR, worst.rank, MPI_COMM_WORLD));
  if (which && n) snprintf(which, n, "%s", what);
  return worst.share;
}

double app_device_memory_share(double bytes_per_rank, porta_exec exec, char *which, size_t n) {
  const porta_exec_traits t = porta_exec_query(exec);
  const double mem = t.device_memory_bytes;
  MPI_Comm node, device;
  int sharing = 1;
  APP_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  APP_MPI_CHECK(MPI_Comm_split(node, mem > 0.0 ? porta_device_id() : MPI_UNDEFINED, 0, &device));
  if (device != MPI_COMM_NULL) {
    APP_MPI_CHECK(MPI_Comm_size(device, &sharing));
    APP_MPI_CHECK(MPI_Comm_free(&device));
  }
  APP_MPI_CHECK(MPI_Comm_free(&node));
  struct {
    double share;
    int rank;
  } mine = {mem > 0.0 ? bytes_per_rank * (double)sharing / mem : 0.0, app_mpi_rank()}, worst;
  APP_MPI_CHECK(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
  char what[512] = "";
  snprintf(what, sizeof what, "the memory of device %d (%s) of %.3g GB", porta_device_id(),
           porta_device_name(), mem / 1e9);
  if (sharing > 1)
    snprintf(what + strlen(what), sizeof what - strlen(what), " for its %d ranks", sharing);
  APP_MPI_CHECK(MPI_Bcast(what, (int)sizeof what, MPI_CHAR, worst.rank, MPI_COMM_WORLD));
  if (which && n) snprintf(which, n, "%s", what);
  return worst.share;
}

int app_mpi_agree(int rc, const char *op, const char *what, MPI_Comm comm) {
  int worst = rc;
  if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, op, NULL, "MPI_Allreduce failed");
  if (worst != PORTA_SUCCESS && rc == PORTA_SUCCESS)
    return porta_error(worst, op, NULL, "%s on another rank", what);
  return worst;
}

void app_mpi_fail_(int rc, const char *call, const char *file, int line) {
  char err[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, err, &len);
  app_fatal("%s failed (%s:%d): %s", call, file, line, err);
}

bool app_loop_wanted(porta_exec exec, const char *env, int nranks,
                     const struct porta_device_comm *dc) {
  return app_env_flag(env, porta_loop_records(exec)) != 0 && (nranks < 2 || dc);
}

int app_device_comm_try(MPI_Comm comm, porta_exec exec, struct porta_device_comm **out, char *why,
                        size_t size) {
  why[0] = '\0';
  const int rc = porta_device_comm_create(comm, exec, out);
  if (rc != PORTA_ERROR_UNSUPPORTED) return rc; /* made, or NCCL failed */
  snprintf(why, size, "%s", porta_last_error_message());
  return PORTA_SUCCESS;
}
