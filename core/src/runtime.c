/** @file runtime.c
 *  porta_initialize / porta_finalize, options, back-end queries, fences, timers. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "profiling_private.h"
#include "reduce_end_private.h"
#include "runtime_private.h"

porta_state porta_state_ = {
    .default_backend = PORTA_BACKEND_SERIAL, .num_threads = 1, .default_space = -1};

const char *porta_backend_name(porta_backend b) {
  const porta_backend_ops *ops = porta_backend_ops_of_(b);
  return ops ? ops->name : "unknown";
}

const char *porta_memory_space_name(porta_memory_space s) {
  const porta_space_info *info = porta_space_info_(s);
  return info ? info->name : "unknown";
}

int porta_memory_space_host_accessible(porta_memory_space space) {
  const porta_space_info *info = porta_space_info_(space);
  return info && info->host_access;
}

int porta_backend_parse(const char *name, porta_backend *backend) {
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    if (name && strcasecmp(name, porta_backend_ops_[b]->name) == 0) {
      *backend = (porta_backend)b;
      return PORTA_SUCCESS;
    }
  return PORTA_ERROR_INVALID_ARGUMENT;
}

int porta_backend_available(porta_backend backend) {
  const porta_backend_ops *ops = porta_backend_ops_of_(backend);
  return ops && ops->available ? ops->available() : 0;
}

int porta_space_accessible(porta_backend backend, porta_memory_space space) {
  const porta_backend_ops *ops = porta_backend_ops_of_(backend);
  const int on_host = !ops || !ops->on_device; /* no such back end: what the host reaches */
  if (on_host && porta_memory_space_host_accessible(space)) return 1;
  return ops && porta_space_backend_(space) == ops; /* its own spaces */
}

porta_exec porta_exec_backend(porta_backend backend) {
  porta_exec e;
  e.backend = backend;
  e.instance = 0;
  return e;
}

int porta_exec_create_instance_with_priority(porta_backend backend, porta_exec_priority priority,
                                             porta_exec *out) {
  *out = porta_exec_backend(backend);
  if (porta_state_.recording)
    return porta_refuse_in_loop_("porta_exec_create_instance", porta_backend_name(backend));
  if (priority != PORTA_PRIORITY_NORMAL && priority != PORTA_PRIORITY_HIGH)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_create_instance",
                       porta_backend_name(backend), "unknown priority %d", (int)priority);
  if (!porta_backend_available(backend))
    return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_exec_create_instance",
                       porta_backend_name(backend), "back end not available");
  const porta_backend_ops *ops = porta_backend_ops_[backend];
  return ops->instance_create ? ops->instance_create((int)priority, &out->instance) : PORTA_SUCCESS;
}

int porta_exec_create_instance(porta_backend backend, porta_exec *out) {
  return porta_exec_create_instance_with_priority(backend, PORTA_PRIORITY_NORMAL, out);
}

int porta_exec_destroy_instance(porta_exec exec) {
  if (porta_state_.recording)
    return porta_refuse_in_loop_("porta_exec_destroy_instance", porta_backend_name(exec.backend));
  if (exec.instance == 0) return PORTA_SUCCESS;
  const porta_backend_ops *ops = porta_backend_ops_of_(exec.backend);
  if (ops && ops->instance_destroy) return ops->instance_destroy(exec.instance);
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_destroy_instance",
                     porta_backend_name(exec.backend), "instance %d was not created",
                     exec.instance);
}

porta_exec porta_exec_default(void) { return porta_exec_backend(porta_state_.default_backend); }

porta_exec_traits porta_exec_query(porta_exec exec) {
  porta_exec_traits t;
  memset(&t, 0, sizeof t);
  t.memory_space = t.staging_space = PORTA_HOST_SPACE;
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  if (!ops) return t;
  t.on_device = ops->device_name != NULL;
  t.host_threads = ops->uses_host_threads;
  t.single_threaded = !t.on_device && (!t.host_threads || porta_state_.num_threads == 1);
  t.async_instances = ops->instance_create != NULL;
  t.cheap_atomics = ops->cheap_atomics || t.single_threaded;
  t.ipc = ops->ipc_alloc != NULL;
  t.memory_space = ops->memory_space;
  t.staging_space = ops->staging_space;
  t.device_memory_bytes = ops->device_memory_bytes ? ops->device_memory_bytes() : 0.0;
  return t;
}

