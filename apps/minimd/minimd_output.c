/** @file minimd_output.c
 *  What miniMD reports: the reference's stdout (settings block, thermo lines, performance
 *  summary) and YAML file, and minimd.h5 (run parameters, the thermo table at full precision,
 *  timings, and the atoms ordered by global id, so runs on any rank count compare with
 *  h5diff) with minimd.xmf for ParaView. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app_common.h"
#include "app_h5.h"
#include "minimd_output.h"

#define VARIANT "miniMD-Reference 2.0 (MPI+OpenMP)"

static const char *units_name(const minimd *m) {
  return m->prm.units == MINIMD_UNITS_LJ ? "LJ" : "METAL";
}
static const char *force_name(const minimd *m) {
  return m->prm.force == MINIMD_FORCE_LJ ? "LJ" : "EAM";
}

void minimd_print_settings(FILE *out, const minimd *m, int threads, int sort_every) {
  const minimd_params *p = &m->prm;
  fprintf(out, "# " VARIANT " output ...\n");
  fprintf(out, "# Run Settings: \n");
  fprintf(out, "\t# MPI processes: %i\n", m->comm.nranks);
  fprintf(out, "\t# OpenMP threads: %i\n", threads);
  fprintf(out, "\t# Inputfile: %s\n", p->input);
  fprintf(out, "\t# Datafile: %s\n", p->data_file[0] ? p->data_file : "None");
  fprintf(out, "# Physics Settings: \n");
  fprintf(out, "\t# ForceStyle: %s\n", force_name(m));
  fprintf(out, "\t# Force Parameters: %2.2lf %2.2lf\n", p->epsilon, p->sigma);
  fprintf(out, "\t# Units: %s\n", units_name(m));
  fprintf(out, "\t# Atoms: %lld\n", (long long)m->atoms.natoms);
  fprintf(out, "\t# Atom types: %i\n", p->ntypes);
  fprintf(out, "\t# System size: %2.2lf %2.2lf %2.2lf (unit cells: %lld %lld %lld)\n",
          m->comm.prd[0], m->comm.prd[1], m->comm.prd[2], (long long)p->nx, (long long)p->ny,
          (long long)p->nz);
  fprintf(out, "\t# Density: %lf\n", p->density);
  fprintf(out, "\t# Force cutoff: %lf\n", p->cutforce);
  fprintf(out, "\t# Timestep size: %lf\n", p->dt);
  fprintf(out, "# Technical Settings: \n");
  fprintf(out, "\t# Neigh cutoff: %lf\n", p->cutforce + p->skin);
  fprintf(out, "\t# Half neighborlists: %i\n", m->neigh.half);
  fprintf(out, "\t# Neighbor bins: %i %i %i\n", m->neigh.nbin[0], m->neigh.nbin[1],
          m->neigh.nbin[2]);
  fprintf(out, "\t# Neighbor frequency: %i\n", p->neigh_every);
  fprintf(out, "\t# Sorting frequency: %i\n", sort_every);
  fprintf(out, "\t# Thermo frequency: %i\n", p->thermo_every);
  fprintf(out, "\t# Ghost Newton: %i\n", m->neigh.newton);
  fprintf(out, "\t# Forces overlap ghost messages: %i\n", m->neigh.split);
  fprintf(out, "\t# Use intrinsics: %i\n", 0);
  fprintf(out, "\t# Do safe exchange: %i\n", 0);
  fprintf(out, "\t# Size of float: %i\n\n", (int)sizeof(double));
}

void minimd_print_summary(FILE *out, const minimd *m, int threads) {
  const minimd_times *t = &m->times;
  const double steps = (double)m->prm.nsteps, n = (double)m->atoms.natoms;
  const double perf = t->total > 0.0 ? n * steps / t->total : 0.0;
  fprintf(out, "\n\n# Performance Summary:\n");
  fprintf(out, "# MPI_proc OMP_threads nsteps natoms t_total t_force t_neigh t_comm t_other "
               "performance perf/thread grep_string t_extra\n");
  fprintf(out, "%i %i %lld %lld %lf %lf %lf %lf %lf %lf %lf PERF_SUMMARY %lf\n\n\n", m->comm.nranks,
          threads, (long long)m->prm.nsteps, (long long)m->atoms.natoms, t->total, t->force,
          t->neigh, t->comm, t->other, perf, perf / m->comm.nranks / threads, t->extra);
}

int minimd_write_yaml(const minimd *m, int threads, int sort_every, int screen) {
  time_t now = time(NULL);
  struct tm tmv;
  localtime_r(&now, &tmv);
  /* the reference's name, stamped to the second; created exclusively, never through a link
     (app_file_create_unique: .2, .3, ... after a run of the same second) */
  char stem[64], name[96];
  strftime(stem, sizeof stem, "miniMD-%Y-%m-%d-%H-%M-%S", &tmv);
  int err = 0;
  FILE *f = app_file_create_unique(stem, "yaml", name, sizeof name, &err);
  if (!f)
    return porta_error(PORTA_ERROR_IO, "minimd", name, "cannot create the YAML report: %s",
                       strerror(err));
  for (int pass = 0; pass < (screen ? 2 : 1); ++pass) {
    FILE *o = pass ? stdout : f;
    const minimd_params *p = &m->prm;
    fprintf(o, "run_configuration: \n");
    fprintf(o, "  variant: " VARIANT "\n");
    fprintf(o, "  mpi_processes: %i\n", m->comm.nranks);
    fprintf(o, "  thread_teams: %i\n", threads);
    fprintf(o, "  threads: %i\n", threads);
    fprintf(o, "  datafile: %s\n", p->data_file[0] ? p->data_file : "None");
    fprintf(o, "  units: %s\n", units_name(m));
    fprintf(o, "  atoms: %lld\n", (long long)m->atoms.natoms);
    fprintf(o, "  atom_types: %i\n", p->ntypes);
    fprintf(o, "  system_size: %2.2lf %2.2lf %2.2lf\n", m->comm.prd[0], m->comm.prd[1],
            m->comm.prd[2]);
    fprintf(o, "  unit_cells: %lld %lld %lld\n", (long long)p->nx, (long long)p->ny,
            (long long)p->nz);
    fprintf(o, "  density: %lf\n", p->density);
    fprintf(o, "  force_type: %s\n", force_name(m));
    fprintf(o, "  force_cutoff: %lf\n", p->cutforce);
    fprintf(o, "  force_params: %2.2lf %2.2lf\n", p->epsilon, p->sigma);
    fprintf(o, "  neighbor_cutoff: %lf\n", p->cutforce + p->skin);
    fprintf(o, "  neighbor_type: %i\n", m->neigh.half);
    fprintf(o, "  neighbor_bins: %i %i %i\n", m->neigh.nbin[0], m->neigh.nbin[1], m->neigh.nbin[2]);
    fprintf(o, "  neighbor_frequency: %i\n", p->neigh_every);
    fprintf(o, "  sort_frequency: %i\n", sort_every);
    fprintf(o, "  timestep_size: %lf\n", p->dt);
    fprintf(o, "  thermo_frequency: %i\n", p->thermo_every);
    fprintf(o, "  ghost_newton: %i\n", m->neigh.newton);
    fprintf(o, "  use_intrinsics: 0\n  safe_exchange: 0\n  float_size: %i\n\n\n\n",
            (int)sizeof(double));
    fprintf(o, "thermodynamic_output:\n");
    const minimd_thermo *th = &m->thermo;
    const double e0 = th->n > 0 ? 1.5 * th->t[0] + th->u[0] : 1.0;
    for (int64_t k = 0; k < th->n; ++k) {
      fprintf(o, "  timestep: %lld \n", (long long)th->step[k]);
      fprintf(o, "      T*:           %15.10g \n", th->t[k]);
      fprintf(o, "      U*:           %15.10g \n", th->u[k]);
      fprintf(o, "      P*:           %15.10g \n", th->p[k]);
      fprintf(o, "      Conservation: %15.10g \n", (1.5 * th->t[k] + th->u[k]) / e0);
    }
    const minimd_times *t = &m->times;
    const double perf = t->total > 0 ? (double)m->atoms.natoms * m->prm.nsteps / t->total : 0.0;
    fprintf(o, "\n\ntime:\n  total:\n    time: %g \n    performance: %10.5e \n", t->total, perf);
    fprintf(o, "    performance_proc: %10.5e \n", perf / m->comm.nranks / threads);
    fprintf(o, "  force: %g\n  neigh: %g\n  comm:  %g\n  other: %g\n\n", t->force, t->neigh,
            t->comm, t->total - t->force - t->neigh - t->comm);
  }
  errno = 0;
  int bad = fflush(f) != 0 || ferror(f) != 0, os = errno;
  if (fclose(f) != 0 && !bad) bad = 1, os = errno;
  if (bad) { /* no partial report left behind (the name was new: app_file_create_unique) */
    unlink(name);
    return porta_error(PORTA_ERROR_IO, "minimd", name, "writing the YAML report failed: %s",
                       os ? strerror(os) : "write error");
  }
  return PORTA_SUCCESS;
}

