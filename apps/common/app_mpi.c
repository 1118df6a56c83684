/** @file app_mpi.c
 *  MPI start-up and the fatal-error paths (see app_mpi.h). */
#include "app_mpi.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

double app_node_memory_share(double bytes_per_rank) {
  const double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  MPI_Comm node;
  int local = 1;
  APP_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  APP_MPI_CHECK(MPI_Comm_size(node, &local));
  APP_MPI_CHECK(MPI_Comm_free(&node));
  double need = phys > 0 ? bytes_per_rank * (double)local / phys : 0.0, worst = 0.0;
  APP_MPI_CHECK(MPI_Allreduce(&need, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return worst;
}

static int porta_fatal_handler(int code, const char *message, void *user) {
  (void)user;
  app_fatal("Porta error %s: %s", porta_error_name(code), message ? message : "");
}

void app_porta_errors_fatal(void) {
  porta_set_error_mode(PORTA_ERROR_MODE_CALLBACK, porta_fatal_handler, NULL);
}

void app_mpi_fail_(int rc, const char *call, const char *file, int line) {
  char err[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, err, &len);
  app_fatal("%s failed (%s:%d): %s", call, file, line, err);
}