int porta_exec_wait(porta_exec exec, porta_exec after) {
  if (exec.backend != after.backend)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_wait", NULL,
                       "instances of two back ends (%s, %s)", porta_backend_name(exec.backend),
                       porta_backend_name(after.backend));
  if (exec.instance == after.instance) return PORTA_SUCCESS;
  if (PORTA_UNLIKELY(porta_state_.recording != NULL))
    PORTA_CHECK(porta_recording_wait_(exec, after));
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  if (!ops || !ops->order) return PORTA_SUCCESS;
  return ops->order(exec.instance, after.instance);
}

int porta_exec_native_queue(porta_exec exec, void **queue) {
  if (!queue)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_native_queue", NULL,
                       "queue is NULL");
  *queue = NULL;
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  if (!ops || !ops->native_queue)
    return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_exec_native_queue", NULL,
                       "the %s back end has no native queue (%s)", porta_backend_name(exec.backend),
                       ops ? "its launches complete before they return" : "not usable in this run");
  if (exec.instance < 0 || (exec.instance > 0 && !ops->native_queue(exec.instance)))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_native_queue", NULL,
                       "instance %d of the %s back end does not exist", exec.instance,
                       porta_backend_name(exec.backend));
  *queue = ops->native_queue(exec.instance);
  return PORTA_SUCCESS;
}

porta_memory_space porta_exec_memory_space(porta_exec exec) {
  const porta_backend_ops *ops = porta_backend_ops_of_(exec.backend);
  return ops ? ops->memory_space : PORTA_HOST_SPACE;
}

porta_memory_space porta_default_memory_space(void) {
  return porta_state_.default_space >= 0 ? (porta_memory_space)porta_state_.default_space
                                         : porta_exec_memory_space(porta_exec_default());
}

int porta_set_default_memory_space(porta_memory_space space) {
  if ((int)space < 0 || space >= PORTA_NUM_MEMORY_SPACES || !porta_space_ops_[space].alloc)
    return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_set_default_memory_space",
                       porta_memory_space_name(space), "memory space is not available");
  porta_state_.default_space = (int)space;
  return PORTA_SUCCESS;
}

int porta_is_initialized(void) { return porta_state_.initialized; }
int porta_num_threads(void) { return porta_state_.num_threads; }
int porta_deterministic(void) { return porta_state_.deterministic; }
void porta_set_deterministic(int on) { porta_state_.deterministic = on != 0; }

static int check_thread_limit(int n, const char *op, const char *what);

int porta_set_num_threads(int n) {
  if (n < 1)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_set_num_threads", NULL,
                       "thread count must be >= 1, got %d", n);
  if (porta_backend_threads_()) {
    /* the limit of --porta-threads (miniMD's -t 4096 had started 4096 threads on 2 cores);
       setting the count in use again is always fine */
    if (n != porta_state_.num_threads) {
      PORTA_CHECK(check_thread_limit(n, "porta_set_num_threads", "thread count"));
      PORTA_CHECK(porta_thread_stacks_check_(n, "porta_set_num_threads"));
    }
    porta_state_.num_threads = n;
  } else if (n != 1)
    return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_set_num_threads", NULL,
                       "OpenMP is not compiled in; only 1 thread is possible");
  return PORTA_SUCCESS;
}

double porta_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- options ---- */

/* More OpenMP threads than this is a typo, not a setting (libgomp fails to create them and
 * crashes): at most PORTA_THREADS_PER_PROC per available processor, and never more than
 * PORTA_MAX_THREADS. */
#define PORTA_THREADS_PER_PROC 64
#define PORTA_MAX_THREADS 4096

