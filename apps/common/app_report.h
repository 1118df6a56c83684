/** @file app_report.h
 *  Run report helpers: the run configuration (version, back end, ranks, threads, device,
 *  reproducible flag), named wall-clock timers reduced over ranks, and sums across ranks.
 */
#ifndef APP_REPORT_H
#define APP_REPORT_H

#include <mpi.h>
#include <stdio.h>

#include "porta/exchange_decomp.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

typedef struct app_run_config {
  char version[32];
  char backend[16];
  char device[64];
  int ranks, threads, reproducible, deterministic;
  int exact_sums; /**< the global sums are exact (--sums, --reproducible or the app's default) */
  int dims[PORTA_DECOMP_MAX_DIMS], ndims;
} app_run_config;

void app_run_config_fill(app_run_config *rc, const porta_decomp *d, int reproducible,
                         int exact_sums);
/** "key: value" lines (rank 0 calls it). */
void app_run_config_print(FILE *out, const app_run_config *rc);

#define APP_MAX_TIMERS 24
typedef struct app_timers {
  int n;
  char name[APP_MAX_TIMERS][32];
  double total[APP_MAX_TIMERS];
  double start[APP_MAX_TIMERS];
} app_timers;

/** Id of timer `name` (created on first use; -1 when full). */
int app_timer_id(app_timers *t, const char *name);
void app_timer_start(app_timers *t, int id);
void app_timer_stop(app_timers *t, int id);
/** Collective: max and mean over ranks of every timer (arrays of t->n). */
void app_timers_reduce(const app_timers *t, MPI_Comm comm, double *max, double *mean);
/** Collective: rank 0 prints a table "name  max  mean  %" with `total` the run's wall time. */
void app_timers_print(FILE *out, const app_timers *t, MPI_Comm comm, double total);

/** Sum values[0..n) over the ranks of comm in place (MPI_Allreduce; the result may differ in
 *  the last bits between rank counts - exact sums are porta_xsum_f64's). Returns a Porta code
 *  (PORTA_ERROR_BACKEND with MPI's error string when MPI_Allreduce fails). */
int app_allreduce_sum(MPI_Comm comm, double *values, int n);

PORTA_EXTERN_C_END

#endif /* APP_REPORT_H */
