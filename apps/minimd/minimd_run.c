/** @file minimd_run.c
 *  A miniMD run's steps other than the time steps (minimd_run.h): begin, set up, report and
 *  finish. */
#include "minimd_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app_env.h"
#include "app_sum_comm.h"
#include "minimd_comm.h"
#include "minimd_eam.h"
#include "minimd_kernels.h"
#include "minimd_output.h"
#include "minimd_setup.h"

/* A file named by the deck (the EAM potential, a data file): beside the deck if it is there,
 * else as given (relative to the working directory, as the reference looks for it). Only looked
 * at, never opened: opening a FIFO there would wait for a writer for ever (minimd_input_open
 * refuses what is not a regular file, whichever path names it). */
static void beside_deck(const char *deck, const char *name, char *out, size_t n) {
  const char *slash = strrchr(deck, '/');
  if (slash && name[0] != '/') {
    snprintf(out, n, "%.*s/%s", (int)(slash - deck), deck, name);
    struct stat st;
    if (stat(out, &st) == 0) return;
  }
  snprintf(out, n, "%s", name);
}

/* The run's variants: where it re-neighbours, the reproducible sums, the list kind, overlap
   and sorting. */
static void choose_variants(minimd_run *r) {
  minimd *m = &r->m;
  minimd_params *p = &m->prm;
  const int on_device = porta_exec_query(m->exec).on_device;
  /* re-neighbouring on the execution space on a GPU (MINIMD_DEVICE_RENEIGHBOR=1 takes that
     path on a host back end too, =0 the host path on a GPU: the tests check both) */
  m->device_reneighbor = app_env_flag("MINIMD_DEVICE_RENEIGHBOR", on_device);
  m->reproducible = r->cli.reproducible;
  APP_CHECK(app_sum_create(&m->sum, MPI_COMM_WORLD, r->cli.exact_sums, NULL));
  /* The list kind when --half_neigh is not given, as measured (docs/minimd.md): LJ a full
     list everywhere (its vector loop without atomics beat the half list's atomic updates 1.9x
     on 2 CPU cores); EAM a half list on the host (its pairs cost square roots and table
     look-ups, so computing each once wins, 1.26x) and a full list on a GPU (no atomics). */
  if (p->half_neigh == -2)
    m->neigh.half = p->force == MINIMD_FORCE_EAM && !on_device;
  else
    m->neigh.half = p->half_neigh != 0;
  if (m->reproducible && m->neigh.half) {
    /* a half list adds each pair's force to two atoms in whatever order the threads run */
    if (r->rank == 0) printf("# --reproducible: full neighbour lists in global-id order\n");
    m->neigh.half = 0;
  }
  m->neigh.newton = m->neigh.half && p->ghost_newton;
  /* MINIMD_CHECK_SORT=1: each device sort checks its order. MINIMD_OVERLAP=1: the forces of
     the atoms without ghost neighbours overlap the ghosts' messages, for LJ with a full list
     (one thread writes each atom's force, so the split changes no sum). The default on
     several GPUs, where the swaps are queued beside those forces (docs/minimd.md, "Overlap":
     4 GPUs, LJ -s 100, 10 % less per step); elsewhere not (on 2 H200s, with the swaps driven
     from the host, it had run 3.7 % slower per step) */
  m->neigh.check_sort = app_env_flag("MINIMD_CHECK_SORT", 0);
  const int several_gpus = on_device && r->nranks > 1;
  m->neigh.split =
      app_env_flag("MINIMD_OVERLAP", several_gpus) && p->force == MINIMD_FORCE_LJ && !m->neigh.half;
  r->sort_every = p->sort_every > 0 ? p->sort_every : p->sort_every < 0 ? p->neigh_every : 0;
}

