/** @file tea_main.c
 *  TeaLeaf on Porta: command line, deck, decomposition, time loop, report, results.
 *
 *    mpirun -np 4 tealeaf [--reproducible] [--out NAME] [--porta-backend=...] [DECK]
 *
 *  Exit status: 0 when the run completed and (with test_problem >= 1) its check PASSED,
 *  1 when the check is NOT PASSED or a run error occurred, 2 for a bad command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app_common.h"
#include "tea_chunk.h"
#include "tea_comm.h"
#include "tea_deck.h"
#include "tea_output.h"

/* TeaLeaf's environment switch (read in tea_comm.c) */
static const app_env_switch tea_env[] = {
    {"TEA_HALO_BESIDE", "0|1",
     "1: exchanges beside the inside's update on host back ends too; 0: never (default: on a "
     "GPU with neighbours)"}};

/* TeaLeaf's command line: a deck, no options of its own. */
static const app_cli_spec tea_cli = {
    .program = "tealeaf",
    .description = "TeaLeaf (TeaLeaf_ref 1.403 on Porta): implicit 2D heat conduction",
    .default_input = "tea.in",
    .default_output = "tealeaf",
    .takes_input = 1,
    .env = tea_env,
    .nenv = (int)(sizeof tea_env / sizeof tea_env[0])};

/* Output calls report failures as codes (in a PORTA_ERROR_MODE_RETURN scope, the job's fatal
 * mode untouched), so the writer can remove its temporary file first; then the job stops with
 * the writer's message. */
#define TEA_OUTPUT(call)                                                                           \
  do {                                                                                             \
    const porta_error_scope tea_output_scope_ =                                                    \
        porta_error_scope_begin(PORTA_ERROR_MODE_RETURN, NULL, NULL);                              \
    int tea_output_rc_ = (call);                                                                   \
    porta_error_scope_end(tea_output_scope_);                                                      \
    if (tea_output_rc_ != PORTA_SUCCESS) app_fatal("%s", porta_last_error_message());              \
  } while (0)

