/** @file bench_cli.h
 *  The command line of porta-bench and porta-bench-gpu (bench_cli.c):
 *    --n=ELEMENTS --reps=K --only=LIST --stencil=SIDE --spmv=SIDE [--atoms=N] --help | -h
 *  Porta's own options (--porta-*) are consumed by porta_initialize before this runs.
 */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

/** Most names --only can take. */
#define BENCH_CLI_MAX_ONLY 16

/** What one program accepts. */
typedef struct bench_cli_spec {
  const char *prog;              /**< "porta-bench": the messages' prefix */
  int64_t n_min;                 /**< the smallest --n */
  int64_t reps_limit;            /**< --reps must be below this */
  int has_atoms;                 /**< --atoms=N is an option */
  const char *const *only_names; /**< the names --only takes */
  int nonly;                     /**< how many (at most BENCH_CLI_MAX_ONLY) */
  void (*usage)(FILE *out);      /**< the usage text */
} bench_cli_spec;

/** The values; bench_cli_parse keeps what the caller set where an option is not given. */
typedef struct bench_cli {
  int64_t n, stencil_side, spmv_side, atoms;
  int reps;
  int only[BENCH_CLI_MAX_ONLY]; /**< only[k]: only_names[k] selected (all, without --only) */
} bench_cli;

/** Parse argv[1..argc-1]. Returns 0 to run; 1 after --help (the usage on stdout); 2 for a bad
 *  option or an unknown --only name (the message and the usage on stderr). */
int bench_cli_parse(int argc, char **argv, const bench_cli_spec *spec, bench_cli *cli);

PORTA_EXTERN_C_END

#endif /* BENCH_CLI_H */