void minimd_run_begin(minimd_run *r, int *argc, char ***argv) {
  memset(r, 0, sizeof *r);
  minimd *m = &r->m;
  minimd_cli_defaults(&r->cl);
  const app_cli_spec spec = minimd_cli_spec(&r->cl);
  app_begin(argc, argv, &spec, &r->cli);
  r->t_program = porta_wtime();
  r->rank = app_mpi_rank();
  r->nranks = app_mpi_size();
  if (r->cl.threads > 0 && porta_set_num_threads(r->cl.threads) != PORTA_SUCCESS)
    app_exit_all(APP_EXIT_BAD_INPUT, "%s", porta_last_error_message());
  /* the threads that ran the kernels (one for Serial and for a rank's GPU; the Performance
     Summary's OMP_threads and perf/thread) */
  r->threads = porta_exec_query(porta_exec_default()).host_threads && porta_num_threads() > 0
                   ? porta_num_threads()
                   : 1;
  if (minimd_params_read(&m->prm, r->cli.input, &r->cl, MPI_COMM_WORLD) != PORTA_SUCCESS)
    app_exit_all(APP_EXIT_BAD_INPUT, "%s", porta_last_error_message());
  minimd_params *p = &m->prm;
  if (p->data_file[0]) {
    char path[APP_PATH_MAX + 16];
    beside_deck(p->input, p->data_file, path, sizeof path);
    app_spare_input(&r->cli, path, "the data file");
    if (minimd_data_read(path, &r->data, MPI_COMM_WORLD) != PORTA_SUCCESS)
      app_exit_all(APP_EXIT_BAD_INPUT, "%s", porta_last_error_message());
  }
  if (p->force == MINIMD_FORCE_EAM && p->ghost_newton) {
    if (r->rank == 0)
      printf("# EAM currently requires '--ghost_newton 0'; Changing setting now.\n");
    p->ghost_newton = 0;
  }
  m->exec = porta_exec_default();
  choose_variants(r);
  if (r->rank == 0) printf("# Create System:\n");
}

/* The box (the deck's fcc lattice or the data file's) and its decomposition over the ranks. */
static void decompose(minimd_run *r, double prd[3]) {
  minimd *m = &r->m;
  minimd_params *p = &m->prm;
  const double alat = pow(4.0 / p->density, 1.0 / 3.0);
  prd[0] = p->nx * alat;
  prd[1] = p->ny * alat;
  prd[2] = p->nz * alat;
  m->atoms.natoms = 4 * p->nx * p->ny * p->nz;
  if (r->data.x) { /* the data file's box and atoms; the density follows from them */
    for (int d = 0; d < 3; ++d) prd[d] = r->data.prd[d];
    m->atoms.natoms = r->data.natoms;
    p->density = (double)r->data.natoms / (prd[0] * prd[1] * prd[2]);
  }
  minimd_comm_grid(&m->comm, prd, r->nranks, r->rank);
}

/* The potential's file (EAM) and the units of the atoms' mass. */
static void set_up_potential(minimd_run *r) {
  minimd *m = &r->m;
  double mass = r->data.have_mass ? r->data.mass : 1.0;
  if (m->prm.force == MINIMD_FORCE_EAM) {
    char path[APP_PATH_MAX + 16];
    beside_deck(m->prm.input, "Cu_u6.eam", path, sizeof path);
    app_spare_input(&r->cli, path, "the EAM potential file");
    if (minimd_eam_read(&m->eam, path, MPI_COMM_WORLD) != PORTA_SUCCESS)
      app_exit_all(APP_EXIT_BAD_INPUT, "%s", porta_last_error_message());
    mass = m->eam.mass;
  }
  minimd_units_setup(m, mass);
}

/* The bins of the neighbour search: the deck's, else the reference's default (5/6 of the unit
   cells, or with a data file bins of (16 rho)^(1/3)), within reason (minimd_bins_limit). */
