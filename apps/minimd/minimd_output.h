/** @file minimd_output.h
 *  miniMD's reports (minimd_output.c). */
#ifndef MINIMD_OUTPUT_H
#define MINIMD_OUTPUT_H

#include <stdio.h>

#include "app_h5.h"
#include "app_summary.h"
#include "minimd.h"

PORTA_EXTERN_C_BEGIN

/** The reference's settings block (rank 0). */
void minimd_print_settings(FILE *out, const minimd *m, int threads, int sort_every);
/** The reference's Performance Summary (rank 0). */
void minimd_print_summary(FILE *out, const minimd *m, int threads);
/** miniMD-DATE.yaml in the working directory (rank 0); `screen`: on stdout too. */
int minimd_write_yaml(const minimd *m, int threads, int sort_every, int screen);
/** The dataset of the atoms' vertex indices 0 .. natoms - 1 (the series' Polyvertex topology). */
#define MINIMD_VERTICES_PATH "/mesh/vertices"

/** Parameters, thermo table, timings, the vertex indices and the final atoms (collective). The
 *  host arrays must hold the owned atoms' current positions and velocities. */
int minimd_write_h5(const minimd *m, app_h5 *h, int threads);
/** The owned atoms (host arrays) in global-id order into group/x, v, type (collective). */
int minimd_write_atoms(const minimd *m, app_h5 *h, const char *group);
/** The run summary: size, steps, loop time, atom-steps/s, and the self-check (the total energy
 *  per atom, 1.5 k_B T + U, may not move by more than 1% between the first and the last thermo
 *  line: velocity Verlet conserves it to far better than that unless the run blew up). */
void minimd_summary(const minimd *m, double program_time, app_summary *s);
/** minimd.xmf: the snapshots at `steps[0..nsnap)` and the final state (the last step), as a
 *  time series whose times are step x dt. */
int minimd_write_xmf(const minimd *m, const char *xmf, const char *h5name, const int64_t *steps,
                     int nsnap);

PORTA_EXTERN_C_END

#endif /* MINIMD_OUTPUT_H */
