/** @file tea_output.c
 *  Report, self-check and HDF5/XDMF results of TeaLeaf (see tea_output.h). */
#include "tea_output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tea_pass.h"

/* U after the reference run of each test_problem (tealeaf.md sect. 1.9). */
static const double tea_u_ref[7] = {0.0,
                                    157.55084183279294,
                                    106.27221178646569,
                                    99.955877498324000,
                                    97.277332050749976,
                                    95.462351583362249,
                                    95.174738768320850};

static int grow(double **p, int cap) {
  double *n = (double *)realloc(*p, sizeof(double) * (size_t)cap);
  if (!n) return 1;
  *p = n;
  return 0;
}

int tea_history_add(tea_history *h, int step, double time, const tea_step_stats *st,
                    const tea_summary *sum) {
  if (h->n == h->cap) {
    int cap = h->cap ? 2 * h->cap : 64;
    double **all[] = {
        &h->step,  &h->time,   &h->iterations, &h->true_iterations, &h->inner_iterations,
        &h->error, &h->volume, &h->mass,       &h->density,         &h->energy,
        &h->u};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
      if (grow(all[i], cap))
        return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_history_add", "steps",
                           "no memory for the history of %d steps", cap);
    h->cap = cap;
  }
  int i = h->n++;
  h->step[i] = step;
  h->time[i] = time;
  h->iterations[i] = st ? st->iterations : 0;
  h->true_iterations[i] = st ? st->true_iterations : 0;
  h->inner_iterations[i] = st ? st->inner_iterations : 0;
  h->error[i] = st ? st->error : 0;
  h->volume[i] = sum->volume;
  h->mass[i] = sum->mass;
  h->density[i] = sum->density;
  h->energy[i] = sum->energy;
  h->u[i] = sum->u;
  return PORTA_SUCCESS;
}

void tea_history_free(tea_history *h) {
  free(h->step);
  free(h->time);
  free(h->iterations);
  free(h->true_iterations);
  free(h->inner_iterations);
  free(h->error);
  free(h->volume);
  free(h->mass);
  free(h->density);
  free(h->energy);
  free(h->u);
  memset(h, 0, sizeof *h);
}

void tea_fmt_e(char *buf, size_t len, double v, int digits) {
  if (v == 0.0 || !isfinite(v)) {
    if (v == 0.0)
      snprintf(buf, len, "0.%0*dE+00", digits, 0);
    else
      snprintf(buf, len, "%g", v);
    return;
  }
  /* d.ddd...e+xx with digits-1 decimals, then shift to 0.dddd...E+(xx+1) */
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%.*e", digits - 1, fabs(v));
  char mant[40] = {0};
  int ex = 0, k = 0;
  for (const char *p = tmp; *p && *p != 'e'; ++p)
    if (*p != '.') mant[k++] = *p;
  ex = atoi(strchr(tmp, 'e') + 1) + 1;
  snprintf(buf, len, "%s0.%sE%c%02d", v < 0 ? "-" : "", mant, ex < 0 ? '-' : '+', abs(ex));
}

void tea_print_header(FILE *out, const app_deck *deck, const app_run_config *rc,
                      const tea_settings *s, const porta_decomp *d) {
  fprintf(out, "\n   Tea Version    1.403 (Porta TeaLeaf)\n");
  app_run_config_print(out, rc);
  fprintf(out, "\n Tea will run from the following input:-\n\n");
  fputs(deck->text, out);
  if (deck->size && deck->text[deck->size - 1] != '\n') fputc('\n', out);
  fprintf(out, "\n                   x_cells %11d\n", s->x_cells);
  fprintf(out, "                   y_cells %11d\n", s->y_cells);
  fprintf(out, "                    solver %11s\n", tea_solver_name(s->solver));
  /* Jacobi never applies a preconditioner (neither does the reference): say so, not fail */
  fprintf(out, "            preconditioner %11s%s\n", tea_precon_name(s->preconditioner),
          s->solver == TEA_SOLVER_JACOBI && s->preconditioner != TEA_PRECON_NONE
              ? " (not used by the jacobi solver)"
              : "");
  fprintf(out, "                    tl_eps %11.4e\n", s->eps);
  fprintf(out, "              tl_max_iters %11d\n", s->max_iters);
  fprintf(out, "                halo_depth %11d\n", s->halo_depth);
  fprintf(out, "              test_problem %11d\n", s->test_problem);
  fprintf(out, "           visit_frequency %11d\n", s->visit_frequency);
  fprintf(out, "       tl_ppcg_inner_steps %11d\n", tea_ppcg_inner_steps(s));
  fprintf(out, "\n Decomposing the mesh into %12d  by %12d  chunks\n\n", d->dims[0], d->dims[1]);
}

