/** @file minife_main.c
 *  miniFE on Porta: the run's steps (minife_run.c).
 *
 *    mpirun -np 4 minife -nx 100 [-ny N] [-nz N] [verify_solution=1] [--porta-backend=...]
 *
 *  Exit status: 0 when the run completed (and its verification, if asked for, passed), 1 when
 *  the verification failed or a run error occurred, 2 for a bad command line or an impossible
 *  size (APP_EXIT_*, README "Exit status"). */
#include "minife_run.h"

int main(int argc, char **argv) {
  static minife_run r; /* large (the report's summary): not on the stack */
  minife_run_begin(&r, &argc, &argv);
  minife_run_set_up(&r);
  minife_run_solve(&r);
  minife_run_report(&r);
  return minife_run_finish(&r);
}
