/** @file minife_main.c
 *  miniFE on Porta: command line, decomposition, setup, CG, verification, reports.
 *
 *    mpirun -np 4 minife -nx 100 [-ny N] [-nz N] [verify_solution=1] [--porta-backend=...]
 *
 *  Exit status: 0 when the run completed (and its verification, if asked for, passed), 1 when
 *  the verification failed or a run error occurred, 2 for a bad command line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "app_common.h"
#include "app_exchange.h"
#include "app_sum_comm.h"
#include "minife_output.h"
#include "minife_params.h"
#include "minife_setup.h"
#include "minife_verify.h"

#define MINIFE_MAX_ITER 200

/** Refuse sizes that cannot work, the same on every rank (all boxes are known everywhere). */
static void check_sizes(const minife *m) {
  const minife_mesh *mesh = &m->mesh;
  /* counted in double: on a mesh far too large the products overflow 64 bits */
  double worst_nnz = 0, worst_rows = 0;
  for (int q = 0; q < mesh->nranks; ++q) {
    int64_t lo[3], n[3];
    double nnz = 1;
    minife_owned_nodes(&mesh->boxes[q], mesh->elems, lo, n);
    for (int d = 0; d < 3; ++d) { /* sum over the owned nodes of the stencil extent */
      int64_t s = 3 * n[d];
      if (lo[d] == 0) s -= 1;
      if (lo[d] + n[d] == mesh->nodes[d]) s -= 1;
      nnz *= (double)s;
    }
    const double rows = (double)n[0] * (double)n[1] * (double)n[2];
    if (nnz > worst_nnz) worst_nnz = nnz;
    if (rows > worst_rows) worst_rows = rows;
  }
  if (worst_nnz > INT32_MAX || worst_rows + 2 > INT32_MAX)
    app_exit_all(2,
                 "nx=%lld ny=%lld nz=%lld on %d ranks: a rank would hold %.4g nonzeros and %.4g "
                 "rows, more than the 32-bit local index type allows (%d); use more ranks",
                 (long long)m->prm.nx, (long long)m->prm.ny, (long long)m->prm.nz, mesh->nranks,
                 worst_nnz, worst_rows, INT32_MAX);
  /* The matrix (12 B per nonzero) and six vectors of every rank on this node must fit in the
     memory the kernels use: the node's on a host back end, the device's on a GPU. Refused
     before allocating. */
  const double bytes = 12.0 * worst_nnz + 64.0 * worst_rows;
  const int on_device = porta_exec_query(m->exec).on_device;
  /* collective: every rank takes part in both */
  char limit[4400], dlimit[512];
  double worst = app_node_memory_share(on_device ? 0.0 : bytes, limit, sizeof limit);
  const double dworst =
      app_device_memory_share(on_device ? bytes : 0.0, m->exec, dlimit, sizeof dlimit);
  if (dworst > worst) {
    worst = dworst;
    snprintf(limit, sizeof limit, "%s", dlimit);
  }
  if (worst > 1.0)
    app_exit_all(2,
                 "nx=%lld ny=%lld nz=%lld needs about %.3g GB per rank, %.3g times %s; use more "
                 "nodes or a smaller mesh",
                 (long long)m->prm.nx, (long long)m->prm.ny, (long long)m->prm.nz, bytes / 1e9,
                 worst, limit);
}

static void phase(int rank, const char *what, double t, double total) {
  if (rank == 0) {
    printf("%27s...%gs, total time: %g\n", what, t, total);
    fflush(stdout);
  }
}

static porta_view_f64 vector(const char *label, int64_t n) {
  porta_view_f64 v;
  APP_CHECK(porta_view_f64_create1(&v, label, n > 0 ? n : 1));
  return v;
}

