/** @file app_cli.c
 *  Command-line handling (see app_cli.h). */
#include "app_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_file.h"
#include "porta/porta.h"

static const char cli_op[] = "app_cli_parse";

/** A file name given where an option was taken for it ("--out --no-h5"): refused. */
static int not_an_option(const char *arg, const char *value) {
  if (value && value[0] == '-' && value[1] == '-')
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, arg,
                       "'%s' is an option, not a file name: %s needs a name", value, arg);
  return PORTA_SUCCESS;
}

static int set_output(app_cli *cli, const char *name) {
  /* room for ".xmf" and the temporary's ".h5.tmp.PID.RANDOM" after it (app_h5.h) */
  if (name && strlen(name) > APP_PATH_MAX - 64)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, name,
                       "an output name of %zu characters: at most %d are kept (a path may have "
                       "%d, with the results' endings)",
                       strlen(name), APP_PATH_MAX - 64, APP_PATH_MAX);
  snprintf(cli->output, sizeof cli->output, "%s", name ? name : "");
  size_t n = strlen(cli->output);
  if (n > 3 && strcmp(cli->output + n - 3, ".h5") == 0) cli->output[n - 3] = '\0';
  if (!cli->output[0])
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, name, "empty output name");
  /* a name, not only a directory: "/", "dir/", "." or ".." would write ".h5" files there */
  const char *slash = strrchr(cli->output, '/');
  const char *base = slash ? slash + 1 : cli->output;
  if (!base[0] || !strcmp(base, ".") || !strcmp(base, ".."))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, name,
                       "the output name must end in a file name (NAME gives NAME.h5), not '%s'",
                       base);
  return PORTA_SUCCESS;
}

/* The results' own names (NAME.h5, NAME.xmf: the longer) must fit the directory's longest file
 * name, or the run would fail at its end. Their temporaries fit wherever they do (app_file.h). */
static int output_fits(const app_cli *cli) {
  const char *slash = strrchr(cli->output, '/');
  const size_t base = strlen(slash ? slash + 1 : cli->output) + strlen(".xmf");
  const size_t most = app_file_name_max(cli->output);
  if (base <= most) return PORTA_SUCCESS;
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, "--out",
                     "the result's file name '%s.xmf' would have %zu bytes: a file name may have "
                     "at most %zu here (--out NAME: NAME's last part at most %zu)",
                     slash ? slash + 1 : cli->output, base, most, most - strlen(".xmf"));
}

static int set_summary(app_cli *cli, const char *arg, const char *path) {
  if (!path || !path[0])
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, arg, "empty summary file name");
  const int n = snprintf(cli->summary_json, sizeof cli->summary_json, "%s", path);
  if (n < 0 || (size_t)n >= sizeof cli->summary_json)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, arg, "summary file name too long");
  return PORTA_SUCCESS;
}

static int set_input(app_cli *cli, const char *arg, const char *path) {
  if (cli->input_given)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, arg,
                       "more than one input deck given (the first was '%s')", cli->input);
  if (!path || !path[0])
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, arg, "empty input deck name");
  cli->input = path;
  cli->input_given = 1;
  return PORTA_SUCCESS;
}

/* An app option in `a` (argv[*i]): -KEY V, --KEY V, KEY=V, --KEY=V, -KEY=V or KEY:V (also with
 * dashes). Returns the option's index and sets *value (NULL: the value is missing), consuming
 * the next argument for the separate-value forms; -1 when `a` names no app option. */
static int match_option(const app_cli_spec *spec, int argc, char **argv, int *i,
                        const char **value) {
  const char *a = argv[*i], *key = a;
  int dashes = 0;
  while (*key == '-' && dashes < 2) ++key, ++dashes;
  size_t keylen = strcspn(key, "=:");
  for (int k = 0; k < spec->noptions; ++k) {
    const char *name = spec->options[k].key, *alias = spec->options[k].alias;
    const int named = name && strlen(name) == keylen && strncmp(key, name, keylen) == 0;
    if (!named && !(alias && strlen(alias) == keylen && strncmp(key, alias, keylen) == 0)) continue;
    if (spec->options[k].flag) { /* a switch: given means "1"; a value after '=' is refused */
      if (key[keylen] != '\0' || (dashes == 0 && spec->takes_input)) return -1;
      *value = "1";
    } else if (key[keylen] != '\0') { /* KEY=V, KEY:V */
      *value = key + keylen + 1;
    } else if (dashes > 0) { /* -KEY V, --KEY V */
      *value = *i + 1 < argc ? argv[++*i] : NULL;
    } else if (spec->takes_input) {
      return -1; /* a bare word: the deck */
    } else {
      *value = NULL;
    }
    return k;
  }
  return -1;
}