/* ---- HDF5 -------------------------------------------------------------------------------- */

/** Gather the owned atoms to rank 0 in global-id order: x, v (3 doubles each) and type. */
static int gather_by_id(const minimd *m, double **x, double **v, int64_t **type) {
  const minimd_atoms *a = &m->atoms;
  const int rank = m->comm.rank, nranks = m->comm.nranks;
  const int64_t n = a->nlocal, total = a->natoms;
  int cnt = (int)(n * 8), *counts = NULL, *displs = NULL;
  double *mine = (double *)malloc((size_t)(n > 0 ? n : 1) * 8 * sizeof(double));
  if (!mine) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "output", "no memory");
  for (int64_t i = 0; i < n; ++i) {
    double *b = mine + 8 * i;
    for (int d = 0; d < 3; ++d) {
      b[d] = a->hx[3 * i + d];
      b[3 + d] = a->hv[3 * i + d];
    }
    b[6] = (double)a->htype[i];
    b[7] = (double)a->hid[i];
  }
  double *all = NULL;
  if (rank == 0) {
    counts = (int *)malloc((size_t)nranks * sizeof(int));
    displs = (int *)malloc((size_t)nranks * sizeof(int));
    all = (double *)malloc((size_t)(total > 0 ? total : 1) * 8 * sizeof(double));
    if (!counts || !displs || !all) { /* the caller stops the job: the others wait no longer */
      free(mine);
      free(counts);
      free(displs);
      free(all);
      return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "output",
                         "no memory to gather %lld atoms", (long long)total);
    }
  }
  APP_MPI_CHECK(MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank == 0)
    for (int q = 0, off = 0; q < nranks; ++q) {
      displs[q] = off;
      off += counts[q];
    }
  APP_MPI_CHECK(
      MPI_Gatherv(mine, cnt, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  free(mine);
  free(counts);
  free(displs);
  *x = *v = NULL;
  *type = NULL;
  if (rank != 0) return PORTA_SUCCESS;
  *x = (double *)malloc((size_t)(total > 0 ? total : 1) * 3 * sizeof(double));
  *v = (double *)malloc((size_t)(total > 0 ? total : 1) * 3 * sizeof(double));
  *type = (int64_t *)malloc((size_t)(total > 0 ? total : 1) * sizeof(int64_t));
  if (!*x || !*v || !*type) {
    free(all);
    free(*x);
    free(*v);
    free(*type);
    *x = *v = NULL;
    *type = NULL;
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "output",
                       "no memory to order %lld atoms", (long long)total);
  }
  for (int64_t k = 0; k < total; ++k) {
    const double *b = all + 8 * k;
    const int64_t id = (int64_t)b[7];
    for (int d = 0; d < 3; ++d) {
      (*x)[3 * id + d] = b[d];
      (*v)[3 * id + d] = b[3 + d];
    }
    (*type)[id] = (int64_t)b[6];
  }
  free(all);
  return PORTA_SUCCESS;
}

