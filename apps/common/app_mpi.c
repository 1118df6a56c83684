/** @file app_mpi.c
 *  MPI start-up and the fatal-error paths (see app_mpi.h). */
#include "app_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_program[64] = "app";
static int g_rank = 0, g_size = 1;

int app_mpi_init(int *argc, char ***argv, const char *program) {
  int provided = 0, inited = 0;
  if (program) {
    const char *slash = strrchr(program, '/');
    snprintf(g_program, sizeof g_program, "%s", slash ? slash + 1 : program);
  }
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

int app_mpi_rank(void) { return g_rank; }
int app_mpi_size(void) { return g_size; }
const char *app_program_name(void) { return g_program; }

void app_vfatal(const char *fmt, va_list ap) {
  char msg[2048];
  vsnprintf(msg, sizeof msg, fmt, ap);
  fflush(stdout);
  fprintf(stderr, "%s: rank %d: error: %s\n", g_program, g_rank, msg);
  fflush(stderr);
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
  app_mpi_finalize();
  exit(status);
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
