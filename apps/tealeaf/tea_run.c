/** @file tea_run.c
 *  A TeaLeaf run's steps (tea_run.h). */
#include "tea_run.h"

#include <stdio.h>
#include <string.h>

#include "tea_comm.h"
#include "tea_deck.h"
#include "tea_pass.h"

void tea_run_begin(tea_run *r, int *argc, char ***argv, const app_cli_spec *spec) {
  memset(r, 0, sizeof *r);
  app_begin(argc, argv, spec, &r->cli);
  tea_deck_read(&r->deck, &r->cli, &r->s);
  tea_decompose(&r->s, &r->d);
  app_run_config_fill(&r->config, &r->d, r->cli.exact_sums, r->cli.exact_sums);
  tea_h5_out_init(&r->h5, r->cli.output);
  if (!r->cli.no_h5 && tea_h5_out_open(&r->h5, r->d.comm) != PORTA_SUCCESS)
    app_h5_create_failed(&r->h5.h);
  if (r->d.rank == 0) tea_print_header(stdout, &r->deck, &r->config, &r->s, &r->d);
}

/* Snapshot of the fields at this step, when the visit frequency asks for one. */
static void snapshot(tea_run *r, int due) {
  if (r->visit <= 0 || !due) return;
  app_timer_start(&r->timers, r->t_output);
  APP_H5_CHECK(&r->h5.h, tea_write_snapshot(&r->h5, &r->c, &r->s, &r->d, r->step, r->time));
  app_timer_stop(&r->timers, r->t_output);
}

/* A start-up step that can fail on some ranks only (an allocation under a memory limit such as
   `ulimit -v`): the ranks agree on its result before the next collective, so that no rank waits
   in one that the others never reach, nor leaves through MPI_Abort alone. A failing rank prints
   its own error (what could not be allocated, and how much), the others that another rank
   failed; the result file's temporary is removed (a result already at that name is kept) and
   every rank exits with APP_EXIT_RUN_FAILED. `step` names the step, `detail` (may be "") adds
   this rank's sizes. */
static void start_up_agree(tea_run *r, int rc, const char *step, const char *detail) {
  const int mine = rc;
  rc = app_mpi_agree(rc, "tea_run_set_up", "failed", MPI_COMM_WORLD);
  if (rc == PORTA_SUCCESS) return;
  fflush(stdout);
  if (mine != PORTA_SUCCESS)
    fprintf(stderr, "%s: rank %d: error: %s%s failed: %s\n", app_program_name(), app_mpi_rank(),
            step, detail, porta_last_error_message());
  else
    fprintf(stderr, "%s: rank %d: error: stopping: %s failed on another rank\n", app_program_name(),
            app_mpi_rank(), step);
  fflush(stderr);
  tea_comm_destroy(&r->c);
  tea_chunk_free(&r->c);
  tea_h5_out_free(&r->h5); /* collective: removes the temporary */
  tea_history_free(&r->hist);
  app_deck_free(&r->deck);
  app_exit_all(APP_EXIT_RUN_FAILED, NULL);
}

void tea_run_set_up(tea_run *r) {
  r->t_init = app_timer_id(&r->timers, "Tea init + generate");
  r->t_solve = app_timer_id(&r->timers, "Tea solve (steps)");
  r->t_summary = app_timer_id(&r->timers, "Field summary");
  r->t_output = app_timer_id(&r->timers, "Output (HDF5)");
  (void)app_timer_id(&r->timers, "MPI halo exchange");
  (void)app_timer_id(&r->timers, "MPI reductions");
  MPI_Barrier(MPI_COMM_WORLD);
  r->wall0 = porta_wtime();

  app_timer_start(&r->timers, r->t_init);
  tea_chunk_setup(&r->c, &r->d, &r->s, porta_exec_default());
  /* this rank's fields: (ny + 2 halo) x (nx + 2 halo) doubles each, before the rows' padding */
  const double e0 = (double)r->c.ny + 2.0 * r->c.halo, e1 = (double)r->c.nx + 2.0 * r->c.halo;
  char sizes[160];
  snprintf(sizes, sizeof sizes, " (%d of %.0f x %.0f values, at least %.4g MB)", TEA_NUM_FIELDS, e0,
           e1, (double)TEA_NUM_FIELDS * (double)sizeof(double) * e0 * e1 / 1e6);
  start_up_agree(r, tea_chunk_alloc(&r->c), "allocating the fields", sizes);
  /* it agrees its own allocations before its collective part */
  start_up_agree(r, tea_comm_create(&r->c, &r->d, &r->timers),
                 "setting up the halo exchanges and sums", "");
  start_up_agree(r, tea_generate(&r->c, &r->s), "generating the initial state", "");
  app_timer_stop(&r->timers, r->t_init);

  app_timer_start(&r->timers, r->t_summary);
  APP_CHECK(tea_field_summary(&r->c, &r->sum));
  app_timer_stop(&r->timers, r->t_summary);
  if (r->d.rank == 0) {
    printf("\n Problem initialised and generated\n");
    tea_print_summary(stdout, 0, 0.0, &r->sum);
    printf(" Starting the calculation\n");
    fflush(stdout);
  }
  APP_CHECK(tea_history_add(&r->hist, 0, 0.0, NULL, &r->sum));

  /* visit_frequency N > 0: snapshots of u, energy and density in the result file at step 0,
     every N steps and at the last step (the reference's visit dumps; none with --no-h5) */
  r->visit = r->cli.no_h5 ? 0 : r->s.visit_frequency;
  if (r->d.rank == 0 && r->s.visit_frequency > 0 && r->cli.no_h5)
    printf(" visit_frequency %d ignored: --no-h5 writes no result file\n", r->s.visit_frequency);
  snapshot(r, 1);
}