static int available_processors(void) {
  const porta_backend_ops *threads = porta_backend_threads_();
  const long n =
      threads && threads->num_procs ? threads->num_procs() : sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static int parse_int(const char *text, const char *what, int lo, int *out) {
  char *end = NULL;
  errno = 0;
  long v = text ? strtol(text, &end, 10) : 0;
  if (!text || !*text || *end || errno || v < lo || v > INT_MAX)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", NULL,
                       "%s: expected an integer >= %d, got '%s'", what, lo, text ? text : "");
  *out = (int)v;
  return PORTA_SUCCESS;
}

static int check_thread_limit(int n, const char *op, const char *what) {
  const int procs = available_processors();
  const long long most = (long long)procs * PORTA_THREADS_PER_PROC < PORTA_MAX_THREADS
                             ? (long long)procs * PORTA_THREADS_PER_PROC
                             : PORTA_MAX_THREADS;
  if (n > most)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "%s: %d threads is more than the limit of %lld (%d x the %d available "
                       "processors, at most %d)",
                       what, n, most, PORTA_THREADS_PER_PROC, procs, PORTA_MAX_THREADS);
  return PORTA_SUCCESS;
}

static int parse_threads(const char *text, const char *what, int *out) {
  int n = 0;
  PORTA_CHECK(parse_int(text, what, 1, &n));
  PORTA_CHECK(check_thread_limit(n, "porta_initialize", what));
  *out = n;
  return PORTA_SUCCESS;
}

static int parse_bool(const char *text, const char *what, int *out) {
  if (!text || !*text || !strcmp(text, "1") || !strcasecmp(text, "on") ||
      !strcasecmp(text, "yes") || !strcasecmp(text, "true")) {
    *out = 1;
    return PORTA_SUCCESS;
  }
  if (!strcmp(text, "0") || !strcasecmp(text, "off") || !strcasecmp(text, "no") ||
      !strcasecmp(text, "false")) {
    *out = 0;
    return PORTA_SUCCESS;
  }
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", NULL,
                     "%s: expected 0/1/on/off, got '%s'", what, text);
}

/** The back ends' names, space-separated ("serial openmp cuda"). */
#define PORTA_BACKEND_NAME_(ID, name, on, A) " " #name
#define PORTA_BACKEND_NAMES_ (PORTA_BACKEND_LIST(PORTA_BACKEND_NAME_, ~) + 1)

static int parse_backend(const char *text, const char *what, porta_backend *out) {
  porta_backend b;
  if (!text) /* "--porta-backend serial": the value is the next argument, not taken */
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", NULL,
                       "%s needs its back end after '=': %s=NAME, one of %s", what, what,
                       PORTA_BACKEND_NAMES_);
  if (porta_backend_parse(text, &b) != PORTA_SUCCESS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", NULL,
                       "%s: unknown back end '%s' (expected one of %s)", what, text ? text : "",
                       PORTA_BACKEND_NAMES_);
  *out = b;
  return PORTA_SUCCESS;
}

const char *porta_help_text(void) {
  return "Porta options (also as environment variables):\n"
         "  --porta-backend=NAME                PORTA_BACKEND      default execution space, one "
         "of:\n                                     " PORTA_BACKEND_LIST(
             PORTA_BACKEND_NAME_,
             ~) "\n"
                "  --porta-threads=N                   PORTA_NUM_THREADS  OpenMP threads\n"
                "  --porta-device=N                    PORTA_DEVICE_ID    GPU to use\n"
                "  --porta-deterministic[=0|1]         PORTA_DETERMINISTIC bitwise-reproducible "
                "reductions\n"
                "  --porta-profile[=0|1]               PORTA_PROFILE      per-kernel time table at "
                "exit\n"
                "  --porta-help                                           this text\n"
                "  Tools: KOKKOS_TOOLS_LIBS=lib1.so;lib2.so loads Kokkos Tools libraries.\n";
}

static void print_help(void) { fputs(porta_help_text(), stdout); }

/** Settings gathered from the command line and then, for what it did not set, the
 *  environment (the command line wins: an environment value it overrides is not even parsed). */
typedef struct options {
  int have_backend;
  porta_backend backend;
  int threads;
  int have_threads;
  int deterministic;
  int have_deterministic;
  int profile;
  int have_profile;
  int device;
  int have_device;
} options;

