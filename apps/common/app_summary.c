/** @file app_summary.c
 *  The run summary in HDF5 and JSON (see app_summary.h). */
#include "app_summary.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "porta/exchange.h"
#include "app_file.h"

void app_summary_init(app_summary *s, const char *app) {
  memset(s, 0, sizeof *s);
  s->app = app;
  s->iteration_name = "iteration";
  s->check = APP_CHECK_NONE;
}

static const char *check_name(app_check c) {
  return c == APP_CHECK_PASSED ? "passed" : c == APP_CHECK_FAILED ? "failed" : "none";
}

/* The GPU model on CUDA, else "host". */
static const char *device_model(void) {
  const char *name = porta_device_name();
  return name[0] ? name : "host";
}

/* The CPU model from /proc/cpuinfo ("unknown" elsewhere). */
static void cpu_model(char *out, size_t n) {
  snprintf(out, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *v = strchr(line, ':');
    if (!v) break;
    for (++v; *v == ' ' || *v == '\t'; ++v) {
    }
    snprintf(out, n, "%s", v);
    out[strcspn(out, "\n")] = '\0';
    break;
  }
  fclose(f);
}

/* The build: the back ends compiled in and the options that change answers or speed. */
static void build_options(char *out, size_t n) {
  char list[256] = "";
#define APP_BUILT_BACKEND_(ID, name, on, A)                                                        \
  if (on) snprintf(list + strlen(list), sizeof list - strlen(list), "%s" #name, *list ? "," : "");
  PORTA_BACKEND_LIST(APP_BUILT_BACKEND_, ~)
#undef APP_BUILT_BACKEND_
  snprintf(out, n, "backends=%s reproducible_build=%s debug=%s compiler=%s", list,
           PORTA_ENABLE_REPRODUCIBLE ? "on" : "off", PORTA_ENABLE_DEBUG ? "on" : "off",
#if defined(__clang__)
           "clang " __clang_version__
#elif defined(__GNUC__)
           "gcc " __VERSION__
#else
           "unknown"
#endif
  );
}

/* ---- the fields: one list, written to HDF5 and to JSON ---- */

typedef enum field_kind {
  FIELD_STRING, /* NULL: "" in HDF5, null in JSON */
  FIELD_INT,
  FIELD_BOOL,    /* 0 / 1 in HDF5, false / true in JSON */
  FIELD_NUMBER,  /* null in JSON when not finite */
  FIELD_POSITIVE /* null in JSON unless above zero (0 means none) */
} field_kind;

typedef struct field {
  const char *key;
  field_kind kind;
  const char *s;
  int64_t i;
  double d;
} field;

enum { MAX_FIELDS = 32 };

typedef struct field_list {
  field f[MAX_FIELDS];
  int n;
  char cpu[256], build[256];
} field_list;

static void add(field_list *l, const char *key, field_kind kind, const char *s, int64_t i,
                double d) {
  field *f = &l->f[l->n++];
  f->key = key;
  f->kind = kind;
  f->s = s;
  f->i = i;
  f->d = d;
}

/* `per_iteration` times the iterations of the timed part, per second of it (0 without time) */
static double per_second(const app_summary *s, double per_iteration) {
  return s->solve_time > 0.0 ? per_iteration * (double)s->iterations / s->solve_time : 0.0;
}

static void fields(field_list *l, const app_summary *s, const app_run_config *rc) {
  l->n = 0;
  cpu_model(l->cpu, sizeof l->cpu);
  build_options(l->build, sizeof l->build);
  const double per_it = s->iterations > 0 ? s->solve_time / (double)s->iterations : 0.0;
  add(l, "app", FIELD_STRING, s->app, 0, 0.0);
  add(l, "input", FIELD_STRING, s->input, 0, 0.0);
  add(l, "size", FIELD_STRING, s->size, 0, 0.0);
  add(l, "backend", FIELD_STRING, rc->backend, 0, 0.0);
  add(l, "device", FIELD_STRING, device_model(), 0, 0.0);
  add(l, "devices", FIELD_STRING, rc->device, 0, 0.0);
  add(l, "cpu", FIELD_STRING, l->cpu, 0, 0.0);
  add(l, "ranks", FIELD_INT, NULL, rc->ranks, 0.0);
  add(l, "threads", FIELD_INT, NULL, rc->threads, 0.0);
  add(l, "exchange", FIELD_STRING, s->exchange[0] ? s->exchange : "none", 0, 0.0);
  add(l, "reproducible", FIELD_BOOL, NULL, rc->reproducible, 0.0);
  add(l, "sums", FIELD_STRING, rc->exact_sums ? "exact" : "ordinary", 0, 0.0);
  add(l, "porta_version", FIELD_STRING, rc->version, 0, 0.0);
  add(l, "build", FIELD_STRING, l->build, 0, 0.0);
  add(l, "iteration_name", FIELD_STRING, s->iteration_name, 0, 0.0);
  add(l, "iterations", FIELD_INT, NULL, s->iterations, 0.0);
  add(l, "solve_time_s", FIELD_NUMBER, NULL, 0, s->solve_time);
  add(l, "time_per_iteration_s", FIELD_POSITIVE, NULL, 0, per_it);
  add(l, "total_time_s", FIELD_NUMBER, NULL, 0, s->total_time);
  add(l, "rate", FIELD_POSITIVE, NULL, 0, per_second(s, s->work_per_iteration));
  add(l, "rate_unit", FIELD_STRING, s->rate_unit, 0, 0.0);
  add(l, "bandwidth_gbs", FIELD_POSITIVE, NULL, 0, per_second(s, s->bytes_per_iteration) * 1e-9);
  add(l, "check_detail", FIELD_STRING, s->check_detail, 0, 0.0);
  add(l, "check", FIELD_STRING, check_name(s->check), 0, 0.0);
  add(l, "fields_digest", FIELD_STRING, s->fields_digest[0] ? s->fields_digest : NULL, 0, 0.0);
}

int app_summary_agree(app_summary *s, MPI_Comm comm) {
  double t[2] = {s->solve_time, s->total_time}, mx[2];
  const int rc = MPI_Allreduce(t, mx, 2, MPI_DOUBLE, MPI_MAX, comm);
  if (rc != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "app_summary_agree", s->app, "MPI_Allreduce failed");
  s->solve_time = mx[0];
  s->total_time = mx[1];
  PORTA_CHECK(porta_exchange_transports_agree(comm, s->exchange, sizeof s->exchange));
  int me = 0;
  MPI_Comm_rank(comm, &me);
  if (me == 0) {
    printf("# Halo exchange: %s\n", s->exchange);
    fflush(stdout);
  }
  return PORTA_SUCCESS;
}

int app_summary_write_h5(app_summary *s, const app_run_config *rc, app_h5 *h) {
  const char *g = "/summary";
  field_list l;
  if (h->digested > 0)
    snprintf(s->fields_digest, sizeof s->fields_digest, "%016llx", (unsigned long long)h->digest);
  fields(&l, s, rc);
  PORTA_CHECK(app_h5_group(h, g));
  for (int k = 0; k < l.n; ++k) {
    const field *f = &l.f[k];
    if (f->kind == FIELD_STRING)
      PORTA_CHECK(app_h5_attr_string(h, g, f->key, f->s ? f->s : ""));
    else if (f->kind == FIELD_INT || f->kind == FIELD_BOOL)
      PORTA_CHECK(app_h5_attr_int(h, g, f->key, f->i));
    else
      PORTA_CHECK(app_h5_attr_double(h, g, f->key, f->d));
  }
  return PORTA_SUCCESS;
}

/* ---- JSON ---- */

/* The length of the well-formed UTF-8 sequence at p (1-4), or 0 where p starts none (a stray
   continuation byte, an overlong form, a surrogate, past U+10FFFF, a sequence cut short). */
static int utf8_length(const unsigned char *p) {
  if (p[0] < 0x80) return 1;
  int n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
  if (n == 0 || p[0] > 0xf4) return 0;
  for (int i = 1; i < n; ++i)
    if ((p[i] & 0xc0) != 0x80) return 0;
  if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) return 0;
  if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))) return 0;
  return n;
}