int minimd_write_atoms(const minimd *m, app_h5 *h, const char *group) {
  double *x = NULL, *v = NULL;
  int64_t *type = NULL;
  PORTA_CHECK(gather_by_id(m, &x, &v, &type));
  /* rank 0 holds them all: one block of [natoms][3] (the others take part with none) */
  const int64_t n0 = m->comm.rank == 0 ? m->atoms.natoms : 0;
  const int64_t global[2] = {m->atoms.natoms, 3}, start[2] = {0, 0}, count[2] = {n0, 3};
  const int64_t count1[1] = {n0};
  char path[256];
  PORTA_CHECK(app_h5_group(h, group));
  snprintf(path, sizeof path, "%s/x", group);
  int rc = app_h5_write_block_f64(h, path, 2, global, start, count, x);
  snprintf(path, sizeof path, "%s/v", group);
  if (rc == PORTA_SUCCESS) rc = app_h5_write_block_f64(h, path, 2, global, start, count, v);
  snprintf(path, sizeof path, "%s/type", group);
  if (rc == PORTA_SUCCESS) rc = app_h5_write_block_i64(h, path, 1, global, start, count1, type);
  free(x);
  free(v);
  free(type);
  return rc;
}

/* The vertex cells of the atoms, 0 .. natoms - 1, one dataset every grid of the XDMF series
 * reads: ParaView's Xdmf3 readers make no cells of a Polyvertex topology without it (the atoms
 * are points that nothing draws). */
