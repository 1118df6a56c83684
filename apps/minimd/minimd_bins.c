/** @file minimd_bins.c
 *  How many neighbour bins a run uses, and what its atoms, ghosts and neighbour lists take on
 *  the host and the device: decided, and a run that cannot fit refused, before anything of that
 *  size is allocated (minimd_setup.h, minimd_run.h). */
#include <math.h>
#include <stdio.h>

#include "app_common.h"
#include "minimd_run.h"
#include "minimd_setup.h"

/* A bin narrower than this part of the cut-off only lengthens the stencil (each atom visits
   (2 cut / bin)^3 bins), and more bins than this many per atom are nearly all empty. */
#define MINIMD_BINS_PER_CUTOFF 8.0
#define MINIMD_BINS_PER_ATOM 8.0

int minimd_bins_limit(minimd *m) {
  const double cut = m->comm.cutneigh;
  const double *prd = m->comm.prd;
  const int64_t requested[3] = {m->neigh.nbin[0], m->neigh.nbin[1], m->neigh.nbin[2]};
  double nb[3], total = 1.0;
  for (int d = 0; d < 3; ++d) {
    nb[d] = (double)requested[d];
    const double most = ceil(MINIMD_BINS_PER_CUTOFF * prd[d] / cut);
    if (nb[d] > most) nb[d] = most;
    if (nb[d] < 1.0) nb[d] = 1.0;
    total *= nb[d];
  }
  const double most_total = fmax(512.0, MINIMD_BINS_PER_ATOM * (double)m->atoms.natoms);
  if (total > most_total) { /* fewer in every dimension, alike */
    const double f = cbrt(most_total / total);
    for (int d = 0; d < 3; ++d) nb[d] = fmax(1.0, floor(nb[d] * f));
  }
  int changed = 0;
  for (int d = 0; d < 3; ++d) {
    m->neigh.nbin[d] = (int)nb[d];
    changed |= m->neigh.nbin[d] != requested[d];
  }
  if (changed && m->comm.rank == 0)
    printf("# Neighbor bins %lld %lld %lld reduced to %d %d %d (a bin of at least 1/%g of the "
           "cut-off %g, at most %g bins per atom: more only cost memory and time)\n",
           (long long)requested[0], (long long)requested[1], (long long)requested[2],
           m->neigh.nbin[0], m->neigh.nbin[1], m->neigh.nbin[2], MINIMD_BINS_PER_CUTOFF, cut,
           MINIMD_BINS_PER_ATOM);
  return changed;
}

/** Atoms this rank owns and ghosts it keeps at `density` with a reach of `cutneigh`. */
static void atoms_per_rank(const minimd *m, double density, double cutneigh, double *owned,
                           double *ghosts) {
  const minimd_comm *c = &m->comm;
  double sub = 1.0, reach = 1.0;
  for (int d = 0; d < 3; ++d) {
    const double side = c->prd[d] / c->procgrid[d];
    sub *= side;
    reach *= side + 2.0 * cutneigh;
  }
  *owned = density * sub;
  *ghosts = density * (reach - sub);
}

double minimd_bytes_per_rank(const minimd *m, double density, double cutneigh, int half) {
  double owned, ghosts;
  atoms_per_rank(m, density, cutneigh, &owned, &ghosts);
  /* about 410 bytes an owned atom besides its list (positions, velocities, forces, ids, bins,
     sort buffers: measured at -s 20 and -s 40 on the host), about 100 a ghost, and the
     neighbour list: the atoms within the cut-off (half of them in a half list), 4 bytes each
     and 20 % room to grow. */
  const double neighbours =
      density * 4.1887902047863905 * pow(cutneigh, 3.0) /* 4 pi / 3 r^3 */ * (half ? 0.5 : 1.0);
  return owned * (410.0 + 1.2 * 4.0 * neighbours) + 100.0 * ghosts;
}

double minimd_host_bytes_per_rank(const minimd *m, double density, double cutneigh, int half,
                                  int on_device) {
  if (!on_device) return minimd_bytes_per_rank(m, density, cutneigh, half);
  /* A GPU rank creates its atoms on the host and keeps their host copies (x, v, id, type); the
     rest lives on the device (minimd_bytes_per_rank there). */
  double owned, ghosts;
  atoms_per_rank(m, density, cutneigh, &owned, &ghosts);
  return 60.0 * owned;
}

