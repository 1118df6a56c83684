/** @file minimd_main.c
 *  miniMD on Porta: the run's steps (minimd_run.c, minimd_steps.c).
 *
 *    mpirun -np 4 minimd [-i in.lj.miniMD] [-s 32] [-n 100] [--half_neigh 0] [--porta-backend=...]
 *
 *  Exit status: 0 when the run completed, 1 for a run error (a lost atom, a non-finite
 *  position, an output failure), 2 for a bad deck, potential file or command line
 *  (APP_EXIT_*, README "Exit status"). */
#include "minimd_run.h"

int main(int argc, char **argv) {
  static minimd_run r; /* large (the atoms' state, the report's summary): not on the stack */
  minimd_run_begin(&r, &argc, &argv);
  minimd_run_set_up(&r);
  minimd_run_steps(&r);
  minimd_run_report(&r);
  return minimd_run_finish(&r);
}
