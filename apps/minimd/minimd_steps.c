/** @file minimd_steps.c
 *  miniMD's time steps: velocity-Verlet with the forces of the current variant, re-neighbouring
 *  every neigh_every steps, thermo lines (with the blow-up check) and snapshots. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_env.h"
#include "app_sum_comm.h"
#include "minimd_comm.h"
#include "minimd_eam.h"
#include "minimd_kernels.h"
#include "minimd_output.h"
#include "minimd_run.h"
#include "minimd_setup.h"

/** Time spent in `call` added to *acc (the execution space fenced first, so the timers mean
 *  what they say on a GPU too). */
#define TIMED(m, acc, call)                                                                        \
  do {                                                                                             \
    const double t0_ = porta_wtime();                                                              \
    APP_CHECK(call);                                                                               \
    APP_CHECK(porta_exec_fence((m)->exec, "minimd_timer"));                                        \
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

/** The ghosts' positions and the forces (m->neigh.split): the swaps set going, the forces of
 *  the atoms without neighbours among the other ranks' ghosts while they travel, the ghosts in
 *  place, then the forces of the other atoms. One fence, at the end. */
static void forward_and_force(minimd *m, int eflag) {
  const double t0 = porta_wtime();
  APP_CHECK(minimd_comm_forward_begin(&m->comm, m->exec, m->atoms.x));
  const double t1 = porta_wtime();
  APP_CHECK(minimd_force_lj_part(m, eflag, 0));
  const double t2 = porta_wtime();
  APP_CHECK(minimd_comm_forward_end(&m->comm, m->exec, m->atoms.x));
  const double t3 = porta_wtime();
  APP_CHECK(minimd_force_lj_part(m, eflag, 1));
  APP_CHECK(porta_exec_fence(m->exec, "minimd_timer"));
  m->times.comm += (t1 - t0) + (t3 - t2); /* the host's part of the swaps */
  m->times.force += (t2 - t1) + (porta_wtime() - t3);
}

/** Migration, sorting, ghosts and the list: the re-neighbouring of step `step`. */
static void reneighbor(minimd *m, int64_t step, int sort) {
  double t_extra = 0.0;
  TIMED(m, &t_extra, minimd_comm_reneighbor(m, step, sort));
  m->times.comm += t_extra;
  m->times.extra += t_extra;
  TIMED(m, &m->times.neigh, minimd_neighbor_build(m));
}

/* A run has blown up when its energy per atom moves by this many times its size at step 0, or
   its temperature grows by its square (see thermo). */
#define MINIMD_BLOWUP_FACTOR 100.0

/** Room in the thermo series for one more line (its arrays doubled when full). */
static int thermo_reserve(minimd_thermo *th) {
  if (th->n < th->cap) return PORTA_SUCCESS;
  th->cap = th->cap ? 2 * th->cap : 64;
  th->step = (int64_t *)realloc(th->step, (size_t)th->cap * sizeof(int64_t));
  th->t = (double *)realloc(th->t, (size_t)th->cap * sizeof(double));
  th->u = (double *)realloc(th->u, (size_t)th->cap * sizeof(double));
  th->p = (double *)realloc(th->p, (size_t)th->cap * sizeof(double));
  th->time = (double *)realloc(th->time, (size_t)th->cap * sizeof(double));
  if (!th->step || !th->t || !th->u || !th->p || !th->time)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "thermo", "no memory");
  return PORTA_SUCCESS;
}

/** T, U and P of the current state: print them (rank 0) and keep them; stop a run that has
 *  blown up. */
static void thermo(minimd *m, int64_t step, double elapsed) {
  double t = 0.0, ew[2];
  APP_CHECK(minimd_temperature(m, &t));
  APP_CHECK(minimd_sum_energy_virial(m, ew));
  APP_CHECK(app_sum_allreduce(m->sum, ew, 2));
  const double n = (double)m->atoms.natoms;
  const double u = 2.0 * m->units.e_scale * ew[0] / n;
  const double p = (t * m->units.dof_boltz + ew[1]) * m->units.p_scale;
  minimd_thermo *th = &m->thermo;
  APP_CHECK(thermo_reserve(th));
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
    app_exit_all(APP_EXIT_RUN_FAILED,
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
    app_exit_all(APP_EXIT_RUN_FAILED,
                 "step %lld: the energy per atom 1.5 kT + U is %g (T=%g U=%g), %g at step 0: the "
                 "system has blown up; check the deck's density (%g) and temperature (%g), the "
                 "cut-off and the time step",
                 (long long)step, kin * t + u, t, u, e0, m->prm.density, m->prm.temperature);
}

/** `step` added to the list of snapshot steps. */
static int snapshot_list_add(int64_t **snap, int *nsnap, int64_t step) {
  int64_t *grown = (int64_t *)realloc(*snap, (size_t)(*nsnap + 1) * sizeof(int64_t));
  if (!grown)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd", "snapshots",
                       "no memory for the list of %d snapshots", *nsnap + 1);
  *snap = grown;
  grown[(*nsnap)++] = step;
  return PORTA_SUCCESS;
}

