/** @file app_cli.c
 *  Command-line handling (see app_cli.h). */
#include "app_cli.h"

#include <string.h>

static void set_output(app_cli *cli, const char *name) {
  snprintf(cli->output, sizeof cli->output, "%s", name);
  size_t n = strlen(cli->output);
  if (n > 3 && strcmp(cli->output + n - 3, ".h5") == 0) cli->output[n - 3] = '\0';
}

int app_cli_parse(int argc, char **argv, const char *default_input, const char *default_output,
                  app_cli *cli, char *err, size_t errlen) {
  memset(cli, 0, sizeof *cli);
  cli->input = default_input;
  set_output(cli, default_output);
  int have_input = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli->help = 1;
    } else if (!strcmp(a, "--reproducible")) {
      cli->reproducible = 1;
    } else if (!strcmp(a, "--no-h5")) {
      cli->no_h5 = 1;
    } else if (!strcmp(a, "--in") || !strcmp(a, "-i") || !strcmp(a, "--out") || !strcmp(a, "-o")) {
      if (i + 1 >= argc) {
        snprintf(err, errlen, "option '%s' needs a value", a);
        return 1;
      }
      if (a[2] == 'i' || a[1] == 'i') {
        if (have_input++) goto two_inputs;
        cli->input = argv[++i];
      } else {
        set_output(cli, argv[++i]);
      }
    } else if (!strncmp(a, "--in=", 5)) {
      if (have_input++) goto two_inputs;
      cli->input = a + 5;
    } else if (!strncmp(a, "--out=", 6)) {
      set_output(cli, a + 6);
    } else if (a[0] == '-' && a[1] != '\0') {
      snprintf(err, errlen, "unknown option '%s' (see --help)", a);
      return 1;
    } else {
      if (have_input++) goto two_inputs;
      cli->input = a;
    }
  }
  if (!cli->output[0]) {
    snprintf(err, errlen, "empty output name");
    return 1;
  }
  return 0;
two_inputs:
  snprintf(err, errlen, "more than one input deck given");
  return 1;
}

void app_cli_usage(FILE *out, const char *program, const char *description,
                   const char *default_input, const char *default_output) {
  fprintf(out,
          "%s\n\n"
          "Usage: mpirun -np N %s [options] [DECK]\n\n"
          "  DECK, --in FILE, -i FILE  input deck (default: %s)\n"
          "  --out NAME, -o NAME       results in NAME.h5 (+ NAME.xmf) (default: %s)\n"
          "  --no-h5                   do not write the HDF5 result file\n"
          "  --reproducible            bitwise identical results for any rank and thread count\n"
          "                            (exact sums; slower)\n"
          "  --help, -h                this text\n\n"
          "Porta options (also as environment variables):\n"
          "  --porta-backend=serial|openmp|cuda   PORTA_BACKEND\n"
          "  --porta-threads=N                    PORTA_NUM_THREADS\n"
          "  --porta-device=N                     PORTA_DEVICE_ID (default: local rank)\n"
          "  --porta-deterministic[=0|1]          PORTA_DETERMINISTIC\n"
          "  --porta-profile[=0|1]                PORTA_PROFILE (per-kernel time table)\n",
          description, program, default_input, default_output);
}