int main(int argc, char **argv) {
  app_cli cli;
  app_begin(&argc, &argv, &tea_cli, &cli);
  const int rank = app_mpi_rank();
  FILE *out = stdout;

  /* ---- deck: read on rank 0, parsed everywhere ---- */
  app_deck deck;
  if (app_deck_load(&deck, cli.input, MPI_COMM_WORLD)) {
    /* like the reference: no tea.in -> run the default deck; but a tea.in that is there and
       cannot be read (a directory, too large, unreadable) is the user's deck: an error */
    int missing = 0;
    if (rank == 0) {
      struct stat sb;
      missing = lstat(cli.input, &sb) != 0 && errno == ENOENT;
    }
    if (MPI_Bcast(&missing, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
      app_fatal("MPI_Bcast failed");
    if (cli.input_given || !missing) app_exit_all(1, "%s", deck.err);
    if (rank == 0) fprintf(out, " tea.in not found: running the built-in default deck\n");
    app_deck_load_text(&deck, "(default deck)", tea_default_deck);
  }
  tea_settings s;
  if (app_deck_tokenize(&deck, "!;", "=,", 1) || tea_deck_parse(&deck, &s))
    app_exit_all(1, "error in the input deck: %s", deck.err);
  s.reproducible = cli.reproducible;

  /* ---- decomposition ---- */
  app_decomp d;
  char err[2048];
  const int64_t cells[2] = {s.x_cells, s.y_cells};
  if (app_decomp_create(MPI_COMM_WORLD, 2, cells, NULL, &d, err, sizeof err))
    app_exit_all(1, "%s", err);
  for (int dim = 0; dim < 2; ++dim)
    if (d.dims[dim] > 1 && cells[dim] / d.dims[dim] < s.halo_depth)
      app_exit_all(1, "%d ranks along %c leave some with %lld cells, fewer than halo_depth %d",
                   d.dims[dim], "xy"[dim], (long long)(cells[dim] / d.dims[dim]), s.halo_depth);

  app_run_config rc;
  app_run_config_fill(&rc, &d, cli.reproducible);

  /* the result file first: a bad --out fails now (every rank has the message), not after the
     solve */
  tea_h5_out h5;
  tea_h5_out_init(&h5, cli.output);
  if (!cli.no_h5 && tea_h5_out_open(&h5, d.comm) != PORTA_SUCCESS)
    app_exit_all(1, "%s", porta_last_error_message());
  if (rank == 0) tea_print_header(out, &deck, &rc, &s, &d);

  /* From here on any failure is one rank's problem: stop the job with its message. */
  app_porta_errors_fatal();
  app_timers timers;
  memset(&timers, 0, sizeof timers);
  const int t_init = app_timer_id(&timers, "Tea init + generate");
  const int t_solve = app_timer_id(&timers, "Tea solve (steps)");
  const int t_summary = app_timer_id(&timers, "Field summary");
  const int t_output = app_timer_id(&timers, "Output (HDF5)");
  (void)app_timer_id(&timers, "MPI halo exchange");
  (void)app_timer_id(&timers, "MPI reductions");
  MPI_Barrier(MPI_COMM_WORLD);
  const double wall0 = porta_wtime();

  app_timer_start(&timers, t_init);
  tea_chunk c;
  memset(&c, 0, sizeof c);
  tea_chunk_setup(&c, &d, &s, porta_exec_default());
  APP_CHECK(tea_chunk_alloc(&c));
  APP_CHECK(tea_comm_create(&c, &d, &timers));
  APP_CHECK(tea_generate(&c, &s));
  app_timer_stop(&timers, t_init);

  tea_history hist;
  memset(&hist, 0, sizeof hist);
  tea_summary sum;
  app_timer_start(&timers, t_summary);
  APP_CHECK(tea_field_summary(&c, &sum));
  app_timer_stop(&timers, t_summary);
  if (rank == 0) {
    fprintf(out, "\n Problem initialised and generated\n");
    tea_print_summary(out, 0, 0.0, &sum);
    fprintf(out, " Starting the calculation\n");
    fflush(out);
  }
  tea_history_add(&hist, 0, 0.0, NULL, &sum);

  /* visit_frequency N > 0: snapshots of u, energy and density in the result file at step 0,
     every N steps and at the last step (the reference's visit dumps; none with --no-h5) */
  const int visit = cli.no_h5 ? 0 : s.visit_frequency;
  if (rank == 0 && s.visit_frequency > 0 && cli.no_h5)
    fprintf(out, " visit_frequency %d ignored: --no-h5 writes no result file\n", s.visit_frequency);
  if (visit > 0) {
    app_timer_start(&timers, t_output);
    TEA_OUTPUT(tea_write_snapshot(&h5, &c, &s, &d, 0, 0.0));
    app_timer_stop(&timers, t_output);
  }

  const double dt = s.initial_timestep;
  double time = 0.0;
  int step = 0;
  int64_t total_iterations = 0;
  for (;;) {
    ++step;
    if (rank == 0) tea_print_step_start(out, step, time, dt);
    tea_step_stats st;
    memset(&st, 0, sizeof st);
    double t0 = porta_wtime();
    app_timer_start(&timers, t_solve);
    APP_CHECK(tea_step_ex(&c, &s, &st));
    app_timer_stop(&timers, t_solve);
    double solve = porta_wtime() - t0;
    total_iterations += st.true_iterations;
    time += dt;
    app_timer_start(&timers, t_summary);
    APP_CHECK(tea_field_summary(&c, &sum));
    app_timer_stop(&timers, t_summary);
    tea_history_add(&hist, step, time, &st, &sum);
    if (rank == 0) {
      tea_print_step_end(out, &s, &st, solve);
      fprintf(out, " Wall clock %25.15E\n", porta_wtime() - wall0);
      if (s.summary_frequency > 0 && step % s.summary_frequency == 0)
        tea_print_summary(out, step, time, &sum);
      fflush(out);
    }
    const bool last = time + 1e-16 > s.end_time || step >= s.end_step;
    if (visit > 0 && (step % visit == 0 || last)) {
      app_timer_start(&timers, t_output);
      TEA_OUTPUT(tea_write_snapshot(&h5, &c, &s, &d, step, time));
      app_timer_stop(&timers, t_output);
    }
    if (last) break;
  }
  const double wall = porta_wtime() - wall0;
  double u_ref = 0, qa = 0;
  const int verdict = tea_check(&s, sum.u, &u_ref, &qa);
  if (rank == 0) {
    tea_print_summary(out, step, time, &sum);
    tea_print_check(out, &s, verdict, qa);
    fprintf(out, "\n Calculation complete\n Tea is finishing\n");
    fprintf(out, " Wall clock %25.15E\n", wall);
    fprintf(out, " Executed solver iterations %lld in %d steps\n\n", (long long)total_iterations,
            step);
  }
  app_summary summary;
  tea_summary_make(&summary, &s, deck.path, &timers, t_solve, total_iterations, wall, verdict, qa);
  APP_CHECK(app_summary_agree(&summary, MPI_COMM_WORLD));
  {
    porta_exec side;
    if (d.rank == 0 && !s.reproducible && s.preconditioner == TEA_PRECON_NONE &&
        s.solver != TEA_SOLVER_JACOBI)
      printf("# CG exchange of p: %s\n", tea_halo_beside(&c, &side) && c.faces_zeroed
                                             ? "beside the update (second instance)"
                                             : "after the update");
    if (d.rank == 0 && s.solver == TEA_SOLVER_CHEBY && s.preconditioner != TEA_PRECON_JAC_BLOCK)
      printf("# Chebyshev exchange of u: %s\n", tea_halo_beside(&c, &side)
                                                    ? "beside the update (second instance)"
                                                    : "after the update");
    if (d.rank == 0 && s.solver == TEA_SOLVER_JACOBI)
      printf("# Jacobi exchange of u: %s\n",
             tea_halo_beside(&c, &side) ? "beside the next iteration's copy (second instance)"
                                        : "after the update");
    if (d.rank == 0 && s.solver == TEA_SOLVER_PPCG && s.preconditioner != TEA_PRECON_JAC_BLOCK)
      printf("# PPCG inner exchange of sd and rtemp: %s\n",
             tea_halo_beside_depth(&c, s.halo_depth, &side) &&
                     tea_ppcg_inner_steps(&s) > s.halo_depth /* a group that another follows */
                 ? "beside the group's last update (second instance)"
                 : "after the update");
  }
  if (!cli.no_h5) {
    app_timer_start(&timers, t_output);
    tea_results r;
    memset(&r, 0, sizeof r);
    r.deck = &deck;
    r.rc = &rc;
    r.s = &s;
    r.d = &d;
    r.hist = &hist;
    r.timers = &timers;
    r.wall = wall;
    r.u_ref = u_ref;
    r.qa_diff = qa;
    r.verdict = verdict;
    r.steps = step;
    r.time = time;
    r.summary = &summary;
    TEA_OUTPUT(tea_write_results(&h5, &c, &r));
    app_timer_stop(&timers, t_output);
    if (rank == 0) {
      fprintf(out, " Results written to %s.h5 (ParaView: %s.xmf)\n", cli.output, cli.output);
      if (h5.nsnap > 0)
        fprintf(out, " %d snapshots (visit_frequency %d) in /snapshots, a time series in %s.xmf\n",
                h5.nsnap, s.visit_frequency, cli.output);
    }
  }
  tea_h5_out_free(&h5);
  /* after the result file, so a failure here loses nothing (the path was checked at start-up) */
  if (cli.summary_json[0]) APP_CHECK(app_summary_write_json(&summary, &rc, cli.summary_json));
  /* after the final write, so its time is in the table (the results file holds the timers as
     they were when it was written) */
  app_timers_print(out, &timers, MPI_COMM_WORLD, porta_wtime() - wall0);
  fflush(out);

  tea_history_free(&hist);
  tea_comm_destroy(&c);
  tea_chunk_free(&c);
  app_deck_free(&deck);
  app_exit_all(verdict < 0 ? 1 : 0, NULL);
}
