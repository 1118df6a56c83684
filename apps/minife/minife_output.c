/** @file minife_output.c
 *  The reference's YAML report (same file name pattern and keys, so its scripts keep working;
 *  a few keys added) and the HDF5 result file. */
#include "minife_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- YAML ---- */

/* The YAML report's run parameters, platform, set-up times and matrix attributes. */
static void yaml_set_up(FILE *f, const minife_report *r) {
  const minife_params *p = r->prm;
  const double mem_gb =
      (8.0 * (double)r->global_rows + 12.0 * (double)r->global_nnz) / (1024.0 * 1024.0 * 1024.0);
  fprintf(f, "Mini-Application Name: miniFE\n");
  fprintf(f, "Mini-Application Version: 2.0\n");
  fprintf(f, "Global Run Parameters: \n");
  fprintf(f, "  dimensions: \n    nx: %lld\n    ny: %lld\n    nz: %lld\n", (long long)p->nx,
          (long long)p->ny, (long long)p->nz);
  fprintf(f, "  load_imbalance: %g\n", p->load_imbalance);
  fprintf(f, "  mv_overlap_comm_comp: %d (%s)\n", p->mv_overlap, p->mv_overlap ? "yes" : "no");
  fprintf(f, "  number of processors: %d\n", r->nranks);
  fprintf(f, "  ScalarType: double\n  GlobalOrdinalType: int64\n  LocalOrdinalType: int\n");
  fprintf(f, "  source_free: %d\n", p->source_free);
  fprintf(f, "Platform: \n  back end: %s\n  threads per rank: %d\n  device: '%s'\n", r->rc->backend,
          r->rc->threads, r->rc->device);
  fprintf(f, "Build: \n  Porta version: %s\n  using MPI: yes\n  reproducible: %d\n", r->rc->version,
          r->rc->reproducible);
  fprintf(f, "Run Date/Time: %s\n", r->date);
  fprintf(f, "Rows-per-proc Load Imbalance: \n  Largest (from avg, %%): %g\n  Std Dev (%%): %g\n",
          (double)r->imbalance_largest, (double)r->imbalance_std_dev);
  fprintf(f, "Matrix structure generation: \n  Mat-struc-gen Time: %g\n", r->t_structure);
  fprintf(f, "FE assembly: \n  FE assembly Time: %g\n", r->t_assembly);
  fprintf(f, "Matrix attributes: \n");
  fprintf(f, "  Global Nrows: %lld\n  Global NNZ: %lld\n", (long long)r->global_rows,
          (long long)r->global_nnz);
  fprintf(f, "  Global Memory (GB): %g\n  Pll Memory Overhead (MB): %g\n", mem_gb, r->overhead_mb);
  fprintf(f, "  Rows per proc MIN: %lld\n  Rows per proc MAX: %lld\n  Rows per proc AVG: %g\n",
          (long long)r->rows_min, (long long)r->rows_max,
          (double)r->global_rows / (double)r->nranks);
  fprintf(f, "  NNZ per proc MIN: %lld\n  NNZ per proc MAX: %lld\n  NNZ per proc AVG: %g\n",
          (long long)r->nnz_min, (long long)r->nnz_max, (double)r->global_nnz / (double)r->nranks);
}

/* The YAML report's CG section: the reference's flop counts (with its use of elements, not
   rows, for the vector operations), times and rates, and the bandwidth. */
static void yaml_cg(FILE *f, const minife_report *r) {
  const minife_params *p = r->prm;
  const minife_cg_result *cg = r->cg;
  const double E = (double)p->nx * (double)p->ny * (double)p->nz;
  const double it = (double)cg->iterations;
  const double fl_waxpy = 3.0 * E * (3.0 * it + 2.0), fl_dot = 2.0 * E * 2.0 * it;
  const double fl_mv = 2.0 * (double)r->global_nnz * (it + 1.0);
  const double fl_total = fl_waxpy + fl_dot + fl_mv;
#define MF(t, fl) ((t) > 0 ? (fl) / (t) / 1.0e6 : 0.0)
  fprintf(f, "CG solve: \n  Iterations: %d\n  Final Resid Norm: %g\n", cg->iterations,
          cg->final_residual);
  fprintf(f, "  WAXPY Time: %g\n  WAXPY Flops: %g\n  WAXPY Mflops: %g\n", cg->t_waxpby, fl_waxpy,
          MF(cg->t_waxpby, fl_waxpy));
  fprintf(f, "  DOT Time: %g\n  DOT Flops: %g\n  DOT Mflops: %g\n", cg->t_dot, fl_dot,
          MF(cg->t_dot, fl_dot));
  fprintf(f, "  MATVEC Time: %g\n  MATVEC Flops: %g\n  MATVEC Mflops: %g\n", cg->t_matvec, fl_mv,
          MF(cg->t_matvec, fl_mv));
  fprintf(f, "  Total: \n    Total CG Time: %g\n    Total CG Flops: %g\n    Total CG Mflops: %g\n",
          cg->t_total, fl_total, MF(cg->t_total, fl_total));
#undef MF
  const double per_it = cg->iterations > 0 ? cg->t_total / cg->iterations : 0.0;
  fprintf(f, "  Time per iteration: %g\n", per_it);
  fprintf(f, "  Warm-up Time (first launches, not in the CG time): %g\n", cg->t_warmup);
  /* added: iterations on the device are one graph run: their kernels are not timed apart */
  fprintf(f, "  Device Loop Time (iterations on the device, in no kernel's time above): %g\n",
          cg->t_loop);
  /* added: bandwidth at the specification's 12 nnz + 116 N bytes per iteration */
  const double bytes = 12.0 * (double)r->global_nnz + 116.0 * (double)r->global_rows;
  fprintf(f, "  Bandwidth (GB/s, 12 nnz + 116 N bytes per iteration): %g\n",
          per_it > 0 ? bytes / per_it / 1e9 : 0.0);
}

