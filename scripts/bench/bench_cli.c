/** @file bench_cli.c
 *  The benchmarks' command line (bench_cli.h). */
#include "bench_cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int parse_i64(const char *s, int64_t lo, int64_t *out) {
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || v < lo) return 0;
  *out = v;
  return 1;
}

/** --only's comma list; 0, or 2 naming an unknown entry. */
static int parse_only(const char *p, const bench_cli_spec *spec, bench_cli *cli) {
  for (int k = 0; k < spec->nonly; ++k) cli->only[k] = 0;
  while (*p) {
    size_t len = strcspn(p, ",");
    int found = 0;
    for (int k = 0; k < spec->nonly; ++k)
      if (strlen(spec->only_names[k]) == len && !strncmp(p, spec->only_names[k], len))
        cli->only[k] = found = 1;
    if (!found) {
      fprintf(stderr, "%s: unknown benchmark '%.*s' in --only\n", spec->prog, (int)len, p);
      spec->usage(stderr);
      return 2;
    }
    p += len;
    if (*p == ',') ++p;
  }
  return 0;
}

int bench_cli_parse(int argc, char **argv, const bench_cli_spec *spec, bench_cli *cli) {
  int64_t v;
  for (int k = 0; k < spec->nonly; ++k) cli->only[k] = 1;
  for (int a = 1; a < argc; ++a) {
    const char *s = argv[a];
    if (!strncmp(s, "--n=", 4) && parse_i64(s + 4, spec->n_min, &v)) {
      cli->n = v;
    } else if (!strncmp(s, "--reps=", 7) && parse_i64(s + 7, 1, &v) && v < spec->reps_limit) {
      cli->reps = (int)v;
    } else if (!strncmp(s, "--stencil=", 10) && parse_i64(s + 10, 1, &v)) {
      cli->stencil_side = v;
    } else if (!strncmp(s, "--spmv=", 7) && parse_i64(s + 7, 2, &v) && v <= 46340) {
      cli->spmv_side = v;
    } else if (spec->has_atoms && !strncmp(s, "--atoms=", 8) && parse_i64(s + 8, 257, &v) &&
               v < INT32_MAX) {
      cli->atoms = v;
    } else if (!strncmp(s, "--only=", 7)) {
      if (parse_only(s + 7, spec, cli)) return 2;
    } else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      spec->usage(stdout);
      return 1;
    } else {
      fprintf(stderr, "%s: bad option '%s'\n", spec->prog, s);
      spec->usage(stderr);
      return 2;
    }
  }
  return 0;
}