void tea_print_summary(FILE *out, int step, double time, const tea_summary *sum) {
  char v[5][40];
  double vals[5] = {sum->volume, sum->mass, sum->density, sum->energy, sum->u};
  for (int i = 0; i < 5; ++i) tea_fmt_e(v[i], sizeof v[i], vals[i], 17);
  fprintf(out, "\n Time %25.15E\n", time);
  fprintf(out, "                                 Volume                      Mass"
               "                   Density                    Energy                         U\n");
  fprintf(out, " step:%7d%26s%26s%26s%26s%26s\n", step, v[0], v[1], v[2], v[3], v[4]);
  fprintf(out, " \n");
}

void tea_print_step_start(FILE *out, int step, double time, double dt) {
  fprintf(out, " Step %7d time %11.7f timestep  %9.2E\n", step, time, dt);
}

void tea_print_step_end(FILE *out, const tea_settings *s, const tea_step_stats *st,
                        double solve_time) {
  char e[40];
  tea_fmt_e(e, sizeof e, st->error, 7);
  fprintf(out, "Conduction error  %s\n", e);
  if (s->solver == TEA_SOLVER_PPCG) {
    fprintf(out, "Iteration count %8d\n", st->iterations);
    fprintf(out, "PPCG Iteration count %8d (Total %8d)\n", st->inner_iterations,
            st->inner_iterations + st->iterations);
  } else {
    fprintf(out, "Iteration count %8d\n", st->iterations);
  }
  int executed = st->true_iterations;
  fprintf(out, "      Solve Time %15.10f    Its %6d     Time Per It %15.10f\n", solve_time,
          executed, executed > 0 ? solve_time / executed : 0.0);
  fprintf(out, " Executed iterations %d (CG %d, Chebyshev %d, PPCG inner %d)%s\n", executed,
          st->cg_iterations, st->cheby_iterations, st->inner_iterations,
          st->converged ? "" : " NOT CONVERGED");
  if (s->check_result) {
    tea_fmt_e(e, sizeof e, st->exact_error, 7);
    fprintf(out, " EXACT error calculated as %s\n", e);
  }
}

int tea_check(const tea_settings *s, double u, double *u_ref, double *qa_diff) {
  *u_ref = 0.0;
  *qa_diff = 0.0;
  if (s->test_problem < 1 || s->test_problem > 6) return 0;
  *u_ref = tea_u_ref[s->test_problem];
  *qa_diff = fabs(100.0 * (u / *u_ref) - 100.0);
  return *qa_diff < 0.001 ? 1 : -1; /* NaN fails too */
}

void tea_print_check(FILE *out, const tea_settings *s, int verdict, double qa_diff) {
  if (verdict == 0) return;
  fprintf(out, "Test problem %3d is within %16.7E%% of the expected solution\n", s->test_problem,
          qa_diff);
  fprintf(out, " This test is considered %s\n", verdict > 0 ? "PASSED" : "NOT PASSED");
}

/* On a failed HDF5 call: close the file and remove the temporary (collective), then return the
 * call's code; its message (function, dataset path, reason) stays the last Porta error. */
