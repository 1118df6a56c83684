/** @file app_begin.c
 *  The apps' common start (see app_begin.h). */
#include "app_begin.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "app_file.h"
#include "app_mpi.h"
#include "app_omp_wait.h"
#include "app_summary.h"

/** Every rank has run a start-up stage; stop them all, together, if any failed: the lowest
 *  failing rank prints its message (`rc` non-zero there; the message is Porta's last), and
 *  every rank exits with APP_EXIT_BAD_INPUT (a start-up stage only refuses input). A rank may
 *  fail alone: each has its own environment and, under an MPMD launch, its own command line,
 *  and stopping only it would leave the others waiting in a collective. */
static void agree(int rc) {
  const int rank = app_mpi_rank(), size = app_mpi_size();
  int mine = rc != 0 ? rank : size, first = size;
  if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
    app_fatal("MPI_Allreduce failed while the ranks checked their start-up");
  if (first == size) return;
  if (rank == first) {
    fflush(stdout);
    if (first == 0)
      fprintf(stderr, "%s: %s\n", app_program_name(), porta_last_error_message());
    else
      fprintf(stderr, "%s: rank %d: %s\n", app_program_name(), rank, porta_last_error_message());
    fflush(stderr);
  }
  app_exit_all(APP_EXIT_BAD_INPUT, NULL);
}

/** FNV-1a over the arguments left after Porta took its own (the app's command line). */
static uint64_t arguments_hash(int argc, char **argv) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 1; i < argc; ++i) {
    for (const char *c = argv[i]; *c; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull; /* separator: "a b" differs from "ab" */
  }
  return h;
}

/** The app's options must be the same on every rank: each rank computes its part of the
 *  problem from them, so ranks that disagree would solve a problem nobody asked for.
 *  (Porta's options, taken out before, may differ: a GPU per rank.) */
static int same_arguments(int argc, char **argv) {
  const uint64_t h = arguments_hash(argc, argv);
  uint64_t lo = h, hi = h;
  if (MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS ||
      MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "app_begin", NULL, "MPI_Allreduce failed");
  if (lo == hi) return PORTA_SUCCESS;
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "command line", NULL,
                     "the ranks were started with different options; every rank must be given "
                     "the same options (only --porta-* options may differ)");
}

void app_spare_input(const app_cli *cli, const char *input, const char *what) {
  char h5[APP_PATH_MAX + 16], xmf[APP_PATH_MAX + 16], msg[3 * APP_PATH_MAX] = "";
  snprintf(h5, sizeof h5, "%s.h5", cli->output);
  snprintf(xmf, sizeof xmf, "%s.xmf", cli->output);
  const char *result[3] = {cli->no_h5 ? NULL : h5, cli->no_h5 ? NULL : xmf, cli->summary_json};
  const char *option[3] = {"--out", "--out", "--summary-json"};
  if (app_mpi_rank() == 0 && input && input[0])
    for (int k = 0; k < 3 && !msg[0]; ++k)
      if (result[k] && result[k][0] && app_file_same(result[k], input))
        snprintf(msg, sizeof msg,
                 "%s: the result %s would replace '%s', %s of this run; choose another name",
                 option[k], result[k], input, what);
  if (MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    app_fatal("MPI_Bcast failed while the ranks checked their results' names");
  if (msg[0]) app_exit_all(APP_EXIT_BAD_INPUT, "%s", msg);
}

void app_begin(int *argc, char ***argv, const app_cli_spec *spec, app_cli *cli) {
  app_omp_wait_prepare(*argc, *argv); /* may start the program again: before MPI and OpenMP */
  app_mpi_init(argc, argv, spec->program);
  int help = 0, any_help = 0;
  for (int i = 1; i < *argc; ++i)
    if (!strcmp((*argv)[i], "--help") || !strcmp((*argv)[i], "-h") ||
        !strcmp((*argv)[i], "--porta-help"))
      help = 1;
  if (MPI_Allreduce(&help, &any_help, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    app_fatal("MPI_Allreduce failed while the ranks checked their start-up");
  if (any_help) {
    if (app_mpi_rank() == 0) app_cli_usage(stdout, spec);
    app_exit_all(APP_EXIT_SUCCESS, NULL);
  }
  porta_settings settings; /* read before porta_initialize takes the --porta-* options */
  const int read = porta_settings_read(*argc, *argv, &settings);
  agree(porta_initialize(argc, argv));
  agree(read); /* porta_initialize refused the same values first */
  app_omp_wait_report();
  /* The one error policy of a run, set here and never changed: every Porta failure comes back
     as a code with its message (porta_last_error_message), the caller that cannot go on stops
     the job with it (APP_CHECK), and code with something to undo first (the HDF5 writer's
     temporary file, a GPU channel falling back to the host) does so on the way up. */
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  int rc = app_env_check(spec->env, spec->nenv);
  agree(rc ? rc : app_env_check(app_env_common, app_env_ncommon));
  rc = app_env_agree(spec->env, spec->nenv, MPI_COMM_WORLD);
  agree(rc ? rc : app_env_agree(app_env_common, app_env_ncommon, MPI_COMM_WORLD));
  agree(app_env_agree_porta(&settings, MPI_COMM_WORLD));
  agree(app_cli_parse(*argc, *argv, spec, cli));
  /* the default sums of this run, the same on every rank (a rank left without a GPU takes a
     host back end): with several ranks on GPUs each exact sum costs a kernel boundary */
  int on_device = porta_exec_query(porta_exec_default()).on_device != 0, any_device = 0;
  if (MPI_Allreduce(&on_device, &any_device, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    app_fatal("MPI_Allreduce failed while the ranks chose their sums");
  cli->exact_sums = app_cli_exact_sums(cli, spec, any_device && app_mpi_size() > 1);
  agree(same_arguments(*argc, *argv));
  if (cli->summary_json[0]) {
    /* the summary must not replace the run's deck or its results */
    char h5[APP_PATH_MAX + 16], xmf[APP_PATH_MAX + 16];
    snprintf(h5, sizeof h5, "%s.h5", cli->output);
    snprintf(xmf, sizeof xmf, "%s.xmf", cli->output);
    const char *keep[3] = {cli->input, cli->no_h5 ? NULL : h5, cli->no_h5 ? NULL : xmf};
    agree(app_summary_probe(cli->summary_json, keep, 3, MPI_COMM_WORLD));
  }
  /* --reproducible's sums are exact (app_sum), so their order does not matter: the core's
     deterministic mode (a fixed order for every reduction) is not turned on with it, and its
     reductions keep the default kernels (the deterministic tiles cost them 1.6x here) */
  app_spare_input(cli, cli->input, "the deck");
}