static int read_environment(options *o) {
  const char *v;
  if (!o->have_backend && (v = getenv("PORTA_BACKEND")) && *v) {
    PORTA_CHECK(parse_backend(v, "PORTA_BACKEND", &o->backend));
    o->have_backend = 1;
  }
  if (!o->have_threads && (v = getenv("PORTA_NUM_THREADS")) && *v) {
    PORTA_CHECK(parse_threads(v, "PORTA_NUM_THREADS", &o->threads));
    o->have_threads = 1;
  }
  if (!o->have_deterministic && (v = getenv("PORTA_DETERMINISTIC")) && *v) {
    PORTA_CHECK(parse_bool(v, "PORTA_DETERMINISTIC", &o->deterministic));
    o->have_deterministic = 1;
  }
  if (!o->have_profile && (v = getenv("PORTA_PROFILE")) && *v) {
    PORTA_CHECK(parse_bool(v, "PORTA_PROFILE", &o->profile));
    o->have_profile = 1;
  }
  if (!o->have_device && (v = getenv("PORTA_DEVICE_ID")) && *v) {
    PORTA_CHECK(parse_int(v, "PORTA_DEVICE_ID", 0, &o->device));
    o->have_device = 1;
  }
  return PORTA_SUCCESS;
}

/** Match "--porta-NAME" or "--porta-NAME=VALUE"; *value is NULL without '='. */
static int match(const char *arg, const char *name, const char **value) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return 0;
  if (arg[n] == '\0') {
    *value = NULL;
    return 1;
  }
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  return 0;
}

/** A Porta option (consumed from argv) rather than the program's own. */
static int is_porta_option(const char *arg) { return arg && strncmp(arg, "--porta-", 8) == 0; }

/** Parse the `--porta-*` options (the last of each wins); argv is left as it is (see
 *  consume_arguments). `help`: --porta-help prints the help text. */
static int read_arguments(int argc, char *const *argv, int help, options *o) {
  if (!argv) return PORTA_SUCCESS;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i], *v = NULL;
    if (!is_porta_option(arg)) continue;
    if (match(arg, "--porta-backend", &v)) {
      PORTA_CHECK(parse_backend(v, "--porta-backend", &o->backend));
      o->have_backend = 1;
    } else if (match(arg, "--porta-threads", &v) || match(arg, "--porta-num-threads", &v)) {
      PORTA_CHECK(parse_threads(v, "--porta-threads", &o->threads));
      o->have_threads = 1;
    } else if (match(arg, "--porta-device", &v)) {
      PORTA_CHECK(parse_int(v, "--porta-device", 0, &o->device));
      o->have_device = 1;
    } else if (match(arg, "--porta-deterministic", &v)) {
      PORTA_CHECK(parse_bool(v, "--porta-deterministic", &o->deterministic));
      o->have_deterministic = 1;
    } else if (match(arg, "--porta-profile", &v)) {
      PORTA_CHECK(parse_bool(v, "--porta-profile", &o->profile));
      o->have_profile = 1;
    } else if (match(arg, "--porta-help", &v)) {
      if (help) print_help();
    } else {
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", NULL,
                         "unknown option '%s' (see --porta-help)", arg);
    }
  }
  return PORTA_SUCCESS;
}

/** Remove the `--porta-*` options from argv, keeping the others in order. Done only once
 *  initialisation has succeeded, so a failed porta_initialize leaves argc/argv untouched. */
static void consume_arguments(int *argc, char ***argv) {
  if (!argc || !argv || !*argv || *argc < 1) return;
  int kept = 1;
  for (int i = 1; i < *argc; ++i)
    if (!is_porta_option((*argv)[i])) (*argv)[kept++] = (*argv)[i];
  for (int i = kept; i < *argc; ++i) (*argv)[i] = NULL;
  *argc = kept;
}

/** The command line first (it wins), then the environment for what it did not set. */
static int read_options(int argc, char *const *argv, int help, options *o) {
  memset(o, 0, sizeof *o);
  PORTA_CHECK(read_arguments(argc, argv, help, o));
  return read_environment(o);
}

