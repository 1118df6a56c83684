/** @file minimd_main.c
 *  miniMD on Porta: deck and command line, set-up, the velocity-Verlet loop with
 *  re-neighbouring, thermo output and the reports.
 *
 *    mpirun -np 4 minimd [-i in.lj.miniMD] [-s 32] [-n 100] [--half_neigh 0] [--porta-backend=...]
 *
 *  Exit status: 0 when the run completed, 1 for a run error (a lost atom, a non-finite
 *  position, an output failure), 2 for a bad deck, potential file or command line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "app_h5.h"
#include "app_sum_comm.h"
#include "minimd_comm.h"
#include "minimd_data.h"
#include "minimd_eam.h"
#include "minimd_kernels.h"
#include "minimd_output.h"
#include "minimd_params.h"
#include "minimd_setup.h"

#define RUN(call)                                                                                  \
  do {                                                                                             \
    if ((call) != PORTA_SUCCESS) app_fatal("minimd: %s", porta_last_error_message());              \
  } while (0)

/** Time spent in `call` added to *acc (the execution space fenced first, so the timers mean
 *  what they say on a GPU too). */
#define TIMED(m, acc, call)                                                                        \
  do {                                                                                             \
    const double t0_ = porta_wtime();                                                              \
    RUN(call);                                                                                     \
    RUN(porta_exec_fence((m)->exec, "minimd_timer"));                                              \
    *(acc) += porta_wtime() - t0_;                                                                 \
  } while (0)

/** Forces at the current positions (energy and virial per atom when eflag). */
static void compute_force(minimd *m, int eflag) {
  if (m->prm.force == MINIMD_FORCE_LJ) {
    TIMED(m, &m->times.force, minimd_force_lj(m, eflag));
  } else {
    TIMED(m, &m->times.force, minimd_force_eam(m, eflag));
    TIMED(m, &m->times.force, minimd_comm_forward_scalar(&m->comm, m->exec, m->eam.fp));
    TIMED(m, &m->times.force, minimd_force_eam_pairs(m, eflag));
  }
  if (m->neigh.half && m->neigh.newton)
    TIMED(m, &m->times.comm, minimd_comm_reverse(&m->comm, m->exec, m->atoms.f));
}

/** The ghosts' positions and the forces (m->neigh.split): the messages of the first swap with
 *  another rank travel while the atoms without ghost neighbours get their forces; the rest of
 *  the swaps, then the forces of the atoms with ghost neighbours. One fence, at the end. */
static void forward_and_force(minimd *m, int eflag) {
  const double t0 = porta_wtime();
  RUN(minimd_comm_forward_begin(&m->comm, m->exec, m->atoms.x));
  const double t1 = porta_wtime();
  RUN(minimd_force_lj_part(m, eflag, 0));
  const double t2 = porta_wtime();
  RUN(minimd_comm_forward_end(&m->comm, m->exec, m->atoms.x));
  const double t3 = porta_wtime();
  RUN(minimd_force_lj_part(m, eflag, 1));
  RUN(porta_exec_fence(m->exec, "minimd_timer"));
  m->times.comm += (t1 - t0) + (t3 - t2); /* the host's part of the messages */
  m->times.force += (t2 - t1) + (porta_wtime() - t3);
}

/** Migration, sorting, ghosts and the list: the re-neighbouring of step `step`. */
static void reneighbor(minimd *m, int64_t step, int sort) {
  double t_extra = 0.0;
  if (m->device_reneighbor && step > 0) {
    /* on a GPU the host never sees the atoms (they are sorted there too) */
    TIMED(m, &t_extra, minimd_reneighbor_device(m, step, sort));
  } else {
    TIMED(m, &t_extra, minimd_atoms_to_host(m));
    TIMED(m, &t_extra, minimd_comm_exchange(&m->comm, &m->atoms, step));
    if (sort) TIMED(m, &t_extra, minimd_sort_host(m));
    TIMED(m, &t_extra, minimd_comm_borders(&m->comm, &m->atoms));
    TIMED(m, &t_extra, minimd_atoms_to_device(m));
    TIMED(m, &t_extra,
          minimd_comm_plans(&m->comm, m->exec, m->neigh.half && m->neigh.newton,
                            m->prm.force == MINIMD_FORCE_EAM, 0));
  }
  m->times.comm += t_extra;
  m->times.extra += t_extra;
  TIMED(m, &m->times.neigh, minimd_neighbor_build(m));
}