/* The atoms at `step` as the snapshot /snapshots/step_STEP of the result file (its step added to
 * the series' list, which the XDMF description reads). */
static void snapshot(minimd *m, app_h5 *h5, int64_t step, int64_t **snap, int *nsnap) {
  char group[64];
  snprintf(group, sizeof group, "/snapshots/step_%lld", (long long)step);
  APP_CHECK(minimd_atoms_to_host(m));
  if (*nsnap == 0) APP_H5_CHECK(h5, app_h5_group(h5, "/snapshots"));
  APP_H5_CHECK(h5, minimd_write_atoms(m, h5, group));
  APP_CHECK(snapshot_list_add(snap, nsnap, step));
}

/* The kernels and messages of a step with the swaps beside the forces, once before the timed
   loop: their first launches cost half a millisecond on 4 GPUs. Nothing changes: the ghosts
   get the positions they have, and compute_force replaces the forces (the timers are zeroed
   after it). */
static void rehearse_step(minimd *m) {
  if (!m->comm.has_side || !m->neigh.split) return;
  forward_and_force(m, 0);
}

/* Step 0: the first list and forces (with energy), the timers zeroed, the first thermo line and
   the first snapshot. */
static void step_zero(minimd_run *r) {
  minimd *m = &r->m;
  reneighbor(m, 0, m->prm.sort_every > 0);
  if (r->rank == 0 && m->comm.swaps_note[0]) printf("# Ghost swaps: %s\n", m->comm.swaps_note);
  rehearse_step(m);
  compute_force(m, 1);
  memset(&m->times, 0, sizeof m->times);
  if (r->rank == 0) {
    printf("# Starting dynamics ...\n# Timestep T U P Time\n");
    fflush(stdout);
  }
  thermo(m, 0, 0.0);
  /* --dump-every N: snapshots at step 0 and every N steps; the last step is /final (each time
     once in the series: with no steps, step 0 is the last, /final alone; a snapshot of it too
     had put two grids at time 0 in the series, and ParaView's readers showed no points) */
  if (m->prm.dump_every > 0 && m->prm.nsteps > 0 && !r->cli.no_h5)
    snapshot(m, &r->h5, 0, &r->snap, &r->nsnap);
}

/* The timed loop of nsteps steps. */
static void loop(minimd_run *r) {
  minimd *m = &r->m;
  const minimd_params *p = &m->prm;
  const double t_start = porta_wtime();
  int64_t next_sort = r->sort_every > 0 ? r->sort_every : p->nsteps + 1;
  int final_pending = 0; /* the last step's final integration is left to the next initial one */
  for (int64_t n = 0; n < p->nsteps; ++n) {
    APP_CHECK(minimd_initial_integrate(m, final_pending)); /* "other": the remainder, no fence */
    const int eflag = p->thermo_every > 0 && (n + 1) % p->thermo_every == 0;
    if ((n + 1) % p->neigh_every && m->neigh.split) {
      forward_and_force(m, eflag);
    } else {
      if ((n + 1) % p->neigh_every) {
        TIMED(m, &m->times.comm, minimd_comm_forward(&m->comm, m->exec, m->atoms.x));
      } else {
        const int sort = n + 1 >= next_sort;
        if (sort) next_sort += r->sort_every;
        reneighbor(m, n + 1, sort);
      }
      compute_force(m, eflag);
    }
    const int dump =
        p->dump_every > 0 && (n + 1) % p->dump_every == 0 && n + 1 < p->nsteps && !r->cli.no_h5;
    final_pending = !eflag && !dump && n + 1 < p->nsteps; /* v is looked at otherwise */
    if (!final_pending) APP_CHECK(minimd_final_integrate(m));
    if (eflag) thermo(m, n + 1, porta_wtime() - t_start);
    if (dump) snapshot(m, &r->h5, n + 1, &r->snap, &r->nsnap);
  }
  APP_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  m->times.total = porta_wtime() - t_start;
}

void minimd_run_steps(minimd_run *r) {
  minimd *m = &r->m;
  const minimd_params *p = &m->prm;
  step_zero(r);
  APP_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  loop(r);
  /* a run that blew up after its last re-neighbouring is caught here, not reported as a result */
  APP_CHECK(minimd_atoms_to_host(m));
  APP_CHECK(minimd_comm_check_positions(&m->comm, &m->atoms, p->nsteps));
  m->times.other = m->times.total - m->times.force - m->times.neigh - m->times.comm;

  /* the reference recomputes the forces with energy and prints a last line when the run did
     not end on a thermo step (thermo every 0: the start and the end only); outside the timed
     loop, so its force time is not counted (it had made t_other negative on a GPU) */
  const minimd_times timed = m->times;
  compute_force(m, 1);
  if (p->thermo_every == 0 || p->nsteps % p->thermo_every != 0) thermo(m, p->nsteps, timed.total);
  m->times = timed;
  if (r->rank == 0) minimd_print_summary(stdout, m, r->threads);
}