int porta_settings_read(int argc, char *const *argv, porta_settings *out) {
  options o;
  if (!out)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_settings_read", NULL,
                       "no porta_settings to fill");
  memset(out, 0, sizeof *out);
  out->backend = -1;
  out->threads = 1;
  PORTA_CHECK(read_options(argc, argv, 0, &o));
  const porta_backend_ops *threaded = porta_backend_threads_();
  out->backend = o.have_backend ? (int)o.backend : -1;
  out->threads_asked = o.threads > 0;
  out->threads = o.threads > 0 ? o.threads : threaded ? threaded->default_threads() : 1;
  out->deterministic = o.deterministic;
  return PORTA_SUCCESS;
}

int porta_initialize(int *argc, char ***argv) {
  if (porta_state_.initialized)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", NULL,
                       "Porta is already initialised");
  options o;
  PORTA_CHECK(read_options(argc && argv ? *argc : 0, argc && argv ? *argv : NULL, 1, &o));

  /* the option's device; a GPU back end that chooses one (by node-local rank) records it */
  porta_state_.device_id = o.device;
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b) {
    const porta_backend_ops *ops = porta_backend_ops_[b];
    const porta_backend_init_args args = {o.device, o.have_device,
                                          o.have_backend && o.backend == (porta_backend)b};
    if (ops->initialize) PORTA_CHECK(ops->initialize(&args));
  }
  /* The default: the last usable back end of the enum (Serial, then OpenMP, then a GPU). */
  porta_backend backend = PORTA_BACKEND_SERIAL;
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    if (porta_backend_available((porta_backend)b)) backend = (porta_backend)b;
  if (o.have_backend) {
    if (!porta_backend_available(o.backend)) {
      const porta_backend_ops *ops = porta_backend_ops_[o.backend];
      return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_initialize", NULL,
                         "back end '%s' was asked for but is not %s", porta_backend_name(o.backend),
                         ops->available && ops->unavailable_why ? ops->unavailable_why
                                                                : "compiled into this build");
    }
    backend = o.backend;
  }
  int threads = 1;
  const porta_backend_ops *threaded = porta_backend_threads_();
  if (threaded) {
    threads = o.threads > 0 ? o.threads : threaded->default_threads();
    /* OpenMP's own count (OMP_NUM_THREADS) is held to the same limit: 100000 had crashed */
    if (o.threads <= 0)
      PORTA_CHECK(check_thread_limit(threads, "porta_initialize", "OMP_NUM_THREADS"));
  } else if (o.threads > 1)
    return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_initialize", NULL,
                       "%d threads asked for, but OpenMP is not compiled in", o.threads);
  if (porta_backend_ops_[backend] && porta_backend_ops_[backend]->uses_host_threads)
    PORTA_CHECK(porta_thread_stacks_check_(threads, "porta_initialize"));
  porta_state_.default_backend = backend;
  porta_state_.num_threads = threads;
  porta_state_.deterministic = o.deterministic;
  porta_state_.profile_table = o.profile;
  PORTA_CHECK(porta_profiling_initialize(NULL, o.profile));
  consume_arguments(argc, argv);
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    porta_backend_usable_[b] =
        porta_backend_available((porta_backend)b) ? porta_backend_ops_[b] : NULL;
  porta_state_.initialized = 1;
  return PORTA_SUCCESS;
}

int porta_finalize(void) {
  if (!porta_state_.initialized)
    return porta_error(PORTA_ERROR_NOT_INITIALIZED, "porta_finalize", NULL,
                       "Porta is not initialised");
  if (porta_state_.recording) return porta_refuse_in_loop_("porta_finalize", NULL);
  porta_fence("porta_finalize");
  porta_reduce_end_clear_();
  porta_profiling_finalize(stdout);
  porta_host_workspace_free_();
  for (int b = PORTA_NUM_BACKENDS - 1; b >= 0; --b) {
    porta_backend_usable_[b] = NULL;
    if (porta_backend_ops_[b]->finalize) porta_backend_ops_[b]->finalize();
  }
  porta_state_.initialized = 0;
  porta_state_.default_space = -1;
  return PORTA_SUCCESS;
}

