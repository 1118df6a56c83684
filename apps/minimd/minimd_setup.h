/** @file minimd_setup.h
 *  miniMD's system set-up and host/device moves of the atoms (minimd_setup.c). */
#ifndef MINIMD_SETUP_H
#define MINIMD_SETUP_H

#include "minimd.h"

PORTA_EXTERN_C_BEGIN

/** Unit constants (the reference's) for `mass`; needs natoms and the box. */
void minimd_units_setup(minimd *m, double mass);
/** This rank's fcc sites, with the reference's per-site random velocities (host arrays). */
int minimd_create_atoms(minimd *m);
/** This rank's atoms of a data file (positions x and velocities v of n atoms by id). */
int minimd_create_atoms_from(minimd *m, const double *x, const double *v, int64_t n);
/** Grow the host arrays to hold n atoms (contents kept). */
int minimd_host_reserve(minimd_atoms *a, int64_t n);
/** Host arrays (owned + ghosts) to the execution space, growing its views as needed. */
int minimd_atoms_to_device(minimd *m);
/** Owned positions, velocities, types and ids back to the host arrays. */
int minimd_atoms_to_host(minimd *m);
/** Room for `need` atoms on the execution space (the views made at the first call), keeping
 *  every atom's position, velocity, type and id (forces, energies and EAM densities are
 *  recomputed after re-neighbouring). */
int minimd_atoms_reserve(minimd *m, int64_t need);
/** Reorder the owned atoms (host arrays) by bin, stably. */
int minimd_sort_host(minimd *m);
/** Remove the mean velocity and scale to the requested temperature. */
int minimd_velocity_create(minimd *m);
/** The current temperature in *t (a global sum). */
int minimd_temperature(minimd *m, double *t);

/** Neighbour bins within reason (minimd_bins.c): m->neigh.nbin (the reference's default or
 *  -b) reduced where a bin would be narrower than 1/8 of the cut-off or there would be more
 *  than 8 bins per atom (such bins only cost memory and time: -b 20000 had asked for
 *  terabytes, a data file's huge box for 2^31 bins); rank 0 says so. Needs the box, the
 *  cut-off and natoms. Returns whether anything changed. */
int minimd_bins_limit(minimd *m);
/** Bytes this rank's arrays and neighbour list need, at least, in the memory its kernels use,
 *  for a system of `density` in the box of m->comm with lists of `cutneigh` (`half`: a half
 *  list). */
double minimd_bytes_per_rank(const minimd *m, double density, double cutneigh, int half);
/** Bytes this rank needs on the host, at least, for a system of `density` in the box of
 *  m->comm (its process grid set) with neighbour lists of `cutneigh` (`half`: a half list):
 *  owned atoms, ghosts and the list, or only the host copies on a device (`on_device`). */
double minimd_host_bytes_per_rank(const minimd *m, double density, double cutneigh, int half,
                                  int on_device);

PORTA_EXTERN_C_END

#endif /* MINIMD_SETUP_H */
