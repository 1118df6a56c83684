/** @file app_cli.h
 *  Command-line handling shared by the apps. Porta's own options (--porta-backend, -threads,
 *  -device, -deterministic, -profile) are consumed by porta_initialize before this runs; what
 *  is left is parsed here. The options every app has:
 *    --help | -h                  usage
 *    --in FILE | -i FILE | FILE   the input deck (one positional argument; only for apps whose
 *                                 spec says takes_input)
 *    --out NAME | -o NAME         output name: NAME.h5 (and NAME.xmf) ("NAME.h5" is accepted too);
 *                                 refused unless NAME.xmf fits the directory's longest file name
 *                                 (app_file_name_max), except with --no-h5
 *    --reproducible               bitwise rank/thread-count independent results (exact sums)
 *    --sums exact|ordinary        the global sums exact (correctly rounded, in any order) or
 *                                 ordinary; the app's spec says which is its default
 *    --no-h5                      do not write the HDF5 result file
 *    --summary-json FILE          the run summary as JSON too (app_summary.h); "-": standard
 *                                 output
 *  and the app's own options (app_cli_option), each accepted in the reference miniFE's forms:
 *  `-KEY VALUE`, `--KEY VALUE`, `KEY=VALUE`, `--KEY=VALUE`, `-KEY=VALUE` and `KEY:VALUE`. A key
 *  given more than once: the last value wins. The common options take precedence over an app
 *  option of the same name, except `-o`, which belongs to an app option named or aliased "o"
 *  where there is one (miniMD's YAML switch; --out stays the output name).
 */
#ifndef APP_CLI_H
#define APP_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "app_env.h"
#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

/** The longest path the apps keep whole (Linux's PATH_MAX): --out, --summary-json, and the
 *  names made from them. A longer one is refused, never cut short. */
#define APP_PATH_MAX 4096

/** One app-specific option. */
typedef struct app_cli_option {
  const char *key;        /**< "nx" (no dashes) */
  const char *value_name; /**< shown in the usage text: "N" */
  const char *help;       /**< one line for the usage text */
  /** Store `value` (never NULL or empty) for `key`. Returns a Porta code; on failure it records
   *  a message with porta_error (app_cli_parse adds a generic one naming the option if not). */
  int (*set)(void *user, const char *key, const char *value);
  const char *alias; /**< optional second name, in the same forms ("s" for "size"); NULL: none */
  int flag;          /**< takes no value: given, its set() receives "1" */
} app_cli_option;

/** An app's global sums without --sums or --reproducible (app_cli_spec.sums_by_default). */
typedef enum app_sums_default {
  APP_SUMS_ORDINARY = 0, /**< ordinary */
  APP_SUMS_EXACT = 1,    /**< exact */
  /** exact, but ordinary where the run has several ranks on GPUs (a device back end and more
   *  than one rank; two ranks sharing a GPU too): there each exact sum is a
   *  kernel boundary more (5-7 % of a CG iteration on two H200s) */
  APP_SUMS_EXACT_BUT_GPUS = 2
} app_sums_default;

/** What an app's command line looks like. */
typedef struct app_cli_spec {
  const char *program;        /**< "tealeaf" */
  const char *description;    /**< first line of the usage text */
  const char *default_input;  /**< deck used without --in (takes_input only) */
  const char *default_output; /**< result name without --out */
  int takes_input;            /**< an input deck (TeaLeaf) or none (miniFE) */
  const char *input_long;     /**< another long name of --in ("input_file"); NULL: none */
  const app_cli_option *options;
  int noptions;
  void *user;                /**< passed to every option's set() */
  const app_env_switch *env; /**< the app's environment switches, checked at start-up */
  int nenv;
  /** The app's sums without --sums or --reproducible: exact where they cost at most 5 % of a
   *  run on its shipped decks, ordinary where exact ones cost more (docs/design-notes.md,
   *  "Which app sums exactly by default"). */
  app_sums_default sums_by_default;
} app_cli_spec;

typedef struct app_cli {
  int sums_given;    /**< --sums exact (1) or ordinary (0), or --reproducible (1); -1: neither */
  const char *input; /**< deck path (spec->default_input unless given; NULL without takes_input) */
  int input_given;   /**< the deck was named on the command line */
  char output[APP_PATH_MAX]; /**< output base name without ".h5" */
  int reproducible;
  /** The global sums are exact: --reproducible, --sums exact, or the default (app_cli_parse
   *  takes the default of a run on one GPU or none; app_begin that of the run it starts). */
  int exact_sums;
  int help;
  int no_h5;
  char summary_json[APP_PATH_MAX]; /**< --summary-json FILE ("": none) */
} app_cli;

/** Parse argv[1..argc-1] by `spec`. App options are applied once each, after the whole command
 *  line was read (so a bad argument anywhere is reported before any set() runs), with their last
 *  value and in the order of spec->options. Unknown options, missing or empty values, a second
 *  deck, and --reproducible with --sums ordinary are refused. Returns a Porta code
 * (PORTA_ERROR_INVALID_ARGUMENT, or what a set() returned) with a message naming the option in
 * porta_last_error_message(). */
int app_cli_parse(int argc, char **argv, const app_cli_spec *spec, app_cli *cli);

/** Whether `cli`'s sums are exact: as --reproducible or --sums say, else as spec's default says
 *  for a run that has (several_gpus non-zero) or has not several ranks on GPUs. */
int app_cli_exact_sums(const app_cli *cli, const app_cli_spec *spec, int several_gpus);

/** Print the usage text: the description, the common options, the app's options (key, value
 *  name, help) and Porta's options (porta_help_text()). */
void app_cli_usage(FILE *out, const app_cli_spec *spec);

/** An option's value as a whole number in [lo, hi] into *out (for an option's set()), or
 *  PORTA_ERROR_INVALID_ARGUMENT from `app` naming `key`, with the message "<prefix><key>:
 *  '<value>' is not a whole number in lo..hi". */
int app_cli_int(const char *app, const char *prefix, const char *key, const char *value, int64_t lo,
                int64_t hi, int64_t *out);

PORTA_EXTERN_C_END

#endif /* APP_CLI_H */
