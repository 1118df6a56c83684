/** @file test_options.c
 *  porta_initialize / porta_finalize and the error machinery: the `--porta-*` options are
 *  consumed from a synthetic argv (others kept, in order), the command line wins over
 *  PORTA_BACKEND / PORTA_NUM_THREADS, bad options and values are INVALID_ARGUMENT with
 *  messages naming them (and leave argv alone), a back end that is not compiled in is
 *  UNSUPPORTED, initialising twice is an error, finalize + initialize works; the error modes
 *  (return, print, abort, callback), error names and messages.
 *
 *  This program calls porta_initialize itself many times, so it does not use PT_BEGIN/PT_END;
 *  it exits with 1 when any check failed.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "harness.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** A writable argv (NULL-terminated, as main's) built from a list of strings. */
typedef struct {
  int argc;
  char **argv;
  char *store[32];
  char *orig[32];
} fake_args;

static void args_make(fake_args *a, const char *const *list) {
  a->argc = 0;
  while (list[a->argc]) {
    a->store[a->argc] = (char *)list[a->argc];
    ++a->argc;
  }
  a->store[a->argc] = NULL;
  memcpy(a->orig, a->store, sizeof a->store);
  a->argv = a->store;
}

/** The argv after initialisation equals `expect` (same pointers, NULL after the last). */
static void args_expect(const fake_args *a, const char *const *expect, const char *what) {
  int n = 0;
  while (expect[n]) ++n;
  if (a->argc != n) {
    char m[256];
    snprintf(m, sizeof m, "%s: argc is %d, expected %d", what, a->argc, n);
    pt_fail_(__FILE__, __LINE__, m);
    return;
  }
  for (int i = 0; i < n; ++i)
    if (!a->argv[i] || strcmp(a->argv[i], expect[i]) != 0) {
      char m[256];
      snprintf(m, sizeof m, "%s: argv[%d] is '%s', expected '%s'", what, i,
               a->argv[i] ? a->argv[i] : "(null)", expect[i]);
      pt_fail_(__FILE__, __LINE__, m);
    }
  if (a->argv[n] != NULL) pt_fail_(__FILE__, __LINE__, "argv[argc] is not NULL");
}

/** The argv is exactly as it was built (a failed initialisation leaves it alone). */
static void args_untouched(const fake_args *a, int argc0, const char *what) {
  if (a->argc != argc0 || memcmp(a->store, a->orig, sizeof a->store) != 0) {
    char m[256];
    snprintf(m, sizeof m, "%s: argc/argv were changed by a failed porta_initialize", what);
    pt_fail_(__FILE__, __LINE__, m);
  }
}

/** Environment variables the runtime reads, saved at start and restored after each test. */
static const char *const env_names[] = {"PORTA_BACKEND",         "PORTA_NUM_THREADS",
                                        "PORTA_DETERMINISTIC",   "PORTA_DEVICE_ID",
                                        "PORTA_CUDA_GRID_LIMIT", "PORTA_PROFILE"};
#define NUM_ENV 6
static char *env_saved[NUM_ENV];

static void env_save(void) {
  for (int k = 0; k < NUM_ENV; ++k) {
    const char *v = getenv(env_names[k]);
    env_saved[k] = v ? strdup(v) : NULL;
  }
}
static void env_restore(void) {
  for (int k = 0; k < NUM_ENV; ++k) {
    if (env_saved[k])
      setenv(env_names[k], env_saved[k], 1);
    else
      unsetenv(env_names[k]);
  }
}
static void env_clear(void) {
  for (int k = 0; k < NUM_ENV; ++k) unsetenv(env_names[k]);
}

/** Initialise with `list` as argv, expect `code`, and return it. */
static int init_with(const char *const *list, int code, const char *what) {
  fake_args a;
  args_make(&a, list);
  int argc0 = a.argc;
  porta_error_clear();
  int rc = porta_initialize(&a.argc, &a.argv);
  if (rc != code) {
    char m[1400];
    snprintf(m, sizeof m, "%s: porta_initialize returned %s, expected %s (%s)", what,
             porta_error_name(rc), porta_error_name(code), porta_last_error_message());
    pt_fail_(__FILE__, __LINE__, m);
  }
  if (rc != PORTA_SUCCESS) {
    args_untouched(&a, argc0, what);
    PT_EQ_I64(porta_is_initialized(), 0);
  }
  return rc;
}

/** Make sure Porta is finalised (after a test that may have left it initialised). */
static void finalize_if_needed(void) {
  if (porta_is_initialized()) PT_OK(porta_finalize());
}

/* ------------------------------------------------------------------------------------------ */
/* option parsing                                                                              */
/* ------------------------------------------------------------------------------------------ */