/* Hand the last value of every given app option to its set(). */
static int apply_options(const app_cli_spec *spec, const char **value, const char **arg) {
  for (int k = 0; k < spec->noptions; ++k) {
    if (!value[k]) continue;
    const app_cli_option *o = &spec->options[k];
    if (!o->set)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, arg[k], "option '%s' has no setter",
                         o->key);
    porta_error_clear();
    int rc = o->set(spec->user, o->key, value[k]);
    if (rc == PORTA_SUCCESS) continue;
    if (!porta_last_error_message()[0]) /* the setter gave no reason: name the option at least */
      rc = porta_error(rc, cli_op, arg[k], "bad value '%s' for option '%s'", value[k], o->key);
    return rc;
  }
  return PORTA_SUCCESS;
}

/* Does an app option take `-o` (named or aliased "o")? */
static int app_owns_o(const app_cli_spec *spec) {
  for (int k = 0; k < spec->noptions; ++k) {
    const app_cli_option *o = &spec->options[k];
    if ((o->key && !strcmp(o->key, "o")) || (o->alias && !strcmp(o->alias, "o"))) return 1;
  }
  return 0;
}

/* `a` is --NAME or -NAME for the input's long name */
static int is_input_long(const app_cli_spec *spec, const char *a) {
  if (!spec->takes_input || !spec->input_long || a[0] != '-') return 0;
  const char *k = a[1] == '-' ? a + 2 : a + 1;
  return !strcmp(k, spec->input_long);
}

/* --sums VALUE: *sums becomes 1 (exact) or 0 (ordinary) */
static int set_sums(int *sums, const char *arg, const char *value) {
  if (!strcmp(value, "exact") || !strcmp(value, "ordinary")) {
    *sums = value[0] == 'e';
    return PORTA_SUCCESS;
  }
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, arg,
                     "'%s' is not a kind of sums: exact or ordinary", value);
}

static int parse(int argc, char **argv, const app_cli_spec *spec, app_cli *cli, const char **value,
                 const char **arg, int *sums) {
  const int short_out = !app_owns_o(spec);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const int in =
        spec->takes_input && (!strcmp(a, "--in") || !strcmp(a, "-i") || is_input_long(spec, a));
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli->help = 1;
    } else if (!strcmp(a, "--reproducible")) {
      cli->reproducible = 1;
    } else if (!strcmp(a, "--no-h5")) {
      cli->no_h5 = 1;
    } else if (!strcmp(a, "--sums")) {
      if (i + 1 >= argc)
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, a, "option needs a value");
      PORTA_CHECK(not_an_option(a, argv[i + 1]));
      PORTA_CHECK(set_sums(sums, a, argv[++i]));
    } else if (!strncmp(a, "--sums=", 7)) {
      PORTA_CHECK(set_sums(sums, a, a + 7));
    } else if (in || !strcmp(a, "--out") || (short_out && !strcmp(a, "-o"))) {
      if (i + 1 >= argc)
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, a, "option needs a value");
      PORTA_CHECK(not_an_option(a, argv[i + 1]));
      PORTA_CHECK(in ? set_input(cli, a, argv[++i]) : set_output(cli, argv[++i]));
    } else if (!strcmp(a, "--summary-json")) {
      if (i + 1 >= argc)
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, a, "option needs a value");
      PORTA_CHECK(not_an_option(a, argv[i + 1]));
      PORTA_CHECK(set_summary(cli, a, argv[++i]));
    } else if (!strncmp(a, "--summary-json=", 15)) {
      PORTA_CHECK(set_summary(cli, a, a + 15));
    } else if (spec->takes_input && !strncmp(a, "--in=", 5)) {
      PORTA_CHECK(set_input(cli, a, a + 5));
    } else if (!strncmp(a, "--out=", 6)) {
      PORTA_CHECK(set_output(cli, a + 6));
    } else {
      const char *v = NULL;
      const int k = match_option(spec, argc, argv, &i, &v);
      if (k >= 0) {
        if (!v || !v[0])
          return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, a, "option '%s' needs a value",
                             spec->options[k].key);
        value[k] = v; /* the last one wins */
        arg[k] = a;
      } else if ((a[0] == '-' && a[1] != '\0') || !spec->takes_input) {
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, a, "unknown option (see --help)");
      } else {
        PORTA_CHECK(set_input(cli, a, a));
      }
    }
  }
  return apply_options(spec, value, arg);
}