int minife_write_yaml(const minife_report *r, char *path, size_t pathlen) {
  const minife_params *p = r->prm;
  /* the reference's name, stamped to the second; created exclusively, never through a link
     (app_file_create_unique: .2, .3, ... after a run of the same second) */
  char stem[400];
  if (p->name[0])
    snprintf(stem, sizeof stem, "miniFE.%lldx%lldx%lld.P%d.%s.%s", (long long)p->nx,
             (long long)p->ny, (long long)p->nz, r->nranks, p->name, r->stamp);
  else
    snprintf(stem, sizeof stem, "miniFE.%lldx%lldx%lld.P%d.%s", (long long)p->nx, (long long)p->ny,
             (long long)p->nz, r->nranks, r->stamp);
  int err = 0;
  FILE *f = app_file_create_unique(stem, "yaml", path, pathlen, &err);
  if (!f)
    return porta_error(PORTA_ERROR_IO, "minife_write_yaml", path, "cannot create: %s",
                       strerror(err));
  yaml_set_up(f, r);
  yaml_cg(f, r);
  if (r->verified)
    fprintf(f,
            "Verification: \n  mode: %s\n  points: %lld\n  max error: %g\n  max error x<=%g: %g\n  "
            "passed: %s\n",
            p->source_free ? "source-free, every node" : "centre points, tolerance 0.06",
            (long long)r->ver->points, r->ver->max_error, MINIFE_FAR_X, r->ver->max_error_far,
            r->verify_passed ? "yes" : "no");
  fprintf(f, "Global All-RSS (kB): %lld\nGlobal Max-RSS (kB): %lld\n", r->rss_all_kb,
          r->rss_max_kb);
  fprintf(f, "Total Program Time: %g\n", r->t_total);
  if (fclose(f) != 0)
    return porta_error(PORTA_ERROR_IO, "minife_write_yaml", path, "write failed: %s",
                       strerror(errno));
  return PORTA_SUCCESS;
}

/* ---- HDF5 ---- */

