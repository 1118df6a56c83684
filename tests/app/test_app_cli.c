/** @file test_app_cli.c
 *  The shared command line (app_cli): every accepted form of an app option (-nx 30, --nx 30,
 *  nx=30, --nx=30, -nx=30, nx:30), the last value of a key wins, the common options next to
 *  app options, unknown options / missing values / bad values refused with a message naming
 *  the option, a deck (takes_input) versus no deck (miniFE-like), and a usage text that lists
 *  the app's options and holds Porta's own option text exactly once. Aliases (-s for --size),
 *  switches without a value, `-o` taken by an app option (miniMD's YAML switch) and a long
 *  name for the deck (--input_file) as miniMD uses them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_cli.h"
#include "porta/porta.h"

#include "app_expect.h"

/* What the options set, and how often each setter ran. */
typedef struct opts {
  long nx, ny;
  char name[64];
  int calls_nx, calls_ny, calls_name;
} opts;

static int set_long(void *user, const char *key, const char *value) {
  opts *o = (opts *)user;
  char *end = NULL;
  long v = strtol(value, &end, 10);
  if (*end || v <= 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "set_long", key,
                       "'%s' is not a positive integer", value);
  if (!strcmp(key, "nx")) o->nx = v, ++o->calls_nx;
  if (!strcmp(key, "ny")) o->ny = v, ++o->calls_ny;
  return PORTA_SUCCESS;
}

static int set_name(void *user, const char *key, const char *value) {
  opts *o = (opts *)user;
  (void)key;
  if (!strcmp(value, "silent-fail")) return PORTA_ERROR_INVALID_ARGUMENT; /* no message */
  snprintf(o->name, sizeof o->name, "%s", value);
  ++o->calls_name;
  return PORTA_SUCCESS;
}

static const app_cli_option options[] = {
    {"nx", "N", "cells along x", set_long, NULL, 0},
    {"ny", "N", "cells along y", set_long, NULL, 0},
    {"name", "TEXT", "a free-form label", set_name, NULL, 0},
};

static opts g_opts;
static app_cli_spec spec_for(int takes_input) {
  app_cli_spec s;
  memset(&s, 0, sizeof s);
  s.program = "testapp";
  s.description = "A test app";
  s.default_input = "deck.in";
  s.default_output = "testapp";
  s.takes_input = takes_input;
  s.options = options;
  s.noptions = 3;
  s.user = &g_opts;
  return s;
}

/* Parse the NULL-terminated words (argv[0] = "testapp") with a fresh opts. */
static int run(int takes_input, app_cli *cli, const char *const *words) {
  char *argv[32];
  int argc = 0;
  argv[argc++] = (char *)"testapp";
  for (; *words; ++words) argv[argc++] = (char *)*words;
  argv[argc] = NULL;
  memset(&g_opts, 0, sizeof g_opts);
  porta_error_clear();
  app_cli_spec s = spec_for(takes_input);
  return app_cli_parse(argc, argv, &s, cli);
}

/* A refused command line: the code and a message naming `what`. */
static void expect_refused(int takes_input, const char *const *words, const char *what,
                           const char *context) {
  app_cli cli;
  int rc = run(takes_input, &cli, words);
  const char *m = porta_last_error_message();
  EXPECT(rc == PORTA_ERROR_INVALID_ARGUMENT, "%s: rc %d", context, rc);
  EXPECT(strstr(m, what) != NULL, "%s: message '%s' does not name '%s'", context, m, what);
  printf("  %s -> %s\n", context, m);
}

/** The usage text of `spec` (to free), through a temporary file; "" when that fails (and the
 *  failure is counted). */
static char *usage_text(const app_cli_spec *spec) {
  FILE *f = tmpfile();
  EXPECT(f != NULL, "tmpfile");
  if (!f) return (char *)calloc(1, 1);
  app_cli_usage(f, spec);
  long n = ftell(f);
  rewind(f);
  char *text = (char *)calloc((size_t)n + 1, 1);
  size_t got = fread(text, 1, (size_t)n, f);
  fclose(f);
  EXPECT(got == (size_t)n, "read back %zu of %ld", got, n);
  return text;
}