int app_cli_parse(int argc, char **argv, const app_cli_spec *spec, app_cli *cli) {
  memset(cli, 0, sizeof *cli);
  cli->sums_given = -1;
  cli->input = spec->takes_input ? spec->default_input : NULL;
  PORTA_CHECK(set_output(cli, spec->default_output));
  if (spec->noptions < 0 || (spec->noptions > 0 && !spec->options))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, spec->program,
                       "bad option table (%d options)", spec->noptions);
  const size_t n = (size_t)(spec->noptions > 0 ? spec->noptions : 1);
  const char **value = (const char **)calloc(2 * n, sizeof *value); /* values, then their args */
  if (!value)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, cli_op, spec->program, "no memory for %d options",
                       spec->noptions);
  int sums = -1; /* not given */
  int rc = parse(argc, argv, spec, cli, value, value + n, &sums);
  free(value);
  if (rc != PORTA_SUCCESS) return rc;
  if (cli->reproducible && sums == 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, cli_op, "--sums ordinary",
                       "--reproducible needs exact sums: drop one of the two");
  cli->sums_given = cli->reproducible ? 1 : sums;
  cli->exact_sums = app_cli_exact_sums(cli, spec, 0);
  return cli->no_h5 ? PORTA_SUCCESS : output_fits(cli);
}

int app_cli_exact_sums(const app_cli *cli, const app_cli_spec *spec, int several_gpus) {
  if (cli->sums_given >= 0) return cli->sums_given;
  if (spec->sums_by_default == APP_SUMS_EXACT_BUT_GPUS) return !several_gpus;
  return spec->sums_by_default == APP_SUMS_EXACT;
}

/* The default's words in --help. */
static const char *sums_default_name(app_sums_default d) {
  if (d == APP_SUMS_EXACT_BUT_GPUS)
    return "exact;\n                            ordinary with several ranks on GPUs";
  return d == APP_SUMS_EXACT ? "exact" : "ordinary";
}

void app_cli_usage(FILE *out, const app_cli_spec *spec) {
  fprintf(out, "%s\n\nUsage: mpirun -np N %s [options]%s\n\n", spec->description, spec->program,
          spec->takes_input ? " [DECK]" : "");
  if (spec->takes_input)
    fprintf(out, "  DECK, --in FILE, -i FILE  input deck (default: %s)%s%s\n", spec->default_input,
            spec->input_long ? "; also --" : "", spec->input_long ? spec->input_long : "");
  fprintf(out,
          "  --out NAME%s       results in NAME.h5 (+ NAME.xmf) (default: %s)\n"
          "  --no-h5                   do not write the HDF5 result file\n"
          "  --summary-json FILE       the run summary (also /summary in the HDF5 file) as JSON\n"
          "                            (FILE -: standard output)\n"
          "  --reproducible            bitwise identical results for any rank and thread count\n"
          "                            (exact sums; slower)\n"
          "  --sums exact|ordinary     global sums exact (correctly rounded, the same in any\n"
          "                            order) or ordinary (default here: %s)\n"
          "  --help, -h                this text\n\n",
          app_owns_o(spec) ? "         " : ", -o NAME", spec->default_output,
          sums_default_name(spec->sums_by_default));
  if (spec->noptions > 0) {
    int width = 24;
    for (int k = 0; k < spec->noptions; ++k) {
      const app_cli_option *o = &spec->options[k];
      int w = 3 + (int)strlen(o->key) + (o->value_name ? (int)strlen(o->value_name) : 0) +
              (o->alias ? 3 + (int)strlen(o->alias) : 0);
      if (w > width) width = w;
    }
    fprintf(out, "%s options (also -KEY VALUE, KEY=VALUE, --KEY=VALUE, -KEY=VALUE, KEY:VALUE):\n",
            spec->program);
    for (int k = 0; k < spec->noptions; ++k) {
      const app_cli_option *o = &spec->options[k];
      char left[256];
      char name[96];
      if (o->alias)
        snprintf(name, sizeof name, "-%s, --%s", o->alias, o->key);
      else
        snprintf(name, sizeof name, "--%s", o->key);
      if (o->flag)
        snprintf(left, sizeof left, "%s", name);
      else
        snprintf(left, sizeof left, "%s %s", name, o->value_name ? o->value_name : "VALUE");
      fprintf(out, "  %-*s  %s\n", width, left, o->help ? o->help : "");
    }
    fputc('\n', out);
  }
  fputs("Environment (unset or empty: the default; another value is refused):\n", out);
  app_env_usage(out, spec->env, spec->nenv);
  app_env_usage(out, app_env_common, app_env_ncommon);
  fputc('\n', out);
  fputs(porta_help_text(), out);
}

int app_cli_int(const char *app, const char *prefix, const char *key, const char *value, int64_t lo,
                int64_t hi, int64_t *out) {
  char *end = NULL;
  errno = 0;
  long long x = strtoll(value, &end, 10);
  if (errno || end == value || *end != '\0' || x < lo || x > hi)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, app, key,
                       "%s%s: '%s' is not a whole number in %lld..%lld", prefix, key, value,
                       (long long)lo, (long long)hi);
  *out = x;
  return PORTA_SUCCESS;
}