static int write_vertices(const minimd *m, app_h5 *h) {
  const int64_t natoms = m->atoms.natoms, n0 = m->comm.rank == 0 ? natoms : 0;
  int64_t *ids = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n0 > 0 ? n0 : 1));
  if (!ids)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", MINIMD_VERTICES_PATH,
                       "no memory for %lld vertex indices", (long long)n0);
  for (int64_t i = 0; i < n0; ++i) ids[i] = i;
  const int64_t start = 0;
  PORTA_CHECK(app_h5_group(h, "/mesh"));
  int rc = app_h5_write_block_i64(h, MINIMD_VERTICES_PATH, 1, &natoms, &start, &n0, ids);
  free(ids);
  return rc;
}

int minimd_write_h5(const minimd *m, app_h5 *h, int threads) {
  const minimd_params *p = &m->prm;
  PORTA_CHECK(app_h5_group(h, "/parameters"));
  PORTA_CHECK(app_h5_attr_string(h, "/parameters", "input", p->input));
  PORTA_CHECK(app_h5_attr_string(h, "/parameters", "units", units_name(m)));
  PORTA_CHECK(app_h5_attr_string(h, "/parameters", "force", force_name(m)));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "nx", p->nx));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "ny", p->ny));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "nz", p->nz));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "natoms", m->atoms.natoms));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "nsteps", p->nsteps));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "dt", p->dt));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "temperature", p->temperature));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "density", p->density));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "cutforce", p->cutforce));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "skin", p->skin));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "neigh_every", p->neigh_every));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "thermo_every", p->thermo_every));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "half_neigh", m->neigh.half));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "ghost_newton", m->neigh.newton));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "ranks", m->comm.nranks));
  PORTA_CHECK(app_h5_attr_int(h, "/parameters", "threads", threads));
  PORTA_CHECK(app_h5_attr_string(h, "/parameters", "backend", porta_backend_name(m->exec.backend)));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "box_x", m->comm.prd[0]));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "box_y", m->comm.prd[1]));
  PORTA_CHECK(app_h5_attr_double(h, "/parameters", "box_z", m->comm.prd[2]));
  const minimd_thermo *th = &m->thermo;
  PORTA_CHECK(app_h5_group(h, "/thermo"));
  PORTA_CHECK(app_h5_write_1d_int(h, "/thermo/step", th->step, th->n));
  PORTA_CHECK(app_h5_write_1d_double(h, "/thermo/T", th->t, th->n));
  PORTA_CHECK(app_h5_write_1d_double(h, "/thermo/U", th->u, th->n));
  PORTA_CHECK(app_h5_write_1d_double(h, "/thermo/P", th->p, th->n));
  PORTA_CHECK(app_h5_write_1d_double(h, "/thermo/time", th->time, th->n));
  PORTA_CHECK(app_h5_group(h, "/timings"));
  const minimd_times *t = &m->times;
  PORTA_CHECK(app_h5_attr_double(h, "/timings", "total", t->total));
  PORTA_CHECK(app_h5_attr_double(h, "/timings", "force", t->force));
  PORTA_CHECK(app_h5_attr_double(h, "/timings", "neigh", t->neigh));
  PORTA_CHECK(app_h5_attr_double(h, "/timings", "comm", t->comm));
  PORTA_CHECK(
      app_h5_attr_double(h, "/timings", "atom_steps_per_s",
                         t->total > 0 ? (double)m->atoms.natoms * p->nsteps / t->total : 0.0));
  PORTA_CHECK(write_vertices(m, h));
  return minimd_write_atoms(m, h, "/final");
}

