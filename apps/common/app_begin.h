/** @file app_begin.h
 *  How every app starts: MPI, `--help` (before Porta, so it needs no working back end), Porta
 *  (its `--porta-*` options) and the app's command line, which settles its global sums (`--sums`,
 *  `--reproducible`: app_cli.h). A bad option stops every rank with its message and exit status
 *  2. */
#ifndef APP_BEGIN_H
#define APP_BEGIN_H

#include "app_cli.h"

PORTA_EXTERN_C_BEGIN

/** Start MPI and Porta and parse the command line by `spec` into `cli`. Returns only on
 *  success (after `--help` it prints the usage on rank 0 and exits 0 on every rank). */
void app_begin(int *argc, char ***argv, const app_cli_spec *spec, app_cli *cli);

/** Collective: stop every rank (exit 2) when a result this run writes - NAME.h5 and NAME.xmf
 *  (unless --no-h5), the --summary-json file - is the file `input`, `what` the run reads ("the
 *  deck", "the data file"): results are renamed over their names and would replace it (--out=run
 *  with the deck run.xmf had replaced the deck). Compared by inode (app_file_same). app_begin
 *  checks the deck; an app checks the other files it reads, before it creates its results. */
void app_spare_input(const app_cli *cli, const char *input, const char *what);

PORTA_EXTERN_C_END

#endif /* APP_BEGIN_H */
