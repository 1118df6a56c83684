/** @file app_report.c
 *  Run configuration, timers and exact sums (see app_report.h). */
#include "app_report.h"

#include <stdlib.h>
#include <string.h>

void app_run_config_fill(app_run_config *rc, const porta_decomp *d, int reproducible,
                         int exact_sums) {
  memset(rc, 0, sizeof *rc);
  snprintf(rc->version, sizeof rc->version, "%s", PORTA_VERSION_STRING);
  porta_exec e = porta_exec_default();
  snprintf(rc->backend, sizeof rc->backend, "%s", porta_backend_name(e.backend));
  MPI_Comm_size(MPI_COMM_WORLD, &rc->ranks);
  const porta_exec_traits traits = porta_exec_query(e);
  if (traits.on_device) {
    /* the GPU of every rank, in rank order (collective: every rank calls this) */
    int mine = porta_device_id(), *all = (int *)malloc(sizeof(int) * (size_t)rc->ranks);
    if (!all) { /* the others are entering the collective: stop the job, do not hang it */
      fprintf(stderr, "app_run_config_fill: out of memory for %d device ids\n", rc->ranks);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS) {
      const int cap = (int)sizeof rc->device - 8; /* room for " ..." */
      int n = snprintf(rc->device, sizeof rc->device,
                       "%s, GPU of each rank:", porta_backend_name(e.backend)),
          r = 0;
      for (; r < rc->ranks && n < cap; ++r)
        n += snprintf(rc->device + n, sizeof rc->device - (size_t)n, " %d", all[r]);
      if (r < rc->ranks) snprintf(rc->device + (n < cap ? n : cap), 5, " ...");
    } else {
      snprintf(rc->device, sizeof rc->device, "%s, GPU %d", porta_backend_name(e.backend), mine);
    }
    free(all);
  } else {
    snprintf(rc->device, sizeof rc->device, "host");
  }
  /* host threads that ran the kernels: OpenMP's count; Serial runs on one thread and a GPU
     rank is driven by one, whatever OpenMP's count (16 had been reported for a CUDA run) */
  rc->threads = traits.host_threads ? porta_num_threads() : 1;
  rc->reproducible = reproducible;
  rc->exact_sums = exact_sums;
  rc->deterministic = porta_deterministic();
  if (d) {
    rc->ndims = d->ndims;
    for (int i = 0; i < d->ndims; ++i) rc->dims[i] = d->dims[i];
  }
}

void app_run_config_print(FILE *out, const app_run_config *rc) {
  fprintf(out, " Porta version    %s\n", rc->version);
  fprintf(out, " Backend          %s\n", rc->backend);
  fprintf(out, " Device           %s\n", rc->device);
  fprintf(out, " MPI ranks        %d", rc->ranks);
  if (rc->ndims > 0) {
    fprintf(out, " (");
    for (int i = 0; i < rc->ndims; ++i) fprintf(out, "%s%d", i ? " x " : "", rc->dims[i]);
    fprintf(out, ")");
  }
  fprintf(out, "\n Threads per rank %d\n", rc->threads);
  fprintf(out, " Reproducible     %s\n", rc->reproducible ? "yes" : "no");
  fprintf(out, " Sums             %s\n", rc->exact_sums ? "exact" : "ordinary");
}

int app_timer_id(app_timers *t, const char *name) {
  for (int i = 0; i < t->n; ++i)
    if (!strcmp(t->name[i], name)) return i;
  if (t->n == APP_MAX_TIMERS) return -1;
  snprintf(t->name[t->n], sizeof t->name[0], "%s", name);
  t->total[t->n] = 0;
  return t->n++;
}

void app_timer_start(app_timers *t, int id) {
  if (id >= 0) t->start[id] = porta_wtime();
}
void app_timer_stop(app_timers *t, int id) {
  if (id >= 0) t->total[id] += porta_wtime() - t->start[id];
}

void app_timers_reduce(const app_timers *t, MPI_Comm comm, double *max, double *mean) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (t->n == 0) return;
  MPI_Allreduce(t->total, max, t->n, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(t->total, mean, t->n, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < t->n; ++i) mean[i] /= size;
}

void app_timers_print(FILE *out, const app_timers *t, MPI_Comm comm, double total) {
  double mx[APP_MAX_TIMERS], mean[APP_MAX_TIMERS];
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  app_timers_reduce(t, comm, mx, mean);
  if (rank != 0) return;
  fprintf(out, " %-24s %14s %14s %8s\n", "Timer", "max (s)", "mean (s)", "% wall");
  for (int i = 0; i < t->n; ++i)
    fprintf(out, " %-24s %14.6e %14.6e %8.2f\n", t->name[i], mx[i], mean[i],
            total > 0 ? 100.0 * mx[i] / total : 0.0);
}

int app_allreduce_sum(MPI_Comm comm, double *values, int n) {
  if (n <= 0) return PORTA_SUCCESS;
  int rc = MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, comm);
  if (rc == MPI_SUCCESS) return PORTA_SUCCESS;
  char why[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, why, &len);
  return porta_error(PORTA_ERROR_BACKEND, "app_allreduce_sum", NULL,
                     "MPI_Allreduce of %d values failed: %s", n, why);
}