#define H5_TRY(call)                                                                               \
  do {                                                                                             \
    int h5_try_rc_ = (call);                                                                       \
    if (h5_try_rc_ != PORTA_SUCCESS) {                                                             \
      app_h5_close(&o->h, 0);                                                                      \
      o->open = 0;                                                                                 \
      return h5_try_rc_;                                                                           \
    }                                                                                              \
  } while (0)

void tea_h5_out_init(tea_h5_out *o, const char *name) {
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "%s", name);
}

void tea_h5_out_free(tea_h5_out *o) {
  if (o->open) app_h5_close(&o->h, 0);
  free(o->snap_step);
  free(o->snap_time);
  memset(o, 0, sizeof *o);
}

int tea_h5_out_open(tea_h5_out *o, MPI_Comm comm) {
  if (o->open) return PORTA_SUCCESS;
  PORTA_CHECK(app_h5_create(&o->h, o->name, comm));
  o->open = 1;
  return PORTA_SUCCESS;
}

/* The node coordinates of the grid (x, y) in the result file. */
static const char *const tea_mesh_axes[2] = {"/mesh/x", "/mesh/y"};

/* The fields the result file holds, final and in snapshots: u, energy (energy1), density. */
static const char *const tea_out_names[3] = {"u", "energy", "density"};
static const int tea_out_ids[3] = {TEA_FIELD_U, TEA_FIELD_ENERGY1, TEA_FIELD_DENSITY};

static void tea_snapshot_group(char *buf, size_t len, int64_t step) {
  snprintf(buf, len, "/snapshots/step_%06lld", (long long)step);
}

int tea_write_snapshot(tea_h5_out *o, tea_chunk *c, const tea_settings *s, const porta_decomp *d,
                       int step, double time) {
  PORTA_CHECK(tea_h5_out_open(o, d->comm));
  if (o->nsnap == o->cap) {
    int cap = o->cap ? 2 * o->cap : 16;
    int64_t *st = (int64_t *)realloc(o->snap_step, sizeof(int64_t) * (size_t)cap);
    if (st) o->snap_step = st;
    double *tm = (double *)realloc(o->snap_time, sizeof(double) * (size_t)cap);
    if (tm) o->snap_time = tm;
    H5_TRY(!st || !tm ? porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_write_snapshot", o->h.tmp,
                                    "no memory for the list of %d snapshots", cap)
                      : PORTA_SUCCESS);
    o->cap = cap;
  }
  if (o->nsnap == 0) {
    H5_TRY(app_h5_group(&o->h, "/snapshots"));
    H5_TRY(app_h5_attr_int(&o->h, "/snapshots", "visit_frequency", s->visit_frequency));
  }
  char group[64], path[96];
  tea_snapshot_group(group, sizeof group, step);
  H5_TRY(app_h5_group(&o->h, group));
  H5_TRY(app_h5_attr_int(&o->h, group, "step", step));
  H5_TRY(app_h5_attr_double(&o->h, group, "time", time));
  for (int i = 0; i < 3; ++i) {
    snprintf(path, sizeof path, "%s/%s", group, tea_out_names[i]);
    H5_TRY(app_h5_write_field2d(&o->h, path, d, *tea_field(c, tea_out_ids[i]), c->halo, 1));
  }
  o->snap_step[o->nsnap] = step;
  o->snap_time[o->nsnap] = time;
  ++o->nsnap;
  return PORTA_SUCCESS;
}

/* The run's attributes on the file's root: the build, the deck, the solver, the result and
   its check (H5_TRY: a failure closes the file as incomplete). */