void minimd_check_sizes(const minimd *m, const double prd[3]) {
  const minimd_params *p = &m->prm;
  /* Host back ends: about 660 bytes per atom measured (positions, velocities, forces, ids,
     bins, a half list: -s 20 and -s 40, LJ; a full list takes more), so below that the run
     cannot fit; refuse it before allocating. A GPU rank still creates its atoms on the host
     and keeps their host copies (x, v, id, type: 60 bytes an atom), so those must fit too: it
     had spent minutes creating 3.2e10 atoms on the host before failing (-s 2000). The
     neighbour list grows with the density and the cube of the cut-off: a cut-off of 100 had
     run for minutes building lists of millions of atoms an atom, a density of 1e5 had crashed.
     On a GPU the arrays and lists are checked against the device's memory too. Collective:
     every rank takes part. */
  const double cut = p->cutforce + p->skin;
  const int on_device = porta_exec_query(m->exec).on_device;
  const double host = minimd_host_bytes_per_rank(m, p->density, cut, m->neigh.half, on_device);
  const double device = on_device ? minimd_bytes_per_rank(m, p->density, cut, m->neigh.half) : 0;
  char limit[4400];
  double share = app_node_memory_share(host, limit, sizeof limit), bytes = host;
  const char *where = "on the host";
  char dlimit[512];
  const double dshare = app_device_memory_share(device, m->exec, dlimit, sizeof dlimit);
  if (dshare > share || !isfinite(device)) {
    share = dshare;
    bytes = device;
    where = "on the device";
    snprintf(limit, sizeof limit, "%s", dlimit);
  }
  if (share > 1.0 || !isfinite(bytes))
    app_exit_all(APP_EXIT_BAD_INPUT,
                 "%s: %lld atoms at density %g with a neighbour cut-off of %g need at least "
                 "%.3g GB per rank %s (atoms, ghosts and neighbour lists), %.3g "
                 "times %s; use more nodes or a smaller system, density or cut-off",
                 p->input, (long long)m->atoms.natoms, p->density, cut, bytes / 1e9, where, share,
                 limit);
  /* A box less than half the neighbour cut-off wide: the ghosts are built from more than the
     two nearest periodic images of the box on each side (the reference's need = int(cut / L +
     1) > 2 on one rank), (1 + 2 cut / L)^3 - 1 ghosts an atom, each atom's list holding many
     images of every atom, itself included. The algorithm would follow (the reference builds as
     many layers as it takes), but no such deck is a simulation: density 1e5 at -s 4 (a box of
     0.14 against a cut-off of 2.8, 256 atoms) had built ghosts for 84 s before its atoms left
     the box at step 2. -s 1 (a box of 0.6 cut-offs, LJ and EAM) still runs as the reference. */
  for (int d = 0; d < 3; ++d)
    if (!(2.0 * prd[d] > cut))
      app_exit_all(APP_EXIT_BAD_INPUT,
                   "%s: the box %g x %g x %g (density %g, %lld atoms) is less than half the "
                   "neighbour cut-off %g (force cut-off %g + skin %g) wide in %c: its ghosts "
                   "would take %.0f periodic images of the box on each side, each atom meeting "
                   "its own images; use a larger system (-s), a smaller density or a smaller "
                   "cut-off",
                   p->input, prd[0], prd[1], prd[2], p->density, (long long)m->atoms.natoms, cut,
                   p->cutforce, p->skin, "xyz"[d], floor(fmin(cut / prd[d], 1e15)) + 1.0);
  for (int d = 0; d < 3; ++d)
    if (cut * m->comm.procgrid[d] / prd[d] + 1 > 64)
      app_exit_all(APP_EXIT_BAD_INPUT,
                   "%s: the neighbour cut-off %g is more than 63 sub-domains (%g) "
                   "wide; the density or the cut-off makes no sense for this box",
                   p->input, cut, prd[d] / m->comm.procgrid[d]);
}