/* A run has blown up when its energy per atom moves by this many times its size at step 0, or
   its temperature grows by its square (see thermo). */
#define MINIMD_BLOWUP_FACTOR 100.0

/** T, U and P of the current state: print them (rank 0) and keep them; stop a run that has
 *  blown up. */
static void thermo(minimd *m, int64_t step, double elapsed) {
  const double t = minimd_temperature(m);
  double ew[2];
  RUN(minimd_sum_energy_virial(m, ew));
  RUN(app_sum_allreduce(m->sum, ew, 2));
  const double n = (double)m->atoms.natoms;
  const double u = 2.0 * m->units.e_scale * ew[0] / n;
  const double p = (t * m->units.dof_boltz + ew[1]) * m->units.p_scale;
  minimd_thermo *th = &m->thermo;
  if (th->n == th->cap) {
    th->cap = th->cap ? 2 * th->cap : 64;
    th->step = (int64_t *)realloc(th->step, (size_t)th->cap * sizeof(int64_t));
    th->t = (double *)realloc(th->t, (size_t)th->cap * sizeof(double));
    th->u = (double *)realloc(th->u, (size_t)th->cap * sizeof(double));
    th->p = (double *)realloc(th->p, (size_t)th->cap * sizeof(double));
    th->time = (double *)realloc(th->time, (size_t)th->cap * sizeof(double));
    if (!th->step || !th->t || !th->u || !th->p || !th->time) app_fatal("minimd: no memory");
  }
  th->step[th->n] = step;
  th->t[th->n] = t;
  th->u[th->n] = u;
  th->p[th->n] = p;
  th->time[th->n] = elapsed;
  th->n += 1;
  if (m->comm.rank == 0) {
    printf("%lld %e %e %e %6.3lf\n", (long long)step, t, u, p, elapsed);
    fflush(stdout);
  }
  if (!isfinite(t) || !isfinite(u) || !isfinite(p))
    app_exit_all(1,
                 "step %lld: the thermo output is not finite (T=%g U=%g P=%g); the run "
                 "blew up (time step too large, atoms too close, or a bad potential)",
                 (long long)step, t, u, p);
  /* Finite but exploded: NVE keeps the energy per atom, 1.5 k T + U, where it started; a change
     of MINIMD_BLOWUP_FACTOR times its parts' size at step 0, or a temperature that many squared
     times the first, is no integration error (a density and temperature swapped in the EAM
     deck had reached 1e11-1e14 and T 4e10 and run on) */
  const double kin = 1.5 * m->units.boltz;
  const double e0 = kin * th->t[0] + th->u[0], scale = fabs(kin * th->t[0]) + fabs(th->u[0]);
  const double hot = MINIMD_BLOWUP_FACTOR * MINIMD_BLOWUP_FACTOR * th->t[0];
  if (th->n > 1 &&
      (fabs(kin * t + u - e0) > MINIMD_BLOWUP_FACTOR * scale || (th->t[0] > 0.0 && t > hot)))
    app_exit_all(1,
                 "step %lld: the energy per atom 1.5 kT + U is %g (T=%g U=%g), %g at step 0: the "
                 "system has blown up; check the deck's density (%g) and temperature (%g), the "
                 "cut-off and the time step",
                 (long long)step, kin * t + u, t, u, e0, m->prm.density, m->prm.temperature);
}

/* The atoms at `step` as the snapshot /snapshots/step_STEP of the result file (its step added to
 * the series' list, which the XDMF description reads). */