static int write_run_attributes(tea_h5_out *o, const tea_results *r) {
  app_h5 *h = &o->h;
  const app_run_config *rc = r->rc;
  const tea_settings *s = r->s;
  char grid[64];
  snprintf(grid, sizeof grid, "%d x %d", r->d->dims[0], r->d->dims[1]);
  H5_TRY(app_h5_attr_string(h, "/", "application", "tealeaf"));
  H5_TRY(app_h5_attr_string(h, "/", "porta_version", rc->version));
  H5_TRY(app_h5_attr_string(h, "/", "backend", rc->backend));
  H5_TRY(app_h5_attr_string(h, "/", "device", rc->device));
  H5_TRY(app_h5_attr_int(h, "/", "ranks", rc->ranks));
  H5_TRY(app_h5_attr_string(h, "/", "rank_grid", grid));
  H5_TRY(app_h5_attr_int(h, "/", "threads", rc->threads));
  H5_TRY(app_h5_attr_int(h, "/", "reproducible", rc->reproducible));
  H5_TRY(app_h5_attr_string(h, "/", "deck_file", r->deck->path));
  H5_TRY(app_h5_attr_string(h, "/", "deck", r->deck->text));
  H5_TRY(app_h5_attr_string(h, "/", "solver", tea_solver_name(s->solver)));
  H5_TRY(app_h5_attr_string(h, "/", "preconditioner", tea_precon_name(s->preconditioner)));
  H5_TRY(app_h5_attr_int(h, "/", "x_cells", s->x_cells));
  H5_TRY(app_h5_attr_int(h, "/", "y_cells", s->y_cells));
  H5_TRY(app_h5_attr_int(h, "/", "steps", r->steps));
  H5_TRY(app_h5_attr_double(h, "/", "time", r->time));
  H5_TRY(app_h5_attr_int(h, "/", "test_problem", s->test_problem));
  H5_TRY(app_h5_attr_string(h, "/", "verdict",
                            r->verdict > 0   ? "PASSED"
                            : r->verdict < 0 ? "NOT PASSED"
                                             : "NOT CHECKED"));
  H5_TRY(app_h5_attr_double(h, "/", "u_ref", r->u_ref));
  H5_TRY(app_h5_attr_double(h, "/", "qa_diff_percent", r->qa_diff));
  return PORTA_SUCCESS;
}

/* /steps: one column per quantity of the step history. */
static int write_history(tea_h5_out *o, const tea_history *t) {
  app_h5 *h = &o->h;
  H5_TRY(app_h5_group(h, "/steps"));
  struct {
    const char *p;
    const double *v;
  } cols[] = {{"/steps/step", t->step},
              {"/steps/time", t->time},
              {"/steps/iterations", t->iterations},
              {"/steps/true_iterations", t->true_iterations},
              {"/steps/inner_iterations", t->inner_iterations},
              {"/steps/conduction_error", t->error},
              {"/steps/volume", t->volume},
              {"/steps/mass", t->mass},
              {"/steps/density", t->density},
              {"/steps/energy", t->energy},
              {"/steps/u", t->u}};
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; ++i)
    H5_TRY(app_h5_write_1d_double(h, cols[i].p, cols[i].v, t->n));
  return PORTA_SUCCESS;
}

static const char *const tea_field_paths[3] = {"/fields/u", "/fields/energy", "/fields/density"};

/* /fields (the final u, energy and density), /mesh (the node coordinates the XDMF geometry
   reads) and the list of snapshots. */
static int write_fields(tea_h5_out *o, tea_chunk *c, const tea_results *r) {
  app_h5 *h = &o->h;
  const tea_settings *s = r->s;
  H5_TRY(app_h5_group(h, "/fields"));
  H5_TRY(app_h5_attr_double(h, "/fields", "xmin", s->xmin));
  H5_TRY(app_h5_attr_double(h, "/fields", "ymin", s->ymin));
  H5_TRY(app_h5_attr_double(h, "/fields", "dx", c->dx));
  H5_TRY(app_h5_attr_double(h, "/fields", "dy", c->dy));
  H5_TRY(app_h5_group(h, "/mesh"));
  H5_TRY(app_h5_write_axis(h, tea_mesh_axes[0], s->xmin, c->dx, s->x_cells, s->xmax));
  H5_TRY(app_h5_write_axis(h, tea_mesh_axes[1], s->ymin, c->dy, s->y_cells, s->ymax));
  for (int i = 0; i < 3; ++i)
    H5_TRY(app_h5_write_field2d(h, tea_field_paths[i], r->d, *tea_field(c, tea_out_ids[i]), c->halo,
                                1));
  if (o->nsnap > 0) {
    H5_TRY(app_h5_attr_int(h, "/snapshots", "count", o->nsnap));
    H5_TRY(app_h5_write_1d_int(h, "/snapshots/step", o->snap_step, o->nsnap));
    H5_TRY(app_h5_write_1d_double(h, "/snapshots/time", o->snap_time, o->nsnap));
  }
  return PORTA_SUCCESS;
}