int porta_device_id(void) {
  return porta_state_.initialized && porta_backend_ops_[porta_state_.default_backend]->device_name
             ? porta_state_.device_id
             : -1;
}

const char *porta_device_name(void) {
  if (porta_device_id() >= 0)
    return porta_backend_ops_[porta_state_.default_backend]->device_name();
  return "";
}

void porta_print_configuration(FILE *out) {
  fprintf(out, "Porta %s\n", PORTA_VERSION_STRING);
  fprintf(out, "  back ends compiled:");
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    if (porta_backend_ops_[b]->available) fprintf(out, " %s", porta_backend_ops_[b]->name);
  fprintf(out, "\n");
  fprintf(out, "  default back end:   %s\n", porta_backend_name(porta_state_.default_backend));
  fprintf(out, "  OpenMP threads:     %d\n", porta_state_.num_threads);
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    if (porta_backend_ops_[b]->device_name)
      fprintf(out, "  GPU:                %s (device %d)\n", porta_backend_ops_[b]->device_name(),
              porta_state_.device_id);
  fprintf(out, "  deterministic:      %s\n", porta_state_.deterministic ? "on" : "off");
  fprintf(out, "  reproducible build: %s\n", PORTA_ENABLE_REPRODUCIBLE ? "on" : "off");
  fprintf(out, "  debug checks:       %s\n", PORTA_ENABLE_DEBUG ? "on" : "off");
  fprintf(out, "  profiling:          %s\n",
          porta_profiling_active_ ? (porta_state_.profile_table ? "table" : "tools") : "off");
}

/** The usable table of `exec`'s back end if it has a fence, else NULL (host back ends finish
 *  their work before a launch returns). */
static const porta_backend_ops *fence_ops(porta_exec exec) {
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  return ops && ops->fence ? ops : NULL;
}

int porta_fence_quiet_(porta_exec exec) {
  const porta_backend_ops *ops = fence_ops(exec);
  return ops ? ops->fence(exec.instance, "profile table") : PORTA_SUCCESS;
}

/** A fence inside a loop's body is refused: on a GPU the body is being recorded, and a wait
 *  there would end the recording. */
static int fence_in_loop(const char *label) {
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "fence", label,
                     "a fence inside the body of loop '%s' (a body only launches; fence after "
                     "porta_loop_run)",
                     porta_state_.recording);
}

int porta_exec_fence(porta_exec exec, const char *label) {
  if (PORTA_UNLIKELY(porta_state_.recording != NULL)) return fence_in_loop(label);
  uint64_t h = 0;
  if (PORTA_UNLIKELY(porta_profiling_active_))
    h = porta_profile_begin_fence_(label, porta_profile_device_id(exec.backend,
                                                                  (uint32_t)porta_state_.device_id,
                                                                  (uint32_t)exec.instance));
  const porta_backend_ops *ops = fence_ops(exec);
  const int rc = ops ? ops->fence(exec.instance, label) : PORTA_SUCCESS;
  if (PORTA_UNLIKELY(porta_profiling_active_)) porta_profile_end_fence_(h);
  return rc;
}

int porta_fence(const char *label) {
  if (PORTA_UNLIKELY(porta_state_.recording != NULL)) return fence_in_loop(label);
  /* A back end with instances of its own fences them all; otherwise the default one. */
  int any = 0;
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b) any |= porta_backend_ops_[b]->fence_all != NULL;
  if (!any) return porta_exec_fence(porta_exec_backend(porta_state_.default_backend), label);
  uint64_t h = 0;
  if (PORTA_UNLIKELY(porta_profiling_active_)) h = porta_profile_begin_fence_(label, 0);
  int rc = PORTA_SUCCESS;
  for (int b = 0; b < PORTA_NUM_BACKENDS; ++b)
    if (porta_backend_ops_[b]->fence_all) {
      const int r = porta_backend_ops_[b]->fence_all(label);
      if (rc == PORTA_SUCCESS) rc = r;
    }
  if (PORTA_UNLIKELY(porta_profiling_active_)) porta_profile_end_fence_(h);
  return rc;
}