int main(int argc, char **argv) {
  minife m;
  memset(&m, 0, sizeof m);
  minife_params_defaults(&m.prm);
  const app_cli_spec spec = minife_cli_spec(&m.prm);
  app_cli cli;
  app_begin(&argc, &argv, &spec, &cli);
  const int rank = app_mpi_rank(), nranks = app_mpi_size();
  minife_params_finish(&m.prm);
  m.exec = porta_exec_default();
  m.source = m.prm.source_free ? 0.0 : 1.0;
  m.matvec_lanes = m.prm.matvec_lanes >= 0              ? m.prm.matvec_lanes
                   : porta_exec_query(m.exec).on_device ? 4
                                                        : 0;

  MPI_Barrier(MPI_COMM_WORLD);
  const double t_start = porta_wtime();
  time_t now = time(NULL);
  struct tm tmv;
  localtime_r(&now, &tmv);
  minife_report rep;
  memset(&rep, 0, sizeof rep);
  strftime(rep.date, sizeof rep.date, "%Y-%m-%d, %H-%M-%S", &tmv);
  strftime(rep.stamp, sizeof rep.stamp, "%Y:%m:%d-%H:%M:%S", &tmv);
  MPI_Bcast(rep.date, sizeof rep.date, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(rep.stamp, sizeof rep.stamp, MPI_CHAR, 0, MPI_COMM_WORLD);

  /* ---- decomposition ---- */
  double t0 = porta_wtime();
  if (minife_mesh_create(&m.mesh, &m.prm, rank, nranks, &rep.imbalance_largest,
                         &rep.imbalance_std_dev) != PORTA_SUCCESS)
    app_exit_all(1, "%s", porta_last_error_message());
  check_sizes(&m);
  app_run_config rc;
  app_run_config_fill(&rc, NULL, cli.reproducible);

  /* the result file first: a bad --out fails now, not after the solve */
  app_h5 h5;
  memset(&h5, 0, sizeof h5);
  if (!cli.no_h5 && app_h5_create(&h5, cli.output, MPI_COMM_WORLD) != PORTA_SUCCESS)
    app_exit_all(1, "%s", porta_last_error_message());

  /* From here on a failure is one rank's problem: stop the job with its message. */
  app_porta_errors_fatal();
  rep.t_mesh = porta_wtime() - t0;
  phase(rank, "creating/filling mesh", rep.t_mesh, porta_wtime() - t_start);

  /* ---- matrix structure ---- */
  t0 = porta_wtime();
  minife_matrix *A = &m.A;
  A->nrows = m.mesh.nrows;
  int64_t nexternal = 0, exchange_bytes = 0;
  porta_view_i32 column_map;
  APP_CHECK(minife_columns(&m.mesh, MPI_COMM_WORLD, m.exec, &column_map, &m.halo, &nexternal,
                           &exchange_bytes));
  A->ncols = A->nrows + nexternal;
  {
    int64_t nnz = 1;
    for (int d = 0; d < 3; ++d) {
      int64_t s = 3 * m.mesh.n[d];
      if (m.mesh.nlo[d] == 0) s -= 1;
      if (m.mesh.nlo[d] + m.mesh.n[d] == m.mesh.nodes[d]) s -= 1;
      nnz *= s;
    }
    A->nnz = nnz;
  }
  {
    /* uninitialised: the kernels write every entry (vals is zeroed by the assembly's own
       kernel, in parallel, so the pages are first touched by the threads that use them) */
    porta_view_options opt = {porta_exec_memory_space(m.exec), PORTA_LAYOUT_DEFAULT,
                              PORTA_VIEW_UNINITIALIZED, NULL};
    const int64_t nr = A->nrows + 1, nz = A->nnz > 0 ? A->nnz : 1;
    APP_CHECK(porta_view_i32_create(&A->row_ptr, "row_ptr", 1, &nr, &opt));
    APP_CHECK(porta_view_i32_create(&A->cols, "cols", 1, &nz, &opt));
    APP_CHECK(porta_view_f64_create(&A->vals, "vals", 1, &nz, &opt));
  }
  APP_CHECK(minife_structure(&m, column_map));
  porta_view_i32_release(&column_map);
  APP_CHECK(porta_fence("minife_structure"));
  rep.t_structure = porta_wtime() - t0;
  phase(rank, "generating matrix structure", rep.t_structure, porta_wtime() - t_start);

  /* ---- assembly ---- */
  t0 = porta_wtime();
  m.b = vector("b", A->nrows);
  APP_CHECK(minife_assemble(&m));
  APP_CHECK(porta_fence("minife_assemble"));
  rep.t_assembly = porta_wtime() - t0;
  phase(rank, "assembling FE data", rep.t_assembly, porta_wtime() - t_start);

  /* ---- boundary conditions ---- */
  for (int pass = 0; pass < 2; ++pass) {
    t0 = porta_wtime();
    APP_CHECK(minife_dirichlet(&m, pass == 0 ? 0.0 : 1.0));
    APP_CHECK(porta_fence("minife_dirichlet"));
    rep.t_dirichlet[pass] = porta_wtime() - t0;
    phase(rank, "imposing Dirichlet BC", rep.t_dirichlet[pass], porta_wtime() - t_start);
  }
  t0 = porta_wtime();
  if (m.prm.mv_overlap && m.halo) APP_CHECK(minife_split_rows(&m));
  APP_CHECK(porta_fence("minife_split_rows"));
  rep.t_local = porta_wtime() - t0;
  phase(rank, "making matrix indices local", rep.t_local, porta_wtime() - t_start);

  /* ---- matrix statistics ---- */
  {
    long long v[4] = {A->nrows, A->nnz, -A->nrows, -A->nnz}, mx[4], sum[2],
              loc[2] = {A->nrows, A->nnz};
    double ov = (double)exchange_bytes, ovsum = 0;
    APP_MPI_CHECK(MPI_Allreduce(v, mx, 4, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
    APP_MPI_CHECK(MPI_Allreduce(loc, sum, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    APP_MPI_CHECK(MPI_Allreduce(&ov, &ovsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    rep.rows_max = mx[0];
    rep.nnz_max = mx[1];
    rep.rows_min = -mx[2];
    rep.nnz_min = -mx[3];
    rep.global_rows = sum[0];
    rep.global_nnz = sum[1];
    rep.overhead_mb = nranks > 1 ? ovsum / (1024.0 * 1024.0) : 0.0;
  }

  /* ---- CG ---- */
  m.x = vector("x", A->nrows);
  m.r = vector("r", A->nrows);
  m.Ap = vector("Ap", A->nrows);
  m.p = vector("p", A->ncols);
  app_timers timers;
  memset(&timers, 0, sizeof timers);
  /* one rank: no MPI in the sums (even an MPI_Allreduce over one rank costs microseconds) */
  APP_CHECK(app_sum_create(&m.sum, nranks > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL, cli.reproducible,
                           &timers));
  if (rank == 0) {
    printf("Starting CG solver ... \n");
    fflush(stdout);
  }
  minife_cg_result cg;
  APP_CHECK(minife_cg(&m, MINIFE_MAX_ITER, 2.220446049250313e-16, &cg, rank == 0));
  if (rank == 0 && !m.prm.mv_overlap) {
    printf("Final Resid Norm: %g\n", cg.final_residual);
    fflush(stdout);
  }
  if (!isfinite(cg.final_residual))
    app_exit_all(1, "CG residual became %g: the solution is not finite", cg.final_residual);

  /* ---- verification ---- */
  int status = 0;
  minife_verify_result ver;
  memset(&ver, 0, sizeof ver);
  /* (the reference skips the check with mv_overlap_comm_comp=1, so a run asked to verify
     passed unchecked: here it is checked in both modes) */
  if (m.prm.verify_solution || m.prm.source_free) {
    if (rank == 0) {
      printf(m.prm.source_free ? "verifying solution at every node (source-free) ...\n"
                               : "verifying solution at ~ (0.5, 0.5, 0.5) ...\n");
      fflush(stdout);
    }
    APP_CHECK(minife_verify(&m.mesh, m.x, m.prm.source_free, MPI_COMM_WORLD, &ver));
    rep.verified = 1;
    /* source-free: judged away from the boundary-data jumps (the whole-domain maximum is
       stuck at their size, minife_verify.c) */
    rep.verify_passed = (m.prm.source_free ? ver.max_error_far : ver.max_error) <= 0.06;
    if (rank == 0) {
      if (m.prm.source_free)
        printf("max nodal error over %lld nodes: %.6e at (%g, %g, %g); over x <= %g: %.6e\n",
               (long long)ver.points, ver.max_error, ver.at[0], ver.at[1], ver.at[2], MINIFE_FAR_X,
               ver.max_error_far);
      if (rep.verify_passed) {
        printf("solution matches analytic solution to within 0.06 or better.\n");
      } else {
        printf("max absolute error is %g:\n   at position (%g,%g,%g), \n   computed solution: %g,"
               "  analytic solution: %g\n",
               ver.max_error, ver.at[0], ver.at[1], ver.at[2], ver.computed, ver.analytic);
        printf("solution doesn't match analytic solution\n");
      }
      fflush(stdout);
      if (!rep.verify_passed) /* the exit status says it too; this names it on stderr */
        fprintf(stderr, "minife: verification failed: largest error %g%s is above 0.06\n",
                m.prm.source_free ? ver.max_error_far : ver.max_error,
                m.prm.source_free ? " (x <= 0.75)" : "");
    }
    if (!rep.verify_passed) status = 1;
  }
  rep.t_total = porta_wtime() - t_start;
  {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long long kb = ru.ru_maxrss;
    APP_MPI_CHECK(MPI_Allreduce(&kb, &rep.rss_all_kb, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    APP_MPI_CHECK(MPI_Allreduce(&kb, &rep.rss_max_kb, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
  }

  /* ---- reports ---- */
  rep.prm = &m.prm;
  rep.rc = &rc;
  rep.nranks = nranks;
  rep.cg = &cg;
  rep.ver = &ver;
  app_summary summary;
  minife_summary(&rep, &summary);
  APP_CHECK(app_summary_agree(&summary, MPI_COMM_WORLD));
  if (!cli.no_h5) {
    APP_CHECK(minife_write_h5(&h5, &m, &rep));
    APP_CHECK(app_summary_write_h5(&summary, &rc, &h5));
    APP_CHECK(app_h5_close(&h5, 1));
    if (rank == 0) {
      APP_CHECK(minife_write_xdmf(cli.output, &m));
      printf("Results written to %s.h5 (ParaView: %s.xmf)\n", cli.output, cli.output);
    }
  }
  /* after the result file, so a failure here loses nothing (the path was checked at start-up) */
  if (cli.summary_json[0]) APP_CHECK(app_summary_write_json(&summary, &rc, cli.summary_json));
  /* the reference's YAML report last: a directory it cannot be written in (the working
     directory) stops the run with the reason, the results above already written */
  if (rank == 0) {
    char path[512];
    APP_CHECK(minife_write_yaml(&rep, path, sizeof path));
    printf("YAML report: %s\n", path);
  }
  fflush(stdout);

  free(cg.history);
  app_sum_destroy(m.sum);
  app_exchange_destroy(m.halo);
  porta_view_f64_release(&m.b);
  porta_view_f64_release(&m.x);
  porta_view_f64_release(&m.r);
  porta_view_f64_release(&m.p);
  porta_view_f64_release(&m.Ap);
  porta_view_i32_release(&A->row_ptr);
  porta_view_i32_release(&A->cols);
  porta_view_f64_release(&A->vals);
  porta_view_i32_release(&A->interior_rows);
  porta_view_i32_release(&A->boundary_rows);
  minife_mesh_free(&m.mesh);
  app_exit_all(status, NULL);
}