/* /timings: the wall time and each timer's maximum over the ranks. */
static int write_timings(tea_h5_out *o, const tea_results *r) {
  app_h5 *h = &o->h;
  H5_TRY(app_h5_group(h, "/timings"));
  H5_TRY(app_h5_attr_double(h, "/timings", "wall_seconds", r->wall));
  if (r->timers && r->timers->n > 0) {
    double mx[APP_MAX_TIMERS], mean[APP_MAX_TIMERS];
    app_timers_reduce(r->timers, r->d->comm, mx, mean);
    for (int i = 0; i < r->timers->n; ++i)
      H5_TRY(app_h5_attr_double(h, "/timings", r->timers->name[i], mx[i]));
  }
  return PORTA_SUCCESS;
}

/* Rank 0: NAME.xmf for ParaView, the final fields or the time series of the snapshots (its last
   entry the final state, the same values as /fields). A failure stops the run as miniFE's and
   miniMD's do (exit 1, the cause, and that NAME.h5 is complete without it: app_xmf_fatal). */
static void write_xmf(const tea_h5_out *o, const tea_settings *s) {
  char xmf[APP_PATH_MAX + 16];
  const char *base = strrchr(o->h.path, '/');
  const char *file = base ? base + 1 : o->h.path;
  snprintf(xmf, sizeof xmf, "%s.xmf", o->name);
  int bad;
  if (o->nsnap > 0) {
    char(*groups)[64] = (char(*)[64])malloc(sizeof *groups * (size_t)o->nsnap);
    const char **gp = (const char **)malloc(sizeof *gp * (size_t)o->nsnap);
    bad = !groups || !gp ? porta_error(PORTA_ERROR_OUT_OF_MEMORY, "tea_write_results", xmf,
                                       "no memory for %d snapshot names", o->nsnap)
                         : PORTA_SUCCESS;
    for (int t = 0; !bad && t < o->nsnap; ++t) {
      tea_snapshot_group(groups[t], sizeof groups[t], o->snap_step[t]);
      gp[t] = groups[t];
    }
    if (!bad)
      bad = app_xdmf_write_2d_series(xmf, file, s->x_cells, s->y_cells, tea_mesh_axes,
                                     tea_out_names, 3, gp, o->snap_time, o->nsnap);
    free(groups);
    free(gp);
  } else {
    bad = app_xdmf_write_2d(xmf, file, s->x_cells, s->y_cells, tea_mesh_axes, tea_out_names,
                            tea_field_paths, 3);
  }
  if (bad) app_xmf_fatal(o->name, APP_CHECK_WHERE_(write_xmf(o, s)));
}

int tea_write_results(tea_h5_out *o, tea_chunk *c, const tea_results *r) {
  PORTA_CHECK(tea_h5_out_open(o, r->d->comm));
  PORTA_CHECK(write_run_attributes(o, r));
  PORTA_CHECK(write_history(o, r->hist));
  PORTA_CHECK(write_fields(o, c, r));
  /* after the fields: the summary holds their digest */
  if (r->summary) PORTA_CHECK(app_summary_write_h5(r->summary, r->rc, &o->h));
  PORTA_CHECK(write_timings(o, r));
  o->open = 0;
  PORTA_CHECK(app_h5_close(&o->h, 1));
  if (o->h.rank == 0) write_xmf(o, r->s);
  return PORTA_SUCCESS;
}

