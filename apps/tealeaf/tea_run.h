/** @file tea_run.h
 *  A TeaLeaf run from its command line to its result file, in the steps main takes: begin (the
 *  deck, the decomposition, the result file opened), set up (the chunk and its fields), the
 *  time steps, the report (the check, the result file, the timers) and finish. Each step stops
 *  the job with a message on failure (app_exit_all / app_fatal), so none returns a code. */
#ifndef TEA_RUN_H
#define TEA_RUN_H

#include <stdint.h>

#include "app_common.h"
#include "tea_chunk.h"
#include "tea_output.h"

/** Everything a run holds from begin to finish. */
typedef struct tea_run {
  app_cli cli;
  app_deck deck;
  tea_settings s;
  porta_decomp d;
  app_run_config config;
  tea_h5_out h5;
  app_timers timers;
  int t_init, t_solve, t_summary, t_output; /**< timer ids */
  tea_chunk c;
  tea_history hist;
  tea_summary sum;    /**< the field summary of the last step */
  int visit;          /**< a snapshot every `visit` steps (0: none) */
  int step;           /**< the steps run */
  double time;        /**< the simulated time */
  int64_t iterations; /**< solver iterations of every step */
  double wall0, wall; /**< the clock at the start of set-up; the run's wall time */
  int verdict;        /**< tea_check's */
  double u_ref, qa;   /**< tea_check's reference and relative difference */
  app_summary summary;
} tea_run;

/** MPI, Porta and the command line (`spec`), the deck, the decomposition, the result file
 *  (a bad --out fails now, not after the solve) and the report's header. */
void tea_run_begin(tea_run *r, int *argc, char ***argv, const app_cli_spec *spec);
/** The chunk: fields allocated and generated, the first field summary, snapshot 0. From here
 *  on any failure of Porta stops the job with its message. */
void tea_run_set_up(tea_run *r);
/** The time steps, each a solve and a field summary, to end_time or end_step. */
void tea_run_steps(tea_run *r);
/** The final summary and the check, the result file, the JSON summary and the timers. */
void tea_run_report(tea_run *r);
/** Free everything and leave: exit status 1 when the check is NOT PASSED, else 0. */
int tea_run_finish(tea_run *r);

#endif /* TEA_RUN_H */