/* One time step: the solve, the field summary and the step's lines; returns whether it was the
   last. */
static int time_step(tea_run *r) {
  const double dt = r->s.initial_timestep;
  ++r->step;
  if (r->d.rank == 0) tea_print_step_start(stdout, r->step, r->time, dt);
  tea_step_stats st;
  memset(&st, 0, sizeof st);
  const double t0 = porta_wtime();
  app_timer_start(&r->timers, r->t_solve);
  APP_CHECK(tea_step_ex(&r->c, &r->s, &st));
  app_timer_stop(&r->timers, r->t_solve);
  const double solve = porta_wtime() - t0;
  r->iterations += st.true_iterations;
  r->time += dt;
  app_timer_start(&r->timers, r->t_summary);
  APP_CHECK(tea_field_summary(&r->c, &r->sum));
  app_timer_stop(&r->timers, r->t_summary);
  APP_CHECK(tea_history_add(&r->hist, r->step, r->time, &st, &r->sum));
  if (r->d.rank == 0) {
    tea_print_step_end(stdout, &r->s, &st, solve);
    printf(" Wall clock %25.15E\n", porta_wtime() - r->wall0);
    if (r->s.summary_frequency > 0 && r->step % r->s.summary_frequency == 0)
      tea_print_summary(stdout, r->step, r->time, &r->sum);
    fflush(stdout);
  }
  return r->time + 1e-16 > r->s.end_time || r->step >= r->s.end_step;
}

void tea_run_steps(tea_run *r) {
  int last;
  do {
    last = time_step(r);
    snapshot(r, last || r->step % (r->visit > 0 ? r->visit : 1) == 0);
  } while (!last);
  r->wall = porta_wtime() - r->wall0;
}

/* The result file: the fields, the step history, the check and the summary. */
static void write_results(tea_run *r) {
  app_timer_start(&r->timers, r->t_output);
  tea_results res;
  memset(&res, 0, sizeof res);
  res.deck = &r->deck;
  res.rc = &r->config;
  res.s = &r->s;
  res.d = &r->d;
  res.hist = &r->hist;
  res.timers = &r->timers;
  res.wall = r->wall;
  res.u_ref = r->u_ref;
  res.qa_diff = r->qa;
  res.verdict = r->verdict;
  res.steps = r->step;
  res.time = r->time;
  res.summary = &r->summary;
  APP_H5_CHECK(&r->h5.h, tea_write_results(&r->h5, &r->c, &res));
  app_timer_stop(&r->timers, r->t_output);
  if (r->d.rank == 0) {
    printf(" Results written to %s.h5 (ParaView: %s.xmf)\n", r->cli.output, r->cli.output);
    if (r->h5.nsnap > 0)
      printf(" %d snapshots (visit_frequency %d) in /snapshots, a time series in %s.xmf\n",
             r->h5.nsnap, r->s.visit_frequency, r->cli.output);
  }
}

void tea_run_report(tea_run *r) {
  r->verdict = tea_check(&r->s, r->sum.u, &r->u_ref, &r->qa);
  if (r->d.rank == 0) {
    tea_print_summary(stdout, r->step, r->time, &r->sum);
    tea_print_check(stdout, &r->s, r->verdict, r->qa);
    printf("\n Calculation complete\n Tea is finishing\n");
    printf(" Wall clock %25.15E\n", r->wall);
    printf(" Executed solver iterations %lld in %d steps\n\n", (long long)r->iterations, r->step);
  }
  tea_summary_make(&r->summary, &r->s, r->deck.path, &r->timers, r->t_solve, r->iterations, r->wall,
                   r->verdict, r->qa);
  APP_CHECK(app_summary_agree(&r->summary, MPI_COMM_WORLD));
  if (r->d.rank == 0) tea_print_exchange_notes(stdout, &r->c, &r->s);
  if (!r->cli.no_h5) write_results(r);
  tea_h5_out_free(&r->h5);
  /* after the result file, so a failure here loses nothing (the path was checked at start-up) */
  if (r->cli.summary_json[0])
    APP_CHECK(app_summary_write_json(&r->summary, &r->config, r->cli.summary_json));
  /* after the final write, so its time is in the table (the results file holds the timers as
     they were when it was written) */
  app_timers_print(stdout, &r->timers, MPI_COMM_WORLD, porta_wtime() - r->wall0);
  fflush(stdout);
}

int tea_run_finish(tea_run *r) {
  tea_history_free(&r->hist);
  /* the recorded loop first: its graph reads the fields and holds NCCL's work, which NCCL
     waits for at the communicator's end */
  tea_loop_free(&r->c);
  tea_comm_destroy(&r->c);
  tea_chunk_free(&r->c);
  app_deck_free(&r->deck);
  const int status = r->verdict < 0 ? APP_EXIT_RUN_FAILED : APP_EXIT_SUCCESS;
  app_exit_all(status, NULL);
  return status; /* not reached: app_exit_all leaves */
}
