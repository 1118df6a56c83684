/** @file minimd_run.h
 *  A miniMD run from its deck to its reports, in the steps main takes: begin (the command line,
 *  the deck, the data file, the variants of the run), set up (box, decomposition and its size
 *  checks, potential, bins, the result file, the atoms), the time steps (minimd_steps.c), the
 *  report (the summary, the result file, the YAML report) and finish. Each step stops the job
 *  with a message on failure (app_exit_all / APP_CHECK), so none returns a code. */
#ifndef MINIMD_RUN_H
#define MINIMD_RUN_H

#include <stdint.h>

#include "app_common.h"
#include "app_h5.h"
#include "minimd.h"
#include "minimd_data.h"
#include "minimd_params.h"

/** Everything a run holds from begin to finish. */
typedef struct minimd_run {
  minimd m;
  minimd_cli cl; /**< miniMD's own options */
  app_cli cli;   /**< the options every app takes */
  minimd_data data;
  app_h5 h5;
  app_run_config config;
  app_summary summary;
  int rank, nranks;
  int threads;      /**< the threads that ran the kernels (the Performance Summary's) */
  int sort_every;   /**< steps between sorts of the atoms by bin (0: never) */
  double t_program; /**< the clock after the command line */
  int64_t *snap;    /**< the steps of the snapshots written */
  int nsnap;
} minimd_run;

/** MPI, Porta and the command line, the deck (and a data file it names), and the variants of
 *  the run: the neighbour list kind, re-neighbouring on the device, overlap, sorting. */
void minimd_run_begin(minimd_run *r, int *argc, char ***argv);
/** The box and decomposition (refused when its ranks cannot hold it), the potential, the bins,
 *  the result file (a bad --out fails now, not after the run) and the atoms with their
 *  velocities. */
void minimd_run_set_up(minimd_run *r);
/** Step 0, the velocity-Verlet loop with re-neighbouring, thermo lines and snapshots, the
 *  check that no atom was lost, and the Performance Summary (minimd_steps.c). */
void minimd_run_steps(minimd_run *r);
/** The run summary, the result file and its XDMF description, the JSON summary and the
 *  reference's YAML report. */
void minimd_run_report(minimd_run *r);
/** Free everything and leave MPI; the exit status 0. */
int minimd_run_finish(minimd_run *r);

/** Refuse (exit status 2, on every rank) a system its ranks' memory (host or device) cannot
 *  hold, a box less than half the neighbour cut-off wide in any dimension, or a cut-off more
 *  than 63 sub-domains wide (minimd_bins.c). */
void minimd_check_sizes(const minimd *m, const double prd[3]);

#endif /* MINIMD_RUN_H */
