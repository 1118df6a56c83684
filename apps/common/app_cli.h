/** @file app_cli.h
 *  Command-line handling shared by the apps. Porta's own options (--porta-backend, -threads,
 *  -device, -deterministic, -profile) are consumed by porta_initialize before this runs; what
 *  is left is parsed here:
 *    --help | -h            usage
 *    --in FILE | -i FILE | FILE   the input deck (one positional argument)
 *    --out NAME | -o NAME   output name: NAME.h5 (and NAME.xmf) ("NAME.h5" is accepted too)
 *    --reproducible         bitwise rank/thread-count independent results (exact sums)
 *    --no-h5                do not write the HDF5 result file
 */
#ifndef APP_CLI_H
#define APP_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

typedef struct app_cli {
  const char *input; /**< deck path (default given by the app) */
  char output[1024]; /**< output base name without ".h5" */
  int reproducible;
  int help;
  int no_h5;
} app_cli;

/** Parse argv[1..argc-1]; defaults from `default_input` / `default_output`. Returns 0, or
 *  non-zero with a message in `err`. */
int app_cli_parse(int argc, char **argv, const char *default_input, const char *default_output,
                  app_cli *cli, char *err, size_t errlen);
/** Print the usage text (the app's `description` first). */
void app_cli_usage(FILE *out, const char *program, const char *description,
                   const char *default_input, const char *default_output);

PORTA_EXTERN_C_END

#endif /* APP_CLI_H */