int minimd_write_xmf(const minimd *m, const char *xmf, const char *h5name, const int64_t *steps,
                     int nsnap) {
  if (m->comm.rank != 0) return PORTA_SUCCESS;
  app_text_file t; /* a temporary renamed over xmf (app_file.h) */
  PORTA_CHECK(app_text_file_open("minimd_write_xmf", xmf, &t));
  FILE *f = t.f;
  const char *base = strrchr(h5name, '/') ? strrchr(h5name, '/') + 1 : h5name;
  const long long n = (long long)m->atoms.natoms;
  fprintf(f, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n");
  fprintf(f, "  <Grid Name=\"atoms\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  /* the snapshots, then /final (the last step, which has no snapshot of its own) */
  for (int s = 0; s <= nsnap; ++s) {
    char group[64];
    const int64_t step = s < nsnap ? steps[s] : m->prm.nsteps;
    if (s < nsnap)
      snprintf(group, sizeof group, "/snapshots/step_%lld", (long long)step);
    else
      snprintf(group, sizeof group, "/final");
    fprintf(f, "   <Grid Name=\"%s\" GridType=\"Uniform\">\n", group + 1);
    fprintf(f, "    <Time Value=\"%.17g\"/>\n", (double)step * m->prm.dt); /* physical time */
    fprintf(f,
            "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%lld\" "
            "NodesPerElement=\"1\">\n     <DataItem Dimensions=\"%lld\" NumberType=\"Int\" "
            "Precision=\"8\" Format=\"HDF\">%s:%s</DataItem>\n    </Topology>\n",
            n, n, base, MINIMD_VERTICES_PATH);
    fprintf(f,
            "    <Geometry GeometryType=\"XYZ\">\n     <DataItem Dimensions=\"%lld 3\" "
            "NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:%s/x</DataItem>\n"
            "    </Geometry>\n",
            n, base, group);
    fprintf(f,
            "    <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"
            "     <DataItem Dimensions=\"%lld 3\" NumberType=\"Float\" Precision=\"8\" "
            "Format=\"HDF\">%s:%s/v</DataItem>\n    </Attribute>\n",
            n, base, group);
    fprintf(f,
            "    <Attribute Name=\"type\" AttributeType=\"Scalar\" Center=\"Node\">\n"
            "     <DataItem Dimensions=\"%lld\" NumberType=\"Int\" Precision=\"8\" "
            "Format=\"HDF\">%s:%s/type</DataItem>\n    </Attribute>\n   </Grid>\n",
            n, base, group);
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
  return app_text_file_commit("minimd_write_xmf", &t);
}

void minimd_summary(const minimd *m, double program_time, app_summary *s) {
  const minimd_params *p = &m->prm;
  app_summary_init(s, "minimd");
  snprintf(s->input, sizeof s->input, "%s", p->input);
  snprintf(s->size, sizeof s->size, "force %s, units %s, %lldx%lldx%lld unit cells, %lld atoms",
           force_name(m), units_name(m), (long long)p->nx, (long long)p->ny, (long long)p->nz,
           (long long)m->atoms.natoms);
  s->iteration_name = "step";
  s->iterations = p->nsteps;
  s->solve_time = m->times.total;
  s->total_time = program_time;
  s->work_per_iteration = (double)m->atoms.natoms;
  s->rate_unit = "atom-steps/s";
  const minimd_thermo *th = &m->thermo;
  if (th->n < 2) return; /* nothing to compare */
  /* the printed U is e_scale E_sum / N, E_sum counting each pair twice: the energy per atom is
     U 0.5 / e_scale (U itself in LJ units; in metal units e_scale is the reference's 524288,
     which the check had taken for energy, failing EAM runs that conserve it to 1e-5) */
  const double per_atom = 0.5 / m->units.e_scale;
  const double e0 = 1.5 * m->units.boltz * th->t[0] + th->u[0] * per_atom;
  const double e1 = 1.5 * m->units.boltz * th->t[th->n - 1] + th->u[th->n - 1] * per_atom;
  const double change = fabs(e1 - e0) / fabs(e0);
  const double limit = 1e-2;
  s->check = isfinite(change) && change <= limit ? APP_CHECK_PASSED : APP_CHECK_FAILED;
  snprintf(s->check_detail, sizeof s->check_detail,
           "energy per atom 1.5 kT + U: relative change %.3g between steps %lld and %lld "
           "(limit %g)",
           change, (long long)th->step[0], (long long)th->step[th->n - 1], limit);
}