/* More than one thread needs OpenMP (without it, asking for 3 is UNSUPPORTED). */
#if defined(_OPENMP)
#define PT_THREADS "3"
#define PT_ENV_THREADS "2"
#else
#define PT_THREADS "1"
#define PT_ENV_THREADS "1"
#endif

static void test_consume_options(void) {
  static const char *const in[] = {"prog",
                                   "first",
                                   "--porta-threads=" PT_THREADS,
                                   "-x",
                                   "--porta-deterministic",
                                   "--not-porta=1",
                                   "--porta-backend=serial",
                                   "--porta-profile=0",
                                   "--porta-help",
                                   "--porta",
                                   "last",
                                   NULL};
  static const char *const out[] = {"prog",    "first", "-x", "--not-porta=1",
                                    "--porta", "last",  NULL};
  fake_args a;
  args_make(&a, in);
  char *kept_first = a.argv[1];
  PT_OK(porta_initialize(&a.argc, &a.argv));
  args_expect(&a, out, "consume");
  PT_CHECK(a.argv[1] == kept_first); /* the same strings, not copies */
  PT_EQ_I64(porta_is_initialized(), 1);
  PT_EQ_I64(porta_exec_default().backend, PORTA_BACKEND_SERIAL);
  PT_EQ_I64(porta_deterministic(), 1);
#if defined(_OPENMP)
  PT_EQ_I64(porta_num_threads(), 3);
#endif
  PT_OK(porta_finalize());
  PT_EQ_I64(porta_is_initialized(), 0);

  /* nothing to consume; only the program name; no argv at all */
  static const char *const plain[] = {"prog", "a", "b", NULL};
  args_make(&a, plain);
  PT_OK(porta_initialize(&a.argc, &a.argv));
  args_expect(&a, plain, "plain");
  PT_OK(porta_finalize());
  static const char *const only[] = {"prog", NULL};
  args_make(&a, only);
  PT_OK(porta_initialize(&a.argc, &a.argv));
  args_expect(&a, only, "only");
  PT_OK(porta_finalize());
  PT_OK(porta_initialize(NULL, NULL));
  PT_OK(porta_finalize());
  /* argc 0 (argv holds only its NULL): stays 0 */
  char *none[1] = {NULL};
  char **pnone = none;
  int zero = 0;
  PT_OK(porta_initialize(&zero, &pnone));
  PT_EQ_I64(zero, 0);
  PT_CHECK(pnone[0] == NULL);
  PT_OK(porta_finalize());
}

/** The command line wins over PORTA_BACKEND / PORTA_NUM_THREADS (which CTest sets). */
static void test_command_line_wins(void) {
  setenv("PORTA_BACKEND", "serial", 1);
  setenv("PORTA_NUM_THREADS", PT_ENV_THREADS, 1);
  setenv("PORTA_DETERMINISTIC", "1", 1);
  /* the environment alone */
  PT_OK(porta_initialize(NULL, NULL));
  PT_EQ_I64(porta_exec_default().backend, PORTA_BACKEND_SERIAL);
  PT_EQ_I64(porta_deterministic(), 1);
#if defined(_OPENMP)
  PT_EQ_I64(porta_num_threads(), 2);
#endif
  PT_OK(porta_finalize());
#if defined(_OPENMP)
  /* the command line over it */
  static const char *const in[] = {"prog", "--porta-backend=OpenMP", "--porta-threads=3",
                                   "--porta-deterministic=off", NULL};
  static const char *const out[] = {"prog", NULL};
  fake_args a;
  args_make(&a, in);
  PT_OK(porta_initialize(&a.argc, &a.argv));
  args_expect(&a, out, "override");
  PT_EQ_I64(porta_exec_default().backend, PORTA_BACKEND_OPENMP);
  PT_EQ_I64(porta_num_threads(), 3);
  PT_EQ_I64(porta_deterministic(), 0);
  PT_EQ_I64(porta_team_size_max(porta_exec_default(), porta_team_policy_make(1, 1, 1)), 3);
  PT_OK(porta_finalize());
  /* the long spelling, and the last of repeated options */
  static const char *const in2[] = {"prog", "--porta-num-threads=5", "--porta-threads=4", NULL};
  args_make(&a, in2);
  PT_OK(porta_initialize(&a.argc, &a.argv));
  PT_EQ_I64(a.argc, 1);
  PT_EQ_I64(porta_num_threads(), 4);
  PT_OK(porta_finalize());
  /* and the other way round: env openmp, command line serial */
  setenv("PORTA_BACKEND", "openmp", 1);
  static const char *const in3[] = {"prog", "--porta-backend=serial", NULL};
  args_make(&a, in3);
  PT_OK(porta_initialize(&a.argc, &a.argv));
  PT_EQ_I64(porta_exec_default().backend, PORTA_BACKEND_SERIAL);
  PT_OK(porta_finalize());
#endif
  /* a bad environment value is reported with the variable's name */
  env_clear();
  setenv("PORTA_NUM_THREADS", "many", 1);
  static const char *const prog[] = {"prog", NULL};
  init_with(prog, PORTA_ERROR_INVALID_ARGUMENT, "PORTA_NUM_THREADS=many");
  PT_MSG_HAS("PORTA_NUM_THREADS");
  PT_MSG_HAS("many");
  env_clear();
  setenv("PORTA_BACKEND", "gpu", 1);
  init_with(prog, PORTA_ERROR_INVALID_ARGUMENT, "PORTA_BACKEND=gpu");
  PT_MSG_HAS("PORTA_BACKEND");
  PT_MSG_HAS("gpu");
  env_restore();
  finalize_if_needed();
}

