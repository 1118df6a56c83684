/** @file app_begin.c
 *  The apps' common start (see app_begin.h). */
#include "app_begin.h"

#include <string.h>

#include "app_mpi.h"
#include "app_summary.h"

void app_begin(int *argc, char ***argv, const app_cli_spec *spec, app_cli *cli) {
  app_mpi_init(argc, argv, spec->program);
  for (int i = 1; i < *argc; ++i)
    if (!strcmp((*argv)[i], "--help") || !strcmp((*argv)[i], "-h")) {
      if (app_mpi_rank() == 0) app_cli_usage(stdout, spec);
      app_exit_all(0, NULL);
    }
  if (porta_initialize(argc, argv) != PORTA_SUCCESS)
    app_exit_all(2, "%s", porta_last_error_message());
  if (app_cli_parse(*argc, *argv, spec, cli) != PORTA_SUCCESS)
    app_exit_all(2, "%s", porta_last_error_message());
  if (cli->summary_json[0] && app_summary_probe(cli->summary_json, MPI_COMM_WORLD) != PORTA_SUCCESS)
    app_exit_all(2, "%s", porta_last_error_message());
  if (cli->reproducible) porta_set_deterministic(1);
}
