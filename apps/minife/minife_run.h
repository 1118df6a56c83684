/** @file minife_run.h
 *  A miniFE run from its command line to its reports, in the steps main takes: begin (the
 *  options, the decomposition and its size checks, the result file opened), set up (matrix
 *  structure, assembly, boundary conditions), solve (CG), report (the verification, the result
 *  file, the summaries, the YAML report) and finish. Each step stops the job with a message on
 *  failure (app_exit_all / APP_CHECK), so none returns a code. */
#ifndef MINIFE_RUN_H
#define MINIFE_RUN_H

#include "app_common.h"
#include "minife.h"
#include "minife_output.h"
#include "minife_verify.h"

/** Everything a run holds from begin to finish. */
typedef struct minife_run {
  minife m;
  app_cli cli;
  app_run_config config;
  app_h5 h5;
  app_timers timers;
  minife_report rep;
  minife_cg_result cg;
  minife_verify_result ver;
  app_summary summary;
  int rank, nranks;
  int64_t exchange_bytes; /**< this rank's bytes per exchange of p */
  double t_start;         /**< the clock when the run began (after the options) */
  int status;             /**< the exit status: 1 when the verification failed */
} minife_run;

/** MPI, Porta and the command line, the run's date, the decomposition with its size and memory
 *  checks, and the result file (a bad --out fails now, not after the solve). */
void minife_run_begin(minife_run *r, int *argc, char ***argv);
/** The matrix structure, the assembly of A and b, the Dirichlet conditions, the rows split for
 *  overlap, and the matrix statistics of the report. */
void minife_run_set_up(minife_run *r);
/** The CG solve (at most MINIFE_MAX_ITER iterations); a residual that is not finite stops. */
void minife_run_solve(minife_run *r);
/** The verification (if asked for), the result file, the JSON summary and the YAML report. */
void minife_run_report(minife_run *r);
/** Free everything and leave: exit status 1 when the verification failed, else 0. */
int minife_run_finish(minife_run *r);

/** Refuse (exit status 2, on every rank) a mesh whose ranks would overflow the 32-bit local
 *  indices or need more memory than their node or device has (minife_sizes.c). */
void minife_check_sizes(const minife *m);
/** The nonzeros of the rows of the owned nodes [lo, lo + n) of a mesh of `nodes` nodes: the
 *  27-point stencil cut at the mesh's faces (in double: a mesh far too large overflows 64 bits). */
double minife_stencil_nnz(const int64_t lo[3], const int64_t n[3], const int64_t nodes[3]);

#endif /* MINIFE_RUN_H */
