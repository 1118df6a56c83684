/** @file app_summary.c
 *  The run summary in HDF5 and JSON (see app_summary.h). */
#include "app_summary.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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
  snprintf(out, n, "backends=serial%s%s reproducible_build=%s debug=%s compiler=%s",
           PORTA_ENABLE_OPENMP ? ",openmp" : "", PORTA_ENABLE_CUDA ? ",cuda" : "",
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

static double per_iteration(const app_summary *s) {
  return s->iterations > 0 ? s->solve_time / (double)s->iterations : 0.0;
}

int app_summary_agree(app_summary *s, MPI_Comm comm) {
  double t[2] = {s->solve_time, s->total_time}, mx[2];
  const int rc = MPI_Allreduce(t, mx, 2, MPI_DOUBLE, MPI_MAX, comm);
  if (rc != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "app_summary_agree", s->app, "MPI_Allreduce failed");
  if (s->rate > 0.0 && mx[0] > 0.0) s->rate *= s->solve_time / mx[0]; /* work / the max time */
  if (s->bandwidth_gbs > 0.0 && mx[0] > 0.0) s->bandwidth_gbs *= s->solve_time / mx[0];
  s->solve_time = mx[0];
  s->total_time = mx[1];
  return PORTA_SUCCESS;
}

int app_summary_write_h5(const app_summary *s, const app_run_config *rc, app_h5 *h) {
  const char *g = "/summary";
  char cpu[256], build[256];
  cpu_model(cpu, sizeof cpu);
  build_options(build, sizeof build);
  PORTA_CHECK(app_h5_group(h, g));
  PORTA_CHECK(app_h5_attr_string(h, g, "app", s->app));
  PORTA_CHECK(app_h5_attr_string(h, g, "input", s->input));
  PORTA_CHECK(app_h5_attr_string(h, g, "size", s->size));
  PORTA_CHECK(app_h5_attr_string(h, g, "backend", rc->backend));
  PORTA_CHECK(app_h5_attr_string(h, g, "device", device_model()));
  PORTA_CHECK(app_h5_attr_string(h, g, "devices", rc->device));
  PORTA_CHECK(app_h5_attr_string(h, g, "cpu", cpu));
  PORTA_CHECK(app_h5_attr_int(h, g, "ranks", rc->ranks));
  PORTA_CHECK(app_h5_attr_int(h, g, "threads", rc->threads));
  PORTA_CHECK(app_h5_attr_int(h, g, "reproducible", rc->reproducible));
  PORTA_CHECK(app_h5_attr_string(h, g, "porta_version", rc->version));
  PORTA_CHECK(app_h5_attr_string(h, g, "build", build));
  PORTA_CHECK(app_h5_attr_string(h, g, "iteration_name", s->iteration_name));
  PORTA_CHECK(app_h5_attr_int(h, g, "iterations", s->iterations));
  PORTA_CHECK(app_h5_attr_double(h, g, "solve_time_s", s->solve_time));
  PORTA_CHECK(app_h5_attr_double(h, g, "time_per_iteration_s", per_iteration(s)));
  PORTA_CHECK(app_h5_attr_double(h, g, "total_time_s", s->total_time));
  PORTA_CHECK(app_h5_attr_double(h, g, "rate", s->rate));
  PORTA_CHECK(app_h5_attr_string(h, g, "rate_unit", s->rate_unit ? s->rate_unit : ""));
  PORTA_CHECK(app_h5_attr_double(h, g, "bandwidth_gbs", s->bandwidth_gbs));
  PORTA_CHECK(app_h5_attr_string(h, g, "check", check_name(s->check)));
  return app_h5_attr_string(h, g, "check_detail", s->check_detail);
}

/* ---- JSON ---- */

static void json_string(FILE *f, const char *key, const char *v) {
  fprintf(f, "  \"%s\": \"", key);
  for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p; ++p) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputs("\",\n", f);
}

/* a number, or null when it is not one or (positive_only) when it is not above zero */
static void json_number(FILE *f, const char *key, double v, int positive_only) {
  if (!isfinite(v) || (positive_only && !(v > 0.0)))
    fprintf(f, "  \"%s\": null,\n", key);
  else
    fprintf(f, "  \"%s\": %.17g,\n", key, v);
}

int app_summary_probe(const char *path, MPI_Comm comm) {
  int rank = 0, err = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
      err = errno ? errno : EIO;
    else {
      fclose(f);
      remove(tmp);
    }
  }
  if (MPI_Bcast(&err, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "app_summary_probe", path, "MPI_Bcast failed");
  if (err)
    return porta_error(PORTA_ERROR_IO, "--summary-json", path, "cannot create: %s", strerror(err));
  return PORTA_SUCCESS;
}

int app_summary_write_json(const app_summary *s, const app_run_config *rc, const char *path) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return PORTA_SUCCESS;
  char tmp[1100], cpu[256], build[256];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  cpu_model(cpu, sizeof cpu);
  build_options(build, sizeof build);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return porta_error(PORTA_ERROR_IO, "app_summary_write_json", path, "cannot create: %s",
                       strerror(errno));
  fputs("{\n", f);
  json_string(f, "app", s->app);
  json_string(f, "input", s->input);
  json_string(f, "size", s->size);
  json_string(f, "backend", rc->backend);
  json_string(f, "device", device_model());
  json_string(f, "devices", rc->device);
  json_string(f, "cpu", cpu);
  fprintf(f, "  \"ranks\": %d,\n  \"threads\": %d,\n  \"reproducible\": %s,\n", rc->ranks,
          rc->threads, rc->reproducible ? "true" : "false");
  json_string(f, "porta_version", rc->version);
  json_string(f, "build", build);
  json_string(f, "iteration_name", s->iteration_name);
  fprintf(f, "  \"iterations\": %lld,\n", (long long)s->iterations);
  json_number(f, "solve_time_s", s->solve_time, 0);
  json_number(f, "time_per_iteration_s", per_iteration(s), 1);
  json_number(f, "total_time_s", s->total_time, 0);
  json_number(f, "rate", s->rate, 1);
  if (s->rate_unit)
    json_string(f, "rate_unit", s->rate_unit);
  else
    fputs("  \"rate_unit\": null,\n", f);
  json_number(f, "bandwidth_gbs", s->bandwidth_gbs, 1);
  json_string(f, "check_detail", s->check_detail);
  fprintf(f, "  \"check\": \"%s\"\n}\n", check_name(s->check));
  const int bad = ferror(f);
  if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
    const int e = errno;
    remove(tmp);
    return porta_error(PORTA_ERROR_IO, "app_summary_write_json", path, "write failed: %s",
                       strerror(e));
  }
  return PORTA_SUCCESS;
}
