/** @file tea_output.h
 *  TeaLeaf's report (like the reference's tea.out, on rank 0's stdout), the test_problem
 *  self-check, and the result file NAME.h5 with NAME.xmf beside it. */
#ifndef TEA_OUTPUT_H
#define TEA_OUTPUT_H

#include <stdio.h>

#include "app_common.h"
#include "tea_chunk.h"

PORTA_EXTERN_C_BEGIN

/** Per-step table (every step). */
typedef struct tea_history {
  int n, cap;
  double *step, *time, *iterations, *true_iterations, *inner_iterations, *error;
  double *volume, *mass, *density, *energy, *u;
} tea_history;

/** Append one step (st NULL: the initial state) to the history. Returns a Porta code. */
int tea_history_add(tea_history *h, int step, double time, const tea_step_stats *st,
                    const tea_summary *sum);
void tea_history_free(tea_history *h);

/** Fortran-like E format: "0.dddE+xx" with `digits` digits. */
void tea_fmt_e(char *buf, size_t len, double v, int digits);

void tea_print_header(FILE *out, const app_deck *deck, const app_run_config *rc,
                      const tea_settings *s, const porta_decomp *d);
void tea_print_summary(FILE *out, int step, double time, const tea_summary *sum);
void tea_print_step_start(FILE *out, int step, double time, double dt);
void tea_print_step_end(FILE *out, const tea_settings *s, const tea_step_stats *st,
                        double solve_time);

/** Rank 0: how the solver's exchanges ran (beside an update on a second instance, or after it),
 *  as "# ..." lines. */
void tea_print_exchange_notes(FILE *out, tea_chunk *c, const tea_settings *s);

/** test_problem check: 0 = no check (test_problem 0), 1 = PASSED, -1 = NOT PASSED. */
int tea_check(const tea_settings *s, double u, double *u_ref, double *qa_diff);
void tea_print_check(FILE *out, const tea_settings *s, int verdict, double qa_diff);

/** Everything the result file holds besides the chunk's fields. */
typedef struct tea_results {
  const app_deck *deck;
  const app_run_config *rc;
  const tea_settings *s;
  const porta_decomp *d;
  const tea_history *hist;
  const app_timers *timers;
  double wall, u_ref, qa_diff;
  int verdict, steps;
  double time;
  app_summary *summary; /**< stored as /summary (its fields' digest set then) */
} tea_results;

/** The run summary: cells, solver, iterations over all steps and this rank's solve time, the
 *  bytes per iteration for CG (the reference's 112 per cell), and the deck's test problem
 *  verdict (none without one). */
void tea_summary_make(app_summary *s, const tea_settings *set, const char *deck_path,
                      const app_timers *timers, int solve_timer, int64_t iterations, double wall,
                      int verdict, double qa_diff);

/** The result file while the run goes on. Its temporary (app_h5.h) is created by
 *  tea_h5_out_open before the solve (so a bad --out fails before any work) and only renamed to
 *  NAME.h5 by tea_write_results once everything is in it, so a run that stops early never
 *  leaves a NAME.h5 that looks complete (and a killed run leaves no temporary either). */
typedef struct tea_h5_out {
  char name[APP_PATH_MAX]; /**< NAME (the file is NAME.h5) */
  app_h5 h;
  int open;           /**< h is open (its temporary exists) */
  int nsnap, cap;     /**< snapshots written so far */
  int64_t *snap_step; /**< their steps ... */
  double *snap_time;  /**< ... and times */
} tea_h5_out;

/** Start with nothing written; NAME is the result name without ".h5". */
void tea_h5_out_init(tea_h5_out *o, const char *name);
/** Collective: create the temporary result file now (the snapshots and tea_write_results
 *  create it on first use otherwise). Returns a Porta code; on failure the message names the
 *  path and the OS's reason. */
int tea_h5_out_open(tea_h5_out *o, MPI_Comm comm);
/** Release the snapshot lists; if the file is still open (a run that failed before
 *  tea_write_results), close it collectively and remove its temporary. */
void tea_h5_out_free(tea_h5_out *o);

/** Collective: one visit_frequency snapshot (the reference's visit dump): the fields u, energy
 *  (energy1) and density on the global grid, each rank writing its block like /fields, under
 *  /snapshots/step_NNNNNN/{u,energy,density}; the group has attributes `step` and `time`.
 *  Returns a Porta code (message in porta_last_error_message(); on a failure the temporary file
 *  is removed). */
int tea_write_snapshot(tea_h5_out *o, tea_chunk *c, const tea_settings *s, const porta_decomp *d,
                       int step, double time);

/** Collective: write the rest of NAME.h5 (attributes - the deck's text, of any length, in the
 *  attribute `deck` -, /steps, /fields, /timings, and with snapshots /snapshots/step and
 *  /snapshots/time listing them), rename it from its temporary, and
 *  write NAME.xmf: the snapshots as a temporal collection when there are any, else /fields (a
 *  NAME.xmf that cannot be written is a warning on stderr). Returns a Porta code (message in
 *  porta_last_error_message()). */
int tea_write_results(tea_h5_out *o, tea_chunk *c, const tea_results *r);

PORTA_EXTERN_C_END

#endif /* TEA_OUTPUT_H */