int minife_write_h5(app_h5 *h, const minife *m, const minife_report *r) {
  const minife_params *p = r->prm;
  const minife_mesh *mesh = &m->mesh;
  PORTA_CHECK(app_h5_attr_string(h, "/", "app", "minife"));
  PORTA_CHECK(app_h5_attr_string(h, "/", "backend", r->rc->backend));
  PORTA_CHECK(app_h5_attr_string(h, "/", "device", r->rc->device));
  PORTA_CHECK(app_h5_attr_string(h, "/", "porta_version", r->rc->version));
  PORTA_CHECK(app_h5_attr_int(h, "/", "ranks", r->nranks));
  PORTA_CHECK(app_h5_attr_int(h, "/", "threads", r->rc->threads));
  PORTA_CHECK(app_h5_attr_int(h, "/", "reproducible", r->rc->reproducible));
  PORTA_CHECK(app_h5_group(h, "/parameters"));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "nx", p->nx));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "ny", p->ny));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "nz", p->nz));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "load_imbalance", p->load_imbalance));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "verify_solution", p->verify_solution));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "mv_overlap_comm_comp", p->mv_overlap));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "source_free", p->source_free));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "source", m->source));
  PORTA_CHECK(app_h5_group(h, "/matrix"));
  PORTA_CHECK(app_h5_attr_int(h, "/matrix", "global_rows", r->global_rows));
  PORTA_CHECK(app_h5_attr_int(h, "/matrix", "global_nnz", r->global_nnz));
  PORTA_CHECK(app_h5_group(h, "/cg"));
  PORTA_CHECK(app_h5_attr_int(h, "/cg", "iterations", r->cg->iterations));
  PORTA_CHECK(app_h5_attr_double(h, "/cg", "initial_residual", r->cg->initial_residual));
  PORTA_CHECK(app_h5_attr_double(h, "/cg", "final_residual", r->cg->final_residual));
  PORTA_CHECK(app_h5_attr_int(h, "/cg", "breakdown", r->cg->breakdown));
  PORTA_CHECK(app_h5_write_1d_double(h, "/cg/residual_history", r->cg->history, r->cg->nhistory));
  PORTA_CHECK(app_h5_group(h, "/timings"));
  const char *tn[] = {"mesh",        "structure",  "assembly",  "dirichlet_0",
                      "dirichlet_1", "make_local", "cg_warmup", "cg_total",
                      "cg_matvec",   "cg_dot",     "cg_waxpby", "program"};
  const double tv[] = {r->t_mesh,         r->t_structure, r->t_assembly,   r->t_dirichlet[0],
                       r->t_dirichlet[1], r->t_local,     r->cg->t_warmup, r->cg->t_total,
                       r->cg->t_matvec,   r->cg->t_dot,   r->cg->t_waxpby, r->t_total};
  for (size_t i = 0; i < sizeof tn / sizeof tn[0]; ++i)
    PORTA_CHECK(app_h5_attr_double(h, "/timings", tn[i], tv[i]));
  PORTA_CHECK(app_h5_attr_int(h, "/", "rss_all_kb", r->rss_all_kb));
  PORTA_CHECK(app_h5_attr_int(h, "/", "rss_max_kb", r->rss_max_kb));
  if (r->verified) {
    PORTA_CHECK(app_h5_group(h, "/verification"));
    PORTA_CHECK(app_h5_attr_string(h, "/verification", "mode",
                                   p->source_free ? "every node" : "centre points"));
    PORTA_CHECK(app_h5_attr_double(h, "/verification", "max_error", r->ver->max_error));
    PORTA_CHECK(app_h5_attr_double(h, "/verification", "max_error_far", r->ver->max_error_far));
    PORTA_CHECK(app_h5_attr_double(h, "/verification", "far_x", MINIFE_FAR_X));
    PORTA_CHECK(app_h5_attr_int(h, "/verification", "points", r->ver->points));
    PORTA_CHECK(app_h5_attr_int(h, "/verification", "passed", r->verify_passed));
  }
  /* the solution on the global node grid, [z][y][x], each rank its owned box */
  porta_mirror_f64 xh;
  PORTA_CHECK(porta_view_f64_create_mirror_view(&xh, &m->x));
  if (xh.data != m->x.data) PORTA_CHECK(porta_deep_copy(xh, m->x));
  PORTA_CHECK(porta_fence("minife_write_h5"));
  const int64_t global[3] = {mesh->nodes[2], mesh->nodes[1], mesh->nodes[0]};
  const int64_t start[3] = {mesh->nlo[2], mesh->nlo[1], mesh->nlo[0]};
  const int64_t count[3] = {mesh->n[2], mesh->n[1], mesh->n[0]};
  int rc = app_h5_write_block_f64(h, "/solution", 3, global, start, count, xh.data);
  porta_mirror_f64_release(&xh);
  return rc;
}

int minife_write_xdmf(const char *name, const minife *m) {
  char xmf[APP_PATH_MAX + 16], h5[APP_PATH_MAX + 16];
  snprintf(xmf, sizeof xmf, "%s.xmf", name);
  const char *base = strrchr(name, '/');
  snprintf(h5, sizeof h5, "%s.h5", base ? base + 1 : name);
  const int64_t pts[3] = {m->mesh.nodes[0], m->mesh.nodes[1], m->mesh.nodes[2]};
  const double origin[3] = {0.0, 0.0, 0.0};
  const double spacing[3] = {1.0 / (double)m->mesh.elems[0], 1.0 / (double)m->mesh.elems[1],
                             1.0 / (double)m->mesh.elems[2]};
  const char *names[1] = {"u"}, *paths[1] = {"/solution"};
  return app_xdmf_write_3d(xmf, h5, pts, origin, spacing, names, paths, 1, 1);
}

/* ---- run summary ---- */

void minife_summary(const minife_report *r, app_summary *s) {
  const minife_params *p = r->prm;
  app_summary_init(s, "minife");
  snprintf(s->size, sizeof s->size, "%lldx%lldx%lld elements, %lld rows, %lld nonzeros",
           (long long)p->nx, (long long)p->ny, (long long)p->nz, (long long)r->global_rows,
           (long long)r->global_nnz);
  s->iteration_name = "cg_iteration";
  s->iterations = r->cg->iterations;
  s->solve_time = r->cg->t_total;
  s->total_time = r->t_total;
  s->bytes_per_iteration = 12.0 * (double)r->global_nnz + 116.0 * (double)r->global_rows;
  if (!r->verified) {
    snprintf(s->check_detail, sizeof s->check_detail, "not verified (verify_solution=0)");
    return;
  }
  s->check = r->verify_passed ? APP_CHECK_PASSED : APP_CHECK_FAILED;
  snprintf(s->check_detail, sizeof s->check_detail,
           "largest error against the analytic solution %.3g%s (limit 0.06)",
           p->source_free ? r->ver->max_error_far : r->ver->max_error,
           p->source_free ? " at x <= 0.75" : "");
}