/* porta_settings_read: the rules of porta_initialize (the apps' restart reads the settings
   with it before MPI and OpenMP start), and argv left as it is */
static void test_settings_read(void) {
  porta_settings s;
  env_clear();
  static const char *const none[] = {"prog", "x", NULL};
  fake_args a;
  args_make(&a, none);
  PT_OK(porta_settings_read(a.argc, a.argv, &s));
  PT_EQ_I64(s.backend, -1);
  PT_EQ_I64(s.threads_asked, 0);
  PT_EQ_I64(s.deterministic, 0);
#if defined(_OPENMP)
  PT_EQ_I64(s.threads, omp_get_max_threads());
  /* blanks and a sign as strtol reads them, as porta_initialize takes them */
  setenv("PORTA_NUM_THREADS", " 3", 1);
  PT_OK(porta_settings_read(a.argc, a.argv, &s));
  PT_EQ_I64(s.threads, 3);
  PT_EQ_I64(s.threads_asked, 1);
  PT_OK(porta_initialize(NULL, NULL));
  PT_EQ_I64(porta_num_threads(), 3);
  PT_OK(porta_finalize());
  setenv("PORTA_NUM_THREADS", "+2", 1);
  PT_OK(porta_settings_read(a.argc, a.argv, &s));
  PT_EQ_I64(s.threads, 2);
  /* an empty variable is unset: OpenMP's own count */
  setenv("PORTA_NUM_THREADS", "", 1);
  PT_OK(porta_settings_read(a.argc, a.argv, &s));
  PT_EQ_I64(s.threads_asked, 0);
  PT_EQ_I64(s.threads, omp_get_max_threads());
  /* the last of an option wins over the environment; a back end's name in any case */
  setenv("PORTA_NUM_THREADS", "2", 1);
  setenv("PORTA_BACKEND", "Serial", 1);
  setenv("PORTA_DETERMINISTIC", "on", 1);
  static const char *const in[] = {"prog",
                                   "--porta-threads=1",
                                   "--porta-threads=3",
                                   "--porta-help",
                                   "--porta-backend=OpenMP",
                                   "y",
                                   NULL};
  args_make(&a, in);
  PT_OK(porta_settings_read(a.argc, a.argv, &s));
  PT_EQ_I64(s.threads, 3);
  PT_EQ_I64(s.backend, PORTA_BACKEND_OPENMP);
  PT_EQ_I64(s.deterministic, 1);
  args_untouched(&a, 6, "porta_settings_read");
  static const char *const in2[] = {"prog", NULL};
  args_make(&a, in2);
  PT_OK(porta_settings_read(a.argc, a.argv, &s));
  PT_EQ_I64(s.threads, 2);
  PT_EQ_I64(s.backend, PORTA_BACKEND_SERIAL);
#endif
  /* a bad value: porta_initialize's error */
  setenv("PORTA_NUM_THREADS", "many", 1);
  PT_EXPECT_CODE(porta_settings_read(a.argc, a.argv, &s), PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("PORTA_NUM_THREADS");
  PT_EXPECT_CODE(porta_settings_read(0, NULL, NULL), PORTA_ERROR_INVALID_ARGUMENT);
  env_restore();
  finalize_if_needed();
}

static void test_bad_options(void) {
  struct {
    const char *arg;
    const char *names[2];
  } cases[] = {
      {"--porta-threads=0", {"--porta-threads", "'0'"}},
      {"--porta-threads=abc", {"--porta-threads", "abc"}},
      {"--porta-threads=-2", {"--porta-threads", "-2"}},
      {"--porta-threads=3x", {"--porta-threads", "3x"}},
      {"--porta-threads=99999999999", {"--porta-threads", "99999999999"}},
      {"--porta-threads=", {"--porta-threads", "''"}},
      {"--porta-threads", {"--porta-threads", "integer"}},
      {"--porta-backend=gpu", {"--porta-backend", "gpu"}},
      {"--porta-backend=", {"--porta-backend", "''"}},
      {"--porta-backend", {"--porta-backend", "needs its back end after '='"}},
      {"--porta-deterministic=maybe", {"--porta-deterministic", "maybe"}},
      {"--porta-profile=2", {"--porta-profile", "'2'"}},
      {"--porta-device=-1", {"--porta-device", "-1"}},
      {"--porta-bogus", {"--porta-bogus", "unknown option"}},
      {"--porta-bogus=7", {"--porta-bogus=7", "unknown option"}},
      {"--porta-threadsX=2", {"--porta-threadsX=2", "unknown option"}},
      {"--porta-", {"--porta-", "unknown option"}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    /* the bad option after a good one and before an unrelated one: nothing is consumed */
    const char *list[] = {"prog", "--porta-threads=2", "keep", cases[c].arg, "tail", NULL};
    init_with(list, PORTA_ERROR_INVALID_ARGUMENT, cases[c].arg);
    for (int k = 0; k < 2; ++k)
      if (!msg_has(cases[c].names[k])) {
        char m[1400];
        snprintf(m, sizeof m, "%s: message lacks \"%s\": %s", cases[c].arg, cases[c].names[k],
                 porta_last_error_message());
        pt_fail_(__FILE__, __LINE__, m);
      }
    PT_MSG_HAS("porta_initialize");
    PT_MSG_HAS("PORTA_ERROR_INVALID_ARGUMENT");
    finalize_if_needed();
  }
  /* after all those failures a good initialisation works */
  static const char *const good[] = {"prog", "--porta-backend=serial", NULL};
  PT_OK(init_with(good, PORTA_SUCCESS, "good after bad"));
  PT_EQ_I64(porta_exec_default().backend, PORTA_BACKEND_SERIAL);
  finalize_if_needed();
}

/** The command line wins for every option: a bad environment value that the command line
 *  overrides is not an error; one it does not override still is, naming the variable. */
static void test_command_line_overrides_bad_environment(void) {
  static const struct {
    const char *var, *bad, *arg;
  } cases[] = {
      {"PORTA_BACKEND", "bogus", "--porta-backend=serial"},
      {"PORTA_NUM_THREADS", "many", "--porta-threads=1"},
      {"PORTA_NUM_THREADS", "100000", "--porta-threads=1"},
      {"PORTA_DETERMINISTIC", "maybe", "--porta-deterministic=0"},
      {"PORTA_PROFILE", "2", "--porta-profile=0"},
      {"PORTA_DEVICE_ID", "-1", "--porta-device=0"},
  };
  static const char *const prog[] = {"prog", NULL};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    char what[200];
    env_clear();
    setenv(cases[c].var, cases[c].bad, 1);
    /* overridden: fine, and the command line's value is used */
    const char *list[] = {"prog", cases[c].arg, "keep", NULL};
    snprintf(what, sizeof what, "%s=%s with %s", cases[c].var, cases[c].bad, cases[c].arg);
    if (init_with(list, PORTA_SUCCESS, what) == PORTA_SUCCESS) {
      if (c == 0) PT_EQ_I64(porta_exec_default().backend, PORTA_BACKEND_SERIAL);
#if defined(_OPENMP)
      if (c == 1 || c == 2) PT_EQ_I64(porta_num_threads(), 1);
#endif
      if (c == 3) PT_EQ_I64(porta_deterministic(), 0);
    }
    finalize_if_needed();
    /* not overridden (another option on the command line): the variable is named */
    const char *other[] = {"prog", c == 0 ? "--porta-threads=1" : "--porta-backend=serial", NULL};
    snprintf(what, sizeof what, "%s=%s alone", cases[c].var, cases[c].bad);
    init_with(other, PORTA_ERROR_INVALID_ARGUMENT, what);
    PT_MSG_HAS(cases[c].var);
    PT_MSG_HAS(cases[c].bad);
    finalize_if_needed();
    init_with(prog, PORTA_ERROR_INVALID_ARGUMENT, what);
    PT_MSG_HAS(cases[c].var);
    finalize_if_needed();
  }
  env_restore();
}

/** Absurd thread counts are refused with the option's (or variable's) name, not passed to
 *  OpenMP (100000 threads crashed inside libgomp). */
static void test_thread_limit(void) {
  env_clear();
  static const char *const big[] = {"--porta-threads=100000", "--porta-threads=4097",
                                    "--porta-num-threads=2147483647"};
  for (int k = 0; k < 3; ++k) {
    const char *list[] = {"prog", big[k], NULL};
    init_with(list, PORTA_ERROR_INVALID_ARGUMENT, big[k]);
    PT_MSG_HAS("--porta-threads");
    PT_MSG_HAS("limit");
    finalize_if_needed();
  }
  setenv("PORTA_NUM_THREADS", "100000", 1);
  static const char *const prog[] = {"prog", NULL};
  init_with(prog, PORTA_ERROR_INVALID_ARGUMENT, "PORTA_NUM_THREADS=100000");
  PT_MSG_HAS("PORTA_NUM_THREADS");
  PT_MSG_HAS("100000");
  PT_MSG_HAS("limit");
  env_clear();
#if defined(_OPENMP)
  /* a few more threads than processors is still a setting */
  char arg[64];
  snprintf(arg, sizeof arg, "--porta-threads=%d", omp_get_num_procs() + 1);
  const char *list[] = {"prog", arg, NULL};
  PT_OK(init_with(list, PORTA_SUCCESS, arg));
  PT_EQ_I64(porta_num_threads(), omp_get_num_procs() + 1);
  finalize_if_needed();
#endif
  env_restore();
}

static void test_initialize_twice(void) {
  static const char *const first[] = {"prog", "--porta-backend=serial", NULL};
  PT_OK(init_with(first, PORTA_SUCCESS, "first"));
  const int threads = porta_num_threads();
  /* the second call fails, consumes nothing and changes nothing */
  static const char *const second[] = {"prog", "--porta-threads=7", "x", NULL};
  fake_args a;
  args_make(&a, second);
  porta_error_clear();
  int rc = porta_initialize(&a.argc, &a.argv);
  PT_CHECK(rc != PORTA_SUCCESS);
  PT_EQ_I64(rc, PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("already");
  args_untouched(&a, 3, "second initialize");
  PT_EQ_I64(porta_is_initialized(), 1);
  PT_EQ_I64(porta_num_threads(), threads);
  PT_EQ_I64(porta_exec_default().backend, PORTA_BACKEND_SERIAL);
  PT_OK(porta_finalize());
  /* finalize twice, and calls before initialize */
  porta_error_clear();
  PT_EXPECT_CODE(porta_finalize(), PORTA_ERROR_NOT_INITIALIZED);
  PT_MSG_HAS("porta_finalize");
  porta_view_f64 v;
  PT_EXPECT_CODE(porta_view_f64_create1(&v, "too_early", 4), PORTA_ERROR_NOT_INITIALIZED);
  PT_MSG_HAS("too_early");
  PT_CHECK(v.data == NULL);
}

static void test_unsupported_backend(void) {
  static const char *const cuda[] = {"prog", "--porta-backend=cuda", "y", NULL};
#if !PORTA_ENABLE_CUDA
  init_with(cuda, PORTA_ERROR_UNSUPPORTED, "--porta-backend=cuda");
  PT_MSG_HAS("cuda");
  PT_MSG_HAS("compiled");
  /* the same through the environment */
  setenv("PORTA_BACKEND", "cuda", 1);
  static const char *const prog[] = {"prog", NULL};
  init_with(prog, PORTA_ERROR_UNSUPPORTED, "PORTA_BACKEND=cuda");
  PT_MSG_HAS("cuda");
  env_restore();
#else
  /* CUDA is compiled in: either there is a GPU, or the request is refused as unusable */
  fake_args a;
  args_make(&a, cuda);
  int rc = porta_initialize(&a.argc, &a.argv);
  PT_CHECK(rc == PORTA_SUCCESS || rc == PORTA_ERROR_UNSUPPORTED);
  if (rc == PORTA_SUCCESS) {
    PT_EQ_I64(porta_exec_default().backend, PORTA_BACKEND_CUDA);
    PT_EQ_I64(a.argc, 2);
  } else {
    PT_MSG_HAS("cuda");
  }
  finalize_if_needed();
  /* the CUDA testing knob is checked, GPU or not */
  static const char *const prog[] = {"prog", NULL};
  static const char *const bad_limits[] = {"abc", "0", "-3", "4x", "99999999999"};
  for (int k = 0; k < 5; ++k) {
    env_clear();
    setenv("PORTA_CUDA_GRID_LIMIT", bad_limits[k], 1);
    init_with(prog, PORTA_ERROR_INVALID_ARGUMENT, "PORTA_CUDA_GRID_LIMIT");
    PT_MSG_HAS("PORTA_CUDA_GRID_LIMIT");
    PT_MSG_HAS(bad_limits[k]);
  }
  env_restore();
#endif
#if !defined(_OPENMP)
  static const char *const omp[] = {"prog", "--porta-backend=openmp", NULL};
  init_with(omp, PORTA_ERROR_UNSUPPORTED, "--porta-backend=openmp");
  PT_MSG_HAS("openmp");
#endif
  finalize_if_needed();
  /* and Porta still starts normally afterwards */
  PT_OK(porta_initialize(NULL, NULL));
  PT_OK(porta_finalize());
}

/** finalize then initialize again, with other settings; state does not leak across. */
static void test_reinitialize(void) {
  for (int round = 0; round < 3; ++round) {
    char opt[32];
    snprintf(opt, sizeof opt, "--porta-threads=%d", round + 1);
    const char *list[] = {"prog", opt, NULL};
#if !defined(_OPENMP)
    list[1] = NULL;
#endif
    PT_OK(init_with(list, PORTA_SUCCESS, "reinitialize"));
#if defined(_OPENMP)
    PT_EQ_I64(porta_num_threads(), round + 1);
#endif
    PT_EQ_I64(porta_deterministic(), 0); /* set in the round before, reset by finalize */
    porta_set_deterministic(1);
    porta_view_f64 v;
    PT_OK(porta_view_f64_create1(&v, "round", 100));
    PT_OK(porta_view_f64_fill(v, round + 0.5));
    porta_mirror_f64 h; /* read back through a host mirror: on a GPU the view is device memory */
    PT_OK(porta_view_f64_create_mirror_view(&h, &v));
    PT_OK(porta_deep_copy(h, v));
    PT_EQ_F64(h.data[99], round + 0.5);
    porta_mirror_f64_release(&h);
    porta_view_f64_release(&v);
    PT_OK(porta_fence("round"));
    PT_OK(porta_finalize());
  }
  /* porta_set_num_threads */
  PT_OK(porta_initialize(NULL, NULL));
  porta_error_clear();
  PT_EXPECT_CODE(porta_set_num_threads(0), PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("porta_set_num_threads");
#if defined(_OPENMP)
  PT_OK(porta_set_num_threads(4));
  PT_EQ_I64(porta_num_threads(), 4);
  /* the limit of --porta-threads holds here too (4097 had been accepted); the count stays */
  porta_error_clear();
  PT_EXPECT_CODE(porta_set_num_threads(4097), PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("porta_set_num_threads");
  PT_MSG_HAS("4097 threads is more than the limit");
  PT_EQ_I64(porta_num_threads(), 4);
  PT_EXPECT_CODE(porta_set_num_threads(omp_get_num_procs() * 64 + 1), PORTA_ERROR_INVALID_ARGUMENT);
  PT_OK(porta_set_num_threads(omp_get_num_procs() + 1));
  PT_EQ_I64(porta_num_threads(), omp_get_num_procs() + 1);
#endif
  PT_OK(porta_finalize());
}

/* ------------------------------------------------------------------------------------------ */
/* errors                                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  int calls;
  int code;
  char message[1024];
  void *user;
  int answer;
} callback_record;

static int record_error(int code, const char *message, void *user_data) {
  callback_record *r = (callback_record *)user_data;
  r->calls++;
  r->code = code;
  snprintf(r->message, sizeof r->message, "%s", message);
  r->user = user_data;
  return r->answer;
}

static void test_error_names(void) {
  PT_CHECK(strcmp(porta_error_name(PORTA_SUCCESS), "PORTA_SUCCESS") == 0);
  PT_CHECK(strcmp(porta_error_name(PORTA_ERROR_INVALID_ARGUMENT), "PORTA_ERROR_INVALID_ARGUMENT") ==
           0);
  PT_CHECK(strcmp(porta_error_name(PORTA_ERROR_OUT_OF_MEMORY), "PORTA_ERROR_OUT_OF_MEMORY") == 0);
  PT_CHECK(strcmp(porta_error_name(PORTA_ERROR_INCOMPATIBLE), "PORTA_ERROR_INCOMPATIBLE") == 0);
  PT_CHECK(strcmp(porta_error_name(PORTA_ERROR_UNSUPPORTED), "PORTA_ERROR_UNSUPPORTED") == 0);
  PT_CHECK(strcmp(porta_error_name(PORTA_ERROR_NOT_INITIALIZED), "PORTA_ERROR_NOT_INITIALIZED") ==
           0);
  PT_CHECK(strcmp(porta_error_name(PORTA_ERROR_BOUNDS), "PORTA_ERROR_BOUNDS") == 0);
  PT_CHECK(strcmp(porta_error_name(PORTA_ERROR_BACKEND), "PORTA_ERROR_BACKEND") == 0);
  PT_CHECK(strcmp(porta_error_name(PORTA_ERROR_IO), "PORTA_ERROR_IO") == 0);
  PT_CHECK(strcmp(porta_error_name(9), "PORTA_ERROR_UNKNOWN") == 0);
  PT_CHECK(strcmp(porta_error_name(-1), "PORTA_ERROR_UNKNOWN") == 0);
  PT_CHECK(strcmp(porta_error_name(12345), "PORTA_ERROR_UNKNOWN") == 0);
}

static void test_error_messages(void) {
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  porta_error_clear();
  PT_CHECK(strcmp(porta_last_error_message(), "") == 0);
  PT_EQ_I64(porta_error(PORTA_ERROR_IO, "op_name", "the_label", "value %d of %s", 5, "x"),
            PORTA_ERROR_IO);
  PT_CHECK(strcmp(porta_last_error_message(),
                  "porta: op_name('the_label'): value 5 of x [PORTA_ERROR_IO]") == 0);
  PT_EQ_I64(porta_error(PORTA_ERROR_BACKEND, "op2", NULL, "plain"), PORTA_ERROR_BACKEND);
  PT_CHECK(strcmp(porta_last_error_message(), "porta: op2: plain [PORTA_ERROR_BACKEND]") == 0);
  PT_EQ_I64(porta_error(PORTA_ERROR_BOUNDS, "op3", "", "empty label"), PORTA_ERROR_BOUNDS);
  PT_CHECK(strcmp(porta_last_error_message(), "porta: op3: empty label [PORTA_ERROR_BOUNDS]") == 0);
  /* a very long reason is cut, not overflowed */
  char longtext[3000];
  memset(longtext, 'z', sizeof longtext - 1);
  longtext[sizeof longtext - 1] = '\0';
  PT_EQ_I64(porta_error(PORTA_ERROR_IO, "long", "lbl", "%s", longtext), PORTA_ERROR_IO);
  PT_CHECK(strlen(porta_last_error_message()) < 4096);
  PT_CHECK(strncmp(porta_last_error_message(), "porta: long('lbl'): zzz", 23) == 0);
  /* a long label (a path) is shortened so that the reason after it is never cut off */
  char longlabel[3000];
  memset(longlabel, 'p', sizeof longlabel - 1);
  longlabel[sizeof longlabel - 1] = '\0';
  PT_EQ_I64(porta_error(PORTA_ERROR_IO, "open", longlabel, "%s", "the reason"), PORTA_ERROR_IO);
  PT_CHECK(strstr(porta_last_error_message(), "...") != NULL);
  PT_CHECK(strstr(porta_last_error_message(), "'): the reason [PORTA_ERROR_IO]") != NULL);
  PT_CHECK(strlen(porta_last_error_message()) < 300);
  porta_error_clear();
  PT_CHECK(strcmp(porta_last_error_message(), "") == 0);
#if defined(_OPENMP)
  /* the last message is per thread: a worker's failure does not replace this thread's */
  porta_error(PORTA_ERROR_IO, "main_thread", NULL, "mine");
  int team = 0, worker_has_own = 0;
  PORTA_OMP(parallel num_threads(2)) {
    if (omp_get_thread_num() == 1) {
      team = omp_get_num_threads();
      porta_error(PORTA_ERROR_BACKEND, "worker_thread", NULL, "theirs");
      worker_has_own = strstr(porta_last_error_message(), "worker_thread") != NULL;
    }
  }
  PT_CHECK(strstr(porta_last_error_message(), "main_thread") != NULL);
  if (team == 2) PT_CHECK(worker_has_own);
  porta_error_clear();
#endif
}

static void test_error_callback(void) {
  PT_OK(porta_initialize(NULL, NULL));
  callback_record rec;
  memset(&rec, 0, sizeof rec);
  rec.answer = PORTA_ERROR_INVALID_ARGUMENT;
  porta_set_error_mode(PORTA_ERROR_MODE_CALLBACK, record_error, &rec);
  porta_view_f64 v;
  PT_EXPECT_CODE(porta_view_f64_create2(&v, "cb_view", 2, -3), PORTA_ERROR_INVALID_ARGUMENT);
  PT_EQ_I64(rec.calls, 1);
  PT_EQ_I64(rec.code, PORTA_ERROR_INVALID_ARGUMENT);
  PT_CHECK(rec.user == &rec);
  PT_CHECK(strstr(rec.message, "cb_view") != NULL);
  PT_CHECK(strstr(rec.message, "porta_view_create") != NULL);
  PT_CHECK(strstr(rec.message, "negative") != NULL);
  PT_CHECK(strcmp(rec.message, porta_last_error_message()) == 0);
  /* the handler's answer is what the failing call returns */
  rec.answer = 42;
  porta_view_f64 a, b;
  PT_OK(porta_view_f64_create1(&a, "cb_a", 3));
  PT_OK(porta_view_f64_create1(&b, "cb_b", 4));
  PT_EQ_I64(porta_deep_copy(a, b), 42);
  PT_EQ_I64(rec.calls, 2);
  PT_EQ_I64(rec.code, PORTA_ERROR_INCOMPATIBLE);
  PT_CHECK(strstr(rec.message, "cb_a") != NULL && strstr(rec.message, "cb_b") != NULL);
  /* successes do not call it */
  PT_OK(porta_view_f64_fill(a, 1.0));
  PT_EQ_I64(rec.calls, 2);
  /* CALLBACK without a handler returns the code */
  porta_set_error_mode(PORTA_ERROR_MODE_CALLBACK, NULL, NULL);
  PT_EXPECT_CODE(porta_deep_copy(a, b), PORTA_ERROR_INCOMPATIBLE);
  PT_EQ_I64(rec.calls, 2);
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  porta_view_f64_release(&a);
  porta_view_f64_release(&b);
  PT_OK(porta_finalize());
}

/** Run `fn` with stderr sent to a temporary file; returns what was written (static buffer). */
static const char *capture_stderr(void (*fn)(void)) {
  static char text[4096];
  text[0] = '\0';
  fflush(stderr);
  FILE *tmp = tmpfile();
  if (!tmp) {
    pt_fail_(__FILE__, __LINE__, "tmpfile failed");
    return text;
  }
  int saved = dup(2);
  dup2(fileno(tmp), 2);
  fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  size_t n = fread(text, 1, sizeof text - 1, tmp);
  text[n] = '\0';
  fclose(tmp);
  return text;
}

static void fail_once(void) {
  porta_view_f64 v;
  (void)porta_view_f64_create2(&v, "print_view", 2, -3);
}

static void test_error_print(void) {
  PT_OK(porta_initialize(NULL, NULL));
  /* RETURN prints nothing */
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  const char *out = capture_stderr(fail_once);
  PT_EQ_I64(strlen(out), 0);
  /* PRINT prints the message, once, on its own line */
  porta_set_error_mode(PORTA_ERROR_MODE_PRINT, NULL, NULL);
  out = capture_stderr(fail_once);
  char expect[1100];
  snprintf(expect, sizeof expect, "%s\n", porta_last_error_message());
  PT_CHECK(strstr(out, "print_view") != NULL);
  PT_CHECK(strcmp(out, expect) == 0);
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  PT_OK(porta_finalize());
}

static void test_error_abort(void) {
  PT_OK(porta_initialize(NULL, NULL));
  int fds[2];
  PT_OK(pipe(fds));
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 2);
    close(fds[1]);
    alarm(30);
    porta_set_error_mode(PORTA_ERROR_MODE_ABORT, NULL, NULL);
    fail_once();
    _exit(0); /* not reached when ABORT works */
  }
  close(fds[1]);
  char text[4096];
  size_t n = 0;
  ssize_t got;
  while (n < sizeof text - 1 && (got = read(fds[0], text + n, sizeof text - 1 - n)) > 0)
    n += (size_t)got;
  text[n] = '\0';
  close(fds[0]);
  int status = 0;
  PT_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  PT_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  PT_CHECK(strstr(text, "print_view") != NULL);
  PT_CHECK(strstr(text, "PORTA_ERROR_INVALID_ARGUMENT") != NULL);
  PT_OK(porta_finalize());
}

/* The GPU a process takes from its node-local rank is the one porta_device_id() reports: the
 * option value (0 when none is given) used to overwrite it after the CUDA back end had chosen,
 * so every rank of a multi-GPU node said GPU 0. (A CUDA build compiles this file with nvcc;
 * with one GPU, local rank 1 takes GPU 0 as well.) */
static void test_device_from_local_rank(void) {
#if defined(__CUDACC__)
  const char *old = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  char *saved = old ? strdup(old) : NULL;
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  unsetenv("PORTA_DEVICE_ID");
  if (porta_initialize(NULL, NULL) == PORTA_SUCCESS) {
    if (porta_exec_default().backend == PORTA_BACKEND_CUDA) {
      int dev = -1;
      PT_CHECK(cudaGetDevice(&dev) == cudaSuccess);
      PT_EQ_I64(porta_device_id(), dev);
    }
    PT_OK(porta_finalize());
  }
  if (saved)
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", saved, 1);
  else
    unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
  free(saved);
#endif
}

int main(void) {
  env_save();
  PT_RUN(test_consume_options);
  env_restore();
  PT_RUN(test_command_line_wins);
  env_restore();
  PT_RUN(test_settings_read);
  env_restore();
  PT_RUN(test_bad_options);
  PT_RUN(test_command_line_overrides_bad_environment);
  env_restore();
  PT_RUN(test_thread_limit);
  env_restore();
  PT_RUN(test_initialize_twice);
  PT_RUN(test_unsupported_backend);
  env_restore();
  PT_RUN(test_reinitialize);
  PT_RUN(test_error_names);
  PT_RUN(test_error_messages);
  PT_RUN(test_error_callback);
  PT_RUN(test_error_print);
  PT_RUN(test_error_abort);
  env_restore();
  PT_RUN(test_device_from_local_rank);
  finalize_if_needed();
  for (int k = 0; k < NUM_ENV; ++k) free(env_saved[k]);
  printf("%d failure(s)\n", pt_failures_);
  return pt_failures_ ? 1 : 0;
}
