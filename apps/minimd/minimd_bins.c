/** @file minimd_bins.c
 *  How many neighbour bins a run uses, and what its atoms, ghosts and neighbour lists take on
 *  the host: both decided before anything of that size is allocated (minimd_setup.h). */
#include <math.h>
#include <stdio.h>

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