static int count_of(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) ++n;
  return n;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  app_cli cli;

  /* every form, with and without a deck */
  const char *const forms[][3] = {{"-nx", "30", NULL},    {"--nx", "30", NULL},
                                  {"nx=30", NULL, NULL},  {"--nx=30", NULL, NULL},
                                  {"-nx=30", NULL, NULL}, {"nx:30", NULL, NULL}};
  for (int t = 0; t < 2; ++t)
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
      int rc = run(t, &cli, forms[f]);
      EXPECT(rc == PORTA_SUCCESS && g_opts.nx == 30 && g_opts.calls_nx == 1 && g_opts.ny == 0,
             "form %s%s%s (takes_input %d): rc %d nx %ld calls %d: %s", forms[f][0],
             forms[f][1] ? " " : "", forms[f][1] ? forms[f][1] : "", t, rc, g_opts.nx,
             g_opts.calls_nx, porta_last_error_message());
      EXPECT(!cli.input_given, "form %s: taken as the deck", forms[f][0]);
    }

  /* last wins, across forms; each setter runs once, with the last value */
  {
    const char *w[] = {"--nx", "5", "ny:7", "nx=6", "-ny=8", "-nx", "9", NULL};
    int rc = run(0, &cli, w);
    EXPECT(rc == PORTA_SUCCESS && g_opts.nx == 9 && g_opts.ny == 8, "last wins: nx %ld ny %ld",
           g_opts.nx, g_opts.ny);
    EXPECT(g_opts.calls_nx == 1 && g_opts.calls_ny == 1, "setters ran %d / %d times",
           g_opts.calls_nx, g_opts.calls_ny);
  }
  /* an earlier bad value is overridden, values may contain '=' and ':' and start with '-' */
  {
    const char *w[] = {"nx=oops", "nx=4", "--name", "-a=b:c", NULL};
    int rc = run(0, &cli, w);
    EXPECT(rc == PORTA_SUCCESS && g_opts.nx == 4 && !strcmp(g_opts.name, "-a=b:c"),
           "rc %d nx %ld name '%s': %s", rc, g_opts.nx, g_opts.name, porta_last_error_message());
  }

  /* common options together with app options and a deck */
  {
    const char *w[] = {"--reproducible", "nx=3", "my.in", "-o", "res.h5", "--no-h5", NULL};
    int rc = run(1, &cli, w);
    EXPECT(rc == PORTA_SUCCESS, "common options: %s", porta_last_error_message());
    EXPECT(cli.reproducible && cli.no_h5 && !cli.help, "flags");
    EXPECT(cli.input_given && !strcmp(cli.input, "my.in"), "deck '%s'", cli.input);
    EXPECT(!strcmp(cli.output, "res"), "output '%s'", cli.output);
    EXPECT(g_opts.nx == 3, "nx %ld", g_opts.nx);
  }
  /* --sums: exact or ordinary, the app's default without it, exact with --reproducible */
  {
    const char *none[] = {NULL}, *ex[] = {"--sums", "exact", NULL},
               *ord[] = {"--sums=ordinary", NULL}, *rep[] = {"--reproducible", NULL},
               *both[] = {"--reproducible", "--sums=exact", NULL},
               *last[] = {"--sums=exact", "--sums", "ordinary", NULL};
    EXPECT(run(0, &cli, none) == PORTA_SUCCESS && !cli.exact_sums,
           "ordinary by this app's default");
    EXPECT(run(0, &cli, ex) == PORTA_SUCCESS && cli.exact_sums, "--sums exact");
    EXPECT(run(0, &cli, ord) == PORTA_SUCCESS && !cli.exact_sums, "--sums=ordinary");
    EXPECT(run(0, &cli, rep) == PORTA_SUCCESS && cli.exact_sums && cli.reproducible,
           "--reproducible sums exactly");
    EXPECT(run(0, &cli, both) == PORTA_SUCCESS && cli.exact_sums, "--reproducible --sums=exact");
    EXPECT(run(0, &cli, last) == PORTA_SUCCESS && !cli.exact_sums, "the last --sums wins");
    app_cli_spec exact_app = spec_for(0);
    exact_app.sums_by_default = APP_SUMS_EXACT;
    char *argv1[] = {(char *)"testapp", NULL},
         *argv2[] = {(char *)"testapp", (char *)"--sums=ordinary", NULL};
    EXPECT(app_cli_parse(1, argv1, &exact_app, &cli) == PORTA_SUCCESS && cli.exact_sums,
           "exact by the app's default");
    EXPECT(app_cli_parse(2, argv2, &exact_app, &cli) == PORTA_SUCCESS && !cli.exact_sums,
           "--sums=ordinary overrides an exact default");
    char *text = usage_text(&exact_app);
    EXPECT(strstr(text, "--sums exact|ordinary") && strstr(text, "(default here: exact)"),
           "--sums and the app's default in the usage text");
    free(text);
    /* exact but over several GPUs: the run's default follows where its ranks are */
    app_cli_spec gpus_app = spec_for(0);
    gpus_app.sums_by_default = APP_SUMS_EXACT_BUT_GPUS;
    EXPECT(app_cli_parse(1, argv1, &gpus_app, &cli) == PORTA_SUCCESS && cli.exact_sums &&
               app_cli_exact_sums(&cli, &gpus_app, 0) && !app_cli_exact_sums(&cli, &gpus_app, 1),
           "exact by default, ordinary by default over several GPUs");
    EXPECT(app_cli_parse(2, argv2, &gpus_app, &cli) == PORTA_SUCCESS &&
               !app_cli_exact_sums(&cli, &gpus_app, 0),
           "--sums=ordinary overrides the default on one GPU or none");
    char *argv3[] = {(char *)"testapp", (char *)"--sums", (char *)"exact", NULL},
         *argv4[] = {(char *)"testapp", (char *)"--reproducible", NULL};
    EXPECT(app_cli_parse(3, argv3, &gpus_app, &cli) == PORTA_SUCCESS &&
               app_cli_exact_sums(&cli, &gpus_app, 1),
           "--sums exact holds over several GPUs");
    EXPECT(app_cli_parse(2, argv4, &gpus_app, &cli) == PORTA_SUCCESS &&
               app_cli_exact_sums(&cli, &gpus_app, 1),
           "--reproducible holds over several GPUs");
    EXPECT(app_cli_parse(1, argv1, &exact_app, &cli) == PORTA_SUCCESS &&
               app_cli_exact_sums(&cli, &exact_app, 1),
           "an exact default holds over several GPUs");
    text = usage_text(&gpus_app);
    EXPECT(strstr(text, "(default here: exact;") &&
               strstr(text, "ordinary with several ranks on GPUs)"),
           "the default over several GPUs in the usage text");
    free(text);
    const char *bad[] = {"--sums=fast", NULL}, *bare[] = {"--sums", NULL},
               *clash[] = {"--sums", "ordinary", "--reproducible", NULL};
    expect_refused(0, bad, "'fast' is not a kind of sums: exact or ordinary", "--sums=fast");
    expect_refused(0, bare, "--sums", "--sums without a value");
    expect_refused(0, clash, "--reproducible needs exact sums", "--reproducible --sums ordinary");
  }
  {
    const char *w[] = {"--in=a.in", "--out=x", "-h", NULL};
    int rc = run(1, &cli, w);
    EXPECT(rc == PORTA_SUCCESS && cli.help && !strcmp(cli.input, "a.in") &&
               !strcmp(cli.output, "x"),
           "--in= --out= -h: %s", porta_last_error_message());
  }
  {
    const char *w[] = {NULL};
    int rc = run(1, &cli, w);
    EXPECT(rc == PORTA_SUCCESS && !cli.input_given && !strcmp(cli.input, "deck.in") &&
               !strcmp(cli.output, "testapp"),
           "defaults");
    rc = run(0, &cli, w);
    EXPECT(rc == PORTA_SUCCESS && cli.input == NULL, "no deck without takes_input");
  }

  /* the run summary's JSON file, both forms; none by default */
  {
    const char *w[] = {"--summary-json", "a.json", NULL};
    int rc = run(0, &cli, w);
    EXPECT(rc == PORTA_SUCCESS && !strcmp(cli.summary_json, "a.json"), "--summary-json: '%s' %s",
           cli.summary_json, porta_last_error_message());
    const char *w2[] = {"--summary-json=b.json", NULL};
    rc = run(0, &cli, w2);
    EXPECT(rc == PORTA_SUCCESS && !strcmp(cli.summary_json, "b.json"), "--summary-json=: '%s'",
           cli.summary_json);
    const char *w3[] = {NULL};
    rc = run(0, &cli, w3);
    EXPECT(rc == PORTA_SUCCESS && cli.summary_json[0] == '\0', "summary by default");
  }
  {
    const char *w[] = {"--summary-json", NULL};
    expect_refused(0, w, "--summary-json", "--summary-json without a file");
  }
  {
    const char *w[] = {"--summary-json=", NULL};
    expect_refused(0, w, "--summary-json=", "an empty summary file name");
  }

  /* refusals name the option */
  {
    const char *w[] = {"--bogus", NULL};
    expect_refused(1, w, "--bogus", "unknown option");
  }
  {
    const char *w[] = {"nz=3", NULL};
    expect_refused(0, w, "nz=3", "unknown key=value without a deck");
  }
  {
    const char *w[] = {"stray", NULL};
    expect_refused(0, w, "stray", "a bare word without a deck");
  }
  {
    const char *w[] = {"--in", "a.in", NULL};
    expect_refused(0, w, "--in", "--in without a deck");
  }
  {
    const char *w[] = {"--nx", NULL};
    expect_refused(0, w, "nx", "missing value (last argument)");
  }
  {
    const char *w[] = {"nx=", NULL};
    expect_refused(1, w, "nx", "empty value");
  }
  {
    const char *w[] = {"nx", NULL};
    expect_refused(0, w, "nx", "a key alone");
  }
  {
    const char *w[] = {"-o", NULL};
    expect_refused(1, w, "-o", "missing --out value");
  }
  {
    /* an option where the name belongs: it had become the output's name */
    const char *w1[] = {"--out", "--no-h5", NULL},
               *w2[] = {"--summary-json", "--reproducible", NULL};
    expect_refused(0, w1, "'--no-h5' is an option, not a file name", "--out --no-h5");
    expect_refused(0, w2, "'--reproducible' is an option", "--summary-json --reproducible");
  }
  {
    /* only a directory: it had written "/.h5", "..h5" */
    const char *names[] = {"/", "--out=.", "--out=..", "--out=runs/", "--out=runs/.h5"};
    for (int k = 0; k < 5; ++k) {
      const char *w[] = {k ? names[k] : "--out", k ? NULL : names[0], NULL};
      expect_refused(0, w, "must end in a file name", names[k]);
    }
  }
  {
    const char *w[] = {"a.in", "b.in", NULL};
    expect_refused(1, w, "b.in", "two decks");
  }
  {
    const char *w[] = {"nx=-2", NULL};
    expect_refused(0, w, "nx", "value refused by the setter");
    EXPECT(strstr(porta_last_error_message(), "-2") != NULL, "setter's message");
  }
  {
    const char *w[] = {"--name", "silent-fail", NULL};
    expect_refused(0, w, "name", "setter without a message");
  }
  {
    /* nothing is applied when the command line is bad further on */
    const char *w[] = {"nx=3", "--bogus", NULL};
    app_cli c2;
    run(0, &c2, w);
    EXPECT(g_opts.calls_nx == 0, "a setter ran before the command line was checked");
  }

  /* usage: app options, then Porta's text exactly once */
  {
    app_cli_spec s = spec_for(1);
    char *text = usage_text(&s);
    const char *porta = porta_help_text();
    EXPECT(porta && porta[0] && count_of(text, porta) == 1, "Porta's text %d times",
           count_of(text, porta));
    EXPECT(count_of(text, "--porta-backend") == 1, "--porta-backend %d times",
           count_of(text, "--porta-backend"));
    EXPECT(strstr(text, "A test app") && strstr(text, "--in FILE") && strstr(text, "deck.in"),
           "common part");
    const char *nx = strstr(text, "--nx N"), *name = strstr(text, "--name TEXT");
    EXPECT(nx && strstr(nx, "cells along x") && name && strstr(name, "a free-form label"),
           "app options in the usage text");
    EXPECT(nx && strstr(text, porta) > nx, "app options before Porta's");
    free(text);
  }
  {
    app_cli_spec s = spec_for(0);
    s.noptions = 0;
    char *text = usage_text(&s);
    EXPECT(!strstr(text, "DECK") && count_of(text, porta_help_text()) == 1, "no deck usage");
    free(text);
  }

  /* environment switches: listed in the usage (the app's, then apps/common's) and checked: a
     value outside them is refused with the variable's name (MINIMD_OVERLAP=2 had been ignored) */
  {
    static const app_env_switch env[] = {{"TESTAPP_SWITCH", "0|1", "a test switch"},
                                         {"TESTAPP_MODE", "fast|exact-sum", "a test mode"}};
    app_cli_spec s = spec_for(1);
    s.env = env;
    s.nenv = 2;
    char *text = usage_text(&s);
    const char *sw = strstr(text, "TESTAPP_SWITCH=0|1"),
               *tr = strstr(text, "APP_EXCHANGE_TRANSPORT=");
    EXPECT(sw && strstr(sw, "a test switch") && tr && tr > sw &&
               strstr(text, porta_help_text()) > tr,
           "environment switches in the usage text");
    free(text);
    unsetenv("TESTAPP_SWITCH");
    unsetenv("TESTAPP_MODE");
    EXPECT(app_env_check(env, 2) == PORTA_SUCCESS, "unset switches");
    static const char *const good[][2] = {{"0", "fast"}, {"1", "exact-sum"}, {"", ""}};
    for (int k = 0; k < 3; ++k) {
      setenv("TESTAPP_SWITCH", good[k][0], 1);
      setenv("TESTAPP_MODE", good[k][1], 1);
      EXPECT(app_env_check(env, 2) == PORTA_SUCCESS, "'%s', '%s' refused", good[k][0], good[k][1]);
    }
    static const char *const bad[][3] = {{"2", "fast", "TESTAPP_SWITCH='2'"},
                                         {"1", "exact", "TESTAPP_MODE='exact'"},
                                         {"1", "fast|exact-sum", "TESTAPP_MODE='fast|exact-sum'"},
                                         {"yes", "fast", "TESTAPP_SWITCH='yes'"},
                                         {"01", "fast", "TESTAPP_SWITCH='01'"},
                                         {"1\a", "fast", "TESTAPP_SWITCH='1?'"}};
    for (int k = 0; k < 6; ++k) {
      setenv("TESTAPP_SWITCH", bad[k][0], 1);
      setenv("TESTAPP_MODE", bad[k][1], 1);
      porta_error_clear();
      EXPECT(app_env_check(env, 2) == PORTA_ERROR_INVALID_ARGUMENT, "%s accepted", bad[k][2]);
      EXPECT(strstr(porta_last_error_message(), bad[k][2]) &&
                 strstr(porta_last_error_message(), "is none of the values it takes"),
             "message: %s", porta_last_error_message());
    }
    unsetenv("TESTAPP_SWITCH");
    unsetenv("TESTAPP_MODE");
    setenv("APP_EXCHANGE_TRANSPORT", "cuda_ipc", 1);
    EXPECT(app_env_check(app_env_common, app_env_ncommon) == PORTA_ERROR_INVALID_ARGUMENT &&
               strstr(porta_last_error_message(), "(auto|pinned-host|cuda-ipc|cuda-aware-mpi)"),
           "APP_EXCHANGE_TRANSPORT=cuda_ipc: %s", porta_last_error_message());
    unsetenv("APP_EXCHANGE_TRANSPORT");
  }

  /* miniMD's shapes: aliases, a switch, -o owned by the app, --input_file */
  {
    static const app_cli_option md[] = {
        {"size", "N", "cells", set_long, "s", 0},
        {"yaml_output", "0|1", "YAML", set_long, "o", 0},
        {"check", NULL, "a switch", set_name, NULL, 1},
    };
    app_cli_spec s = spec_for(1);
    s.options = md;
    s.noptions = 3;
    s.input_long = "input_file";
    /* set_long stores keys nx/ny only: count the calls through the name switch instead */
    const char *w[] = {"-s",           "7",     "-o",    "1", "--check",
                       "--input_file", "md.in", "--out", "r", NULL};
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)"testapp";
    for (const char *const *p = w; *p; ++p) argv[argc++] = (char *)*p;
    memset(&g_opts, 0, sizeof g_opts);
    int rc = app_cli_parse(argc, argv, &s, &cli);
    EXPECT(rc == PORTA_SUCCESS, "miniMD forms: %s", porta_last_error_message());
    EXPECT(cli.input_given && !strcmp(cli.input, "md.in"), "--input_file: deck '%s'", cli.input);
    EXPECT(!strcmp(cli.output, "r"), "-o went to the app, --out to the output ('%s')", cli.output);
    EXPECT(g_opts.calls_name == 1 && !strcmp(g_opts.name, "1"), "switch: %d calls, '%s'",
           g_opts.calls_name, g_opts.name);
    /* a switch takes no value */
    const char *bad[] = {"testapp", "--check=2", NULL};
    rc = app_cli_parse(2, (char **)bad, &s, &cli);
    EXPECT(rc == PORTA_ERROR_INVALID_ARGUMENT, "--check=2 accepted as a switch (rc %d)", rc);
    /* without an app option named o, -o is the output */
    const char *w2[] = {"testapp", "-o", "z", NULL};
    app_cli_spec s2 = spec_for(1);
    rc = app_cli_parse(3, (char **)w2, &s2, &cli);
    EXPECT(rc == PORTA_SUCCESS && !strcmp(cli.output, "z"), "-o NAME: '%s'", cli.output);
    /* the usage names the alias */
    char *text = usage_text(&s);
    EXPECT(strstr(text, "-s, --size N") && strstr(text, "-o, --yaml_output") &&
               strstr(text, "--input_file"),
           "usage with aliases:\n%s", text);
    free(text);
  }

  printf("test_app_cli: %s (%d failures)\n", fails ? "FAIL" : "OK", fails);
  MPI_Finalize();
  return fails != 0;
}