static void choose_bins(minimd_run *r, const double prd[3]) {
  minimd *m = &r->m;
  const minimd_params *p = &m->prm;
  const int64_t ncells[3] = {p->nx, p->ny, p->nz};
  for (int d = 0; d < 3; ++d) {
    const double want = p->nbins[d] > 0 ? p->nbins[d]
                        : r->data.x     ? prd[d] / pow(p->density * 16.0, 1.0 / 3.0)
                                        : 5.0 / 6.0 * (double)ncells[d];
    m->neigh.nbin[d] = (int)fmin(want, 1e9);
    if (m->neigh.nbin[d] < 1) m->neigh.nbin[d] = 1;
  }
  minimd_bins_limit(m);
}

/* This rank's atoms on the execution space: the data file's (with its velocities) or the
   lattice's with the reference's random velocities. */
static void create_atoms(minimd_run *r) {
  minimd *m = &r->m;
  if (r->data.x) {
    APP_CHECK(minimd_create_atoms_from(m, r->data.x, r->data.v, r->data.natoms));
    free(r->data.x);
    free(r->data.v);
    r->data.x = r->data.v = NULL;
    APP_CHECK(minimd_atoms_to_device(m));
  } else {
    APP_CHECK(minimd_create_atoms(m));
    APP_CHECK(minimd_atoms_to_device(m));
    APP_CHECK(minimd_velocity_create(m));
  }
}

void minimd_run_set_up(minimd_run *r) {
  minimd *m = &r->m;
  double prd[3];
  decompose(r, prd);
  minimd_check_sizes(m, prd);
  APP_CHECK(minimd_comm_setup(&m->comm, m->prm.cutforce + m->prm.skin));
  set_up_potential(r);
  choose_bins(r, prd);
  /* the result file first: a bad --out fails now, not after the run */
  if (!r->cli.no_h5 && app_h5_create(&r->h5, r->cli.output, MPI_COMM_WORLD) != PORTA_SUCCESS)
    app_h5_create_failed(&r->h5);
  APP_CHECK(minimd_neighbor_setup(m));
  create_atoms(r);
  if (r->rank == 0) {
    printf("# Done .... \n");
    minimd_print_settings(stdout, m, r->threads, r->sort_every);
  }
}

void minimd_run_report(minimd_run *r) {
  minimd *m = &r->m;
  app_run_config_fill(&r->config, NULL, r->cli.reproducible, r->cli.exact_sums);
  minimd_summary(m, porta_wtime() - r->t_program, &r->summary);
  APP_CHECK(app_summary_agree(&r->summary, MPI_COMM_WORLD));
  if (!r->cli.no_h5) {
    APP_CHECK(minimd_atoms_to_host(m));
    APP_H5_CHECK(&r->h5, minimd_write_h5(m, &r->h5, r->threads));
    APP_H5_CHECK(&r->h5, app_summary_write_h5(&r->summary, &r->config, &r->h5));
    char xmf[APP_PATH_MAX + 16], h5name[APP_PATH_MAX + 16];
    snprintf(xmf, sizeof xmf, "%s.xmf", r->cli.output);
    snprintf(h5name, sizeof h5name, "%s.h5", r->cli.output);
    APP_H5_CHECK(&r->h5, app_h5_close(&r->h5, 1));
    if (minimd_write_xmf(m, xmf, h5name, r->snap, r->nsnap) != PORTA_SUCCESS && r->rank == 0)
      app_xmf_fatal(r->cli.output, APP_CHECK_WHERE_(minimd_write_xmf(m, xmf, h5name, ...)));
  }
  /* after the result file, so a failure here loses nothing (the path was checked at start-up) */
  if (r->cli.summary_json[0])
    APP_CHECK(app_summary_write_json(&r->summary, &r->config, r->cli.summary_json));
  /* the reference's YAML report last: where the current directory cannot take it the run
     stops with the reason, the results above already written */
  if (m->prm.yaml_output && r->rank == 0)
    APP_CHECK(minimd_write_yaml(m, r->threads, r->sort_every, m->prm.yaml_screen));
}

int minimd_run_finish(minimd_run *r) {
  free(r->snap);
  minimd_comm_free(&r->m.comm);
  app_sum_destroy(r->m.sum);
  porta_finalize();
  app_mpi_finalize();
  return 0;
}