/* ---- run summary ---- */

void tea_summary_make(app_summary *s, const tea_settings *set, const char *deck_path,
                      const app_timers *timers, int solve_timer, int64_t iterations, double wall,
                      int verdict, double qa_diff) {
  app_summary_init(s, "tealeaf");
  snprintf(s->input, sizeof s->input, "%s", deck_path ? deck_path : "");
  snprintf(s->size, sizeof s->size, "%dx%d cells, %s", set->x_cells, set->y_cells,
           tea_solver_name(set->solver));
  s->iteration_name = "solver_iteration";
  s->iterations = iterations;
  s->solve_time = timers->total[solve_timer];
  s->total_time = wall;
  if (set->solver == TEA_SOLVER_CG) /* the reference's CG memory model */
    s->bytes_per_iteration = 112.0 * (double)set->x_cells * (double)set->y_cells;
  if (verdict == 0) {
    snprintf(s->check_detail, sizeof s->check_detail, "no test_problem in the deck");
    return;
  }
  s->check = verdict > 0 ? APP_CHECK_PASSED : APP_CHECK_FAILED;
  snprintf(s->check_detail, sizeof s->check_detail,
           "test_problem %d: final u within %.3g%% of the expected value (limit 0.001%%)",
           set->test_problem, qa_diff);
}

void tea_print_exchange_notes(FILE *out, tea_chunk *c, const tea_settings *s) {
  porta_exec side;
  if (s->preconditioner == TEA_PRECON_NONE && s->solver != TEA_SOLVER_JACOBI)
    fprintf(out, "# CG exchange of p: %s\n",
            tea_halo_beside(c, &side) && c->faces_zeroed ? "beside the update (second instance)"
                                                         : "after the update");
  fprintf(out, "# %s iterations: %s\n",
          s->solver == TEA_SOLVER_CG       ? "CG"
          : s->solver == TEA_SOLVER_JACOBI ? "Jacobi"
          : s->solver == TEA_SOLVER_CHEBY  ? "Chebyshev"
                                           : "PPCG",
          !tea_loop_wanted(c) ||
                  (s->solver == TEA_SOLVER_CHEBY && s->max_iters >= TEA_LOOP_MAX_COEFS)
              ? "from the host"
          : !tea_has_neighbours(c) ? "on the device (a recorded loop)"
          : !strcmp(tea_loop_transport(c), "gpu-peer")
              ? "on the device (a recorded loop; sums and exchanges straight between the GPUs)"
              : "on the device (a recorded loop; sums and exchanges by NCCL)");
  if (porta_exec_query(c->exec).on_device && tea_loop_queue_note(c)[0])
    fprintf(out, "# (several ranks: %s)\n", tea_loop_queue_note(c));
  if (s->solver == TEA_SOLVER_CHEBY && s->preconditioner != TEA_PRECON_JAC_BLOCK)
    fprintf(out, "# Chebyshev exchange of u: %s\n",
            tea_halo_beside(c, &side) ? "beside the update (second instance)" : "after the update");
  if (s->solver == TEA_SOLVER_JACOBI)
    fprintf(out, "# Jacobi exchange of u: %s\n",
            tea_halo_beside(c, &side) ? "beside the next iteration's copy (second instance)"
                                      : "after the update");
  if (s->solver == TEA_SOLVER_PPCG && s->preconditioner != TEA_PRECON_JAC_BLOCK)
    fprintf(out, "# PPCG inner exchange of sd and rtemp: %s\n",
            tea_halo_beside_depth(c, s->halo_depth, &side) &&
                    tea_ppcg_inner_steps(s) > s->halo_depth /* a group that another follows */
                ? "beside the group's last update (second instance)"
                : "after the update");
}