/* A JSON string: quotes, backslashes and control bytes escaped, and every byte that is not
   part of well-formed UTF-8 (a path in another encoding) written as U+FFFD, so that every JSON
   reader loads the file (a path with byte 0xff had made it unreadable). */
static void json_string(FILE *out, const char *v) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)v; *p;) {
    const int n = utf8_length(p);
    if (n == 0) {
      fputs("\\ufffd", out);
      ++p;
    } else if (*p == '"' || *p == '\\') {
      fprintf(out, "\\%c", *p++);
    } else if (*p < 0x20) {
      fprintf(out, "\\u%04x", *p++);
    } else {
      fwrite(p, 1, (size_t)n, out);
      p += n;
    }
  }
  fputc('"', out);
}

static void json_field(FILE *out, const field *f) {
  fprintf(out, "  \"%s\": ", f->key);
  if (f->kind == FIELD_STRING) {
    if (f->s)
      json_string(out, f->s);
    else
      fputs("null", out);
  } else if (f->kind == FIELD_INT) {
    fprintf(out, "%lld", (long long)f->i);
  } else if (f->kind == FIELD_BOOL) {
    fputs(f->i ? "true" : "false", out);
  } else if (!isfinite(f->d) || (f->kind == FIELD_POSITIVE && !(f->d > 0.0))) {
    fputs("null", out);
  } else {
    fprintf(out, "%.17g", f->d);
  }
}

int app_summary_probe(const char *path, const char *const *keep, int nkeep, MPI_Comm comm) {
  int rank = 0, bad[2] = {0, -1}; /* errno, or the kept file it would replace */
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    const int standard_output = !strcmp(path, "-"); /* no file of that name is written */
    for (int k = 0; k < nkeep && bad[1] < 0 && !standard_output; ++k)
      if (keep[k] && keep[k][0] && app_file_same(path, keep[k])) bad[1] = k;
    if (bad[1] < 0) bad[0] = app_text_file_probe(path);
  }
  if (MPI_Bcast(bad, 2, MPI_INT, 0, comm) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "app_summary_probe", path, "MPI_Bcast failed");
  if (bad[1] >= 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "--summary-json", path,
                       "this is '%s', a file of this run (its input or its result): the summary "
                       "would replace it",
                       keep[bad[1]]);
  if (bad[0])
    return porta_error(PORTA_ERROR_IO, "--summary-json", path, "cannot write it: %s",
                       strerror(bad[0]));
  return PORTA_SUCCESS;
}

int app_summary_write_json(const app_summary *s, const app_run_config *rc, const char *path) {
  static const char op[] = "app_summary_write_json";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return PORTA_SUCCESS;
  field_list l;
  fields(&l, s, rc);
  app_text_file t;
  PORTA_CHECK(app_text_file_open(op, path, &t));
  fputs("{\n", t.f);
  for (int k = 0; k < l.n; ++k) {
    json_field(t.f, &l.f[k]);
    fputs(k + 1 < l.n ? ",\n" : "\n", t.f);
  }
  fputs("}\n", t.f);
  return app_text_file_commit(op, &t);
}