static void snapshot(minimd *m, app_h5 *h5, int64_t step, int64_t **snap, int *nsnap) {
  char group[64];
  snprintf(group, sizeof group, "/snapshots/step_%lld", (long long)step);
  RUN(minimd_atoms_to_host(m));
  if (*nsnap == 0) RUN(app_h5_group(h5, "/snapshots"));
  RUN(minimd_write_atoms(m, h5, group));
  int64_t *grown = (int64_t *)realloc(*snap, (size_t)(*nsnap + 1) * sizeof(int64_t));
  if (!grown) app_fatal("minimd: no memory for the list of %d snapshots", *nsnap + 1);
  *snap = grown;
  grown[(*nsnap)++] = step;
}

/** A file named by the deck (the EAM potential, a data file): beside the deck if it is there,
 *  else as given (relative to the working directory, as the reference looks for it). */
static void beside_deck(const char *deck, const char *name, char *out, size_t n) {
  const char *slash = strrchr(deck, '/');
  if (slash && name[0] != '/') {
    snprintf(out, n, "%.*s/%s", (int)(slash - deck), deck, name);
    FILE *f = fopen(out, "r");
    if (f) {
      fclose(f);
      return;
    }
  }
  snprintf(out, n, "%s", name);
}

int main(int argc, char **argv) {
  static minimd m;
  minimd_cli cl;
  minimd_cli_defaults(&cl);
  const app_cli_spec spec = minimd_cli_spec(&cl);
  app_cli cli;
  app_begin(&argc, &argv, &spec, &cli);
  const double t_program = porta_wtime();
  const int rank = app_mpi_rank(), nranks = app_mpi_size();
  if (cl.threads > 0 && porta_set_num_threads(cl.threads) != PORTA_SUCCESS)
    app_exit_all(2, "%s", porta_last_error_message());
  /* the threads that ran the kernels (one for Serial and for a rank's GPU; the Performance
     Summary's OMP_threads and perf/thread) */
  const int threads = porta_exec_query(porta_exec_default()).host_threads && porta_num_threads() > 0
                          ? porta_num_threads()
                          : 1;

  char err[2048] = "";
  if (minimd_params_read(&m.prm, cli.input, &cl, MPI_COMM_WORLD, err, sizeof err) != PORTA_SUCCESS)
    app_exit_all(2, "%s", err);
  minimd_params *p = &m.prm;
  minimd_data data;
  memset(&data, 0, sizeof data);
  if (p->data_file[0]) {
    char path[APP_PATH_MAX + 16];
    beside_deck(p->input, p->data_file, path, sizeof path);
    app_spare_input(&cli, path, "the data file");
    if (minimd_data_read(path, &data, MPI_COMM_WORLD, err, sizeof err) != PORTA_SUCCESS)
      app_exit_all(2, "%s", err);
  }
  if (p->force == MINIMD_FORCE_EAM && p->ghost_newton) {
    if (rank == 0) printf("# EAM currently requires '--ghost_newton 0'; Changing setting now.\n");
    p->ghost_newton = 0;
  }
  m.exec = porta_exec_default();
  /* re-neighbouring on the execution space on a GPU (MINIMD_DEVICE_RENEIGHBOR=1 takes that
     path on a host back end too, =0 the host path on a GPU: the tests check both) */
  const char *dr = getenv("MINIMD_DEVICE_RENEIGHBOR");
  m.device_reneighbor = dr && (!strcmp(dr, "0") || !strcmp(dr, "1"))
                            ? dr[0] == '1'
                            : porta_exec_query(m.exec).on_device;
  m.reproducible = cli.reproducible;
  RUN(app_sum_create(&m.sum, MPI_COMM_WORLD, m.reproducible, NULL));
  /* The list kind when --half_neigh is not given, as measured (docs/minimd.md): LJ a full
     list everywhere (its vector loop without atomics beat the half list's atomic updates 1.9x
     on 2 CPU cores); EAM a half list on the host (its pairs cost square roots and table
     look-ups, so computing each once wins, 1.26x) and a full list on a GPU (no atomics). */
  if (p->half_neigh == -2)
    m.neigh.half = p->force == MINIMD_FORCE_EAM && !porta_exec_query(m.exec).on_device;
  else
    m.neigh.half = p->half_neigh != 0;
  if (m.reproducible && m.neigh.half) {
    /* a half list adds each pair's force to two atoms in whatever order the threads run */
    if (rank == 0) printf("# --reproducible: full neighbour lists in global-id order\n");
    m.neigh.half = 0;
  }
  m.neigh.newton = m.neigh.half && p->ghost_newton;
  /* MINIMD_OVERLAP=1: the forces of the atoms without ghost neighbours overlap the ghosts'
     messages, for LJ with a full list (one thread writes each atom's force, so the split
     changes no sum). Not the default: on 2 H200s it ran 3.7 % slower per step than the forces
     in one kernel after the messages (docs/minimd.md, "Overlap") */
  const char *cs = getenv("MINIMD_CHECK_SORT"); /* =1: each device sort checks its order */
  m.neigh.check_sort = cs && !strcmp(cs, "1");
  const char *ov = getenv("MINIMD_OVERLAP");
  m.neigh.split = ov && !strcmp(ov, "1") && p->force == MINIMD_FORCE_LJ && !m.neigh.half;
  const int sort_every = p->sort_every > 0 ? p->sort_every : p->sort_every < 0 ? p->neigh_every : 0;
  if (rank == 0) printf("# Create System:\n");

  /* ---- box, decomposition, potential ---- */
  const double alat = pow(4.0 / p->density, 1.0 / 3.0);
  double prd[3] = {p->nx * alat, p->ny * alat, p->nz * alat};
  m.atoms.natoms = 4 * p->nx * p->ny * p->nz;
  if (data.x) { /* the data file's box and atoms; the density follows from them */
    for (int d = 0; d < 3; ++d) prd[d] = data.prd[d];
    m.atoms.natoms = data.natoms;
    p->density = (double)data.natoms / (prd[0] * prd[1] * prd[2]);
  }
  minimd_comm_grid(&m.comm, prd, nranks, rank);
  /* Host back ends: about 660 bytes per atom measured (positions, velocities, forces, ids,
     bins, a half list: -s 20 and -s 40, LJ; a full list takes more), so below that the run
     cannot fit; refuse it before allocating. A GPU rank still creates its atoms on the host
     and keeps their host copies (x, v, id, type: 60 bytes an atom), so those must fit too: it
     had spent minutes creating 3.2e10 atoms on the host before failing (-s 2000). */
  { /* collective: every rank takes part. The neighbour list grows with the density and the
       cube of the cut-off: a cut-off of 100 had run for minutes building lists of millions of
       atoms an atom, a density of 1e5 had crashed. On a GPU the arrays and lists are checked
       against the device's memory too. */
    const double cut = p->cutforce + p->skin;
    const int on_device = porta_exec_query(m.exec).on_device;
    const double host = minimd_host_bytes_per_rank(&m, p->density, cut, m.neigh.half, on_device);
    const double device = on_device ? minimd_bytes_per_rank(&m, p->density, cut, m.neigh.half) : 0;
    char limit[4400];
    double share = app_node_memory_share(host, limit, sizeof limit), bytes = host;
    const char *where = "on the host";
    char dlimit[512];
    const double dshare = app_device_memory_share(device, m.exec, dlimit, sizeof dlimit);
    if (dshare > share || !isfinite(device)) {
      share = dshare;
      bytes = device;
      where = "on the device";
      snprintf(limit, sizeof limit, "%s", dlimit);
    }
    if (share > 1.0 || !isfinite(bytes))
      app_exit_all(2,
                   "%s: %lld atoms at density %g with a neighbour cut-off of %g need at least "
                   "%.3g GB per rank %s (atoms, ghosts and neighbour lists), %.3g "
                   "times %s; use more nodes or a smaller system, density or cut-off",
                   p->input, (long long)m.atoms.natoms, p->density, cut, bytes / 1e9, where, share,
                   limit);
  }
  const double cutneigh = p->cutforce + p->skin;
  for (int d = 0; d < 3; ++d)
    if (cutneigh * m.comm.procgrid[d] / prd[d] + 1 > 64)
      app_exit_all(2,
                   "%s: the neighbour cut-off %g is more than 63 sub-domains (%g) "
                   "wide; the density or the cut-off makes no sense for this box",
                   p->input, cutneigh, prd[d] / m.comm.procgrid[d]);
  RUN(minimd_comm_setup(&m.comm, cutneigh));
  double mass = data.have_mass ? data.mass : 1.0;
  if (p->force == MINIMD_FORCE_EAM) {
    char path[APP_PATH_MAX + 16];
    beside_deck(p->input, "Cu_u6.eam", path, sizeof path);
    app_spare_input(&cli, path, "the EAM potential file");
    if (minimd_eam_read(&m.eam, path, MPI_COMM_WORLD, err, sizeof err) != PORTA_SUCCESS)
      app_exit_all(2, "%s", err);
    mass = m.eam.mass;
  }
  minimd_units_setup(&m, mass);
  const int64_t ncells[3] = {p->nx, p->ny, p->nz};
  for (int d = 0; d < 3; ++d) {
    /* the reference's default: 5/6 of the unit cells, or with a data file bins of
       (16 rho)^(1/3) */
    const double want = p->nbins[d] > 0 ? p->nbins[d]
                        : data.x        ? prd[d] / pow(p->density * 16.0, 1.0 / 3.0)
                                        : 5.0 / 6.0 * (double)ncells[d];
    m.neigh.nbin[d] = (int)fmin(want, 1e9); /* minimd_bins_limit takes it within reason */
    if (m.neigh.nbin[d] < 1) m.neigh.nbin[d] = 1;
  }
  minimd_bins_limit(&m);

  /* the result file first: a bad --out fails now, not after the run */
  app_h5 h5;
  memset(&h5, 0, sizeof h5);
  if (!cli.no_h5 && app_h5_create(&h5, cli.output, MPI_COMM_WORLD) != PORTA_SUCCESS)
    app_exit_all(1, "%s", porta_last_error_message());
  app_porta_errors_fatal();

  RUN(minimd_neighbor_setup(&m));
  if (data.x) { /* velocities as the file gives them */
    RUN(minimd_create_atoms_from(&m, data.x, data.v, data.natoms));
    free(data.x);
    free(data.v);
    RUN(minimd_atoms_to_device(&m));
  } else {
    RUN(minimd_create_atoms(&m));
    RUN(minimd_atoms_to_device(&m));
    RUN(minimd_velocity_create(&m));
  }
  if (rank == 0) {
    printf("# Done .... \n");
    minimd_print_settings(stdout, &m, threads, sort_every);
  }

  /* ---- step 0 ---- */
  reneighbor(&m, 0, p->sort_every > 0);
  if (m.device_reneighbor) RUN(minimd_reneighbor_prepare(&m));
  compute_force(&m, 1);
  memset(&m.times, 0, sizeof m.times);
  if (rank == 0) {
    printf("# Starting dynamics ...\n# Timestep T U P Time\n");
    fflush(stdout);
  }
  thermo(&m, 0, 0.0);

  /* ---- the loop ---- */
  /* --dump-every N: snapshots at step 0 and every N steps; the last step is /final (each time
     once in the series) */
  int64_t *snap = NULL;
  int nsnap = 0;
  if (p->dump_every > 0 && !cli.no_h5) snapshot(&m, &h5, 0, &snap, &nsnap);
  APP_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t_start = porta_wtime();
  int64_t next_sort = sort_every > 0 ? sort_every : p->nsteps + 1;
  int final_pending = 0; /* the last step's final integration is left to the next initial one */
  for (int64_t n = 0; n < p->nsteps; ++n) {
    RUN(minimd_initial_integrate(&m, final_pending)); /* "other": the remainder, no fence */
    const int eflag = p->thermo_every > 0 && (n + 1) % p->thermo_every == 0;
    if ((n + 1) % p->neigh_every && m.neigh.split) {
      forward_and_force(&m, eflag);
    } else {
      if ((n + 1) % p->neigh_every) {
        TIMED(&m, &m.times.comm, minimd_comm_forward(&m.comm, m.exec, m.atoms.x));
      } else {
        const int sort = n + 1 >= next_sort;
        if (sort) next_sort += sort_every;
        reneighbor(&m, n + 1, sort);
      }
      compute_force(&m, eflag);
    }
    const int dump =
        p->dump_every > 0 && (n + 1) % p->dump_every == 0 && n + 1 < p->nsteps && !cli.no_h5;
    final_pending = !eflag && !dump && n + 1 < p->nsteps; /* v is looked at otherwise */
    if (!final_pending) RUN(minimd_final_integrate(&m));
    if (eflag) thermo(&m, n + 1, porta_wtime() - t_start);
    if (dump) snapshot(&m, &h5, n + 1, &snap, &nsnap);
  }
  APP_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  m.times.total = porta_wtime() - t_start;
  /* a run that blew up after its last re-neighbouring is caught here, not reported as a result */
  RUN(minimd_atoms_to_host(&m));
  RUN(minimd_comm_check_positions(&m.comm, &m.atoms, p->nsteps));
  m.times.other = m.times.total - m.times.force - m.times.neigh - m.times.comm;

  /* the reference recomputes the forces with energy and prints a last line when the run did
     not end on a thermo step (thermo every 0: the start and the end only); outside the timed
     loop, so its force time is not counted (it had made t_other negative on a GPU) */
  const minimd_times timed = m.times;
  compute_force(&m, 1);
  if (p->thermo_every == 0 || p->nsteps % p->thermo_every != 0) thermo(&m, p->nsteps, timed.total);
  m.times = timed;
  if (rank == 0) minimd_print_summary(stdout, &m, threads);

  app_run_config rc;
  app_run_config_fill(&rc, NULL, cli.reproducible);
  app_summary summary;
  minimd_summary(&m, porta_wtime() - t_program, &summary);
  RUN(app_summary_agree(&summary, MPI_COMM_WORLD));
  if (!cli.no_h5) {
    RUN(minimd_atoms_to_host(&m));
    RUN(minimd_write_h5(&m, &h5, threads));
    RUN(app_summary_write_h5(&summary, &rc, &h5));
    char xmf[APP_PATH_MAX + 16], h5name[APP_PATH_MAX + 16];
    snprintf(xmf, sizeof xmf, "%s.xmf", cli.output);
    snprintf(h5name, sizeof h5name, "%s.h5", cli.output);
    RUN(app_h5_close(&h5, 1));
    if (minimd_write_xmf(&m, xmf, h5name, snap, nsnap) != PORTA_SUCCESS && rank == 0)
      fprintf(stderr, "minimd: warning: %s\n", porta_last_error_message());
  }
  /* after the result file, so a failure here loses nothing (the path was checked at start-up) */
  if (cli.summary_json[0]) RUN(app_summary_write_json(&summary, &rc, cli.summary_json));
  /* the reference's YAML report last: where the current directory cannot take it the run
     stops with the reason, the results above already written */
  if (p->yaml_output && rank == 0) RUN(minimd_write_yaml(&m, threads, sort_every, p->yaml_screen));
  free(snap);
  minimd_comm_free(&m.comm);
  app_sum_destroy(m.sum);
  porta_finalize();
  app_mpi_finalize();
  return 0;
}
