/** @file tea_main.c
 *  TeaLeaf on Porta: its command line and environment, and the run's steps (tea_run.c).
 *
 *    mpirun -np 4 tealeaf [--reproducible] [--out NAME] [--porta-backend=...] [DECK]
 *
 *  Exit status: 0 when the run completed and (with test_problem >= 1) its check PASSED,
 *  1 when the check is NOT PASSED or a run error occurred, 2 for a bad deck or command line
 *  (APP_EXIT_*, README "Exit status"). */
#include "tea_run.h"

/* TeaLeaf's environment switches (read in tea_comm.c, tea_solve_loop.c and tea_pass.c) */
static const app_env_switch tea_env[] = {
    {"TEA_HALO_BESIDE", "0|1",
     "1: exchanges beside the inside's update on host back ends too; 0: never (default: on a "
     "GPU with neighbours)"},
    {"TEA_DEVICE_LOOP", "0|1",
     "1: the solver's iterations as a recorded loop on host back ends too; 0: never (default: "
     "on a GPU, with exact sums too; on several ranks where their sums and exchanges can be "
     "queued; every solver and preconditioner)"},
    {"TEA_LOOP_FUSE", "0|1",
     "1: CG computes beta in its p update (one kernel less); 0: in a kernel of its own "
     "(default: fused on a GPU up to 4194304 cells)"}};

/* TeaLeaf's command line: a deck, no options of its own. */
static const app_cli_spec tea_cli = {
    .program = "tealeaf",
    .description = "TeaLeaf (TeaLeaf_ref 1.403 on Porta): implicit 2D heat conduction",
    .default_input = "tea.in",
    .default_output = "tealeaf",
    .takes_input = 1,
    .env = tea_env,
    .nenv = (int)(sizeof tea_env / sizeof tea_env[0]),
    /* exact sums cost 1.00-1.05x a CG iteration on a CPU or one GPU, 1.06x on two H200s */
    .sums_by_default = APP_SUMS_EXACT_BUT_GPUS};

int main(int argc, char **argv) {
  static tea_run r; /* large (the report's summary): not on the stack */
  tea_run_begin(&r, &argc, &argv, &tea_cli);
  tea_run_set_up(&r);
  tea_run_steps(&r);
  tea_run_report(&r);
  return tea_run_finish(&r);
}
