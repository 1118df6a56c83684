/** @file minimd_data.h
 *  Atoms from a LAMMPS data file (minimd_data_file.c). */
#ifndef MINIMD_DATA_H
#define MINIMD_DATA_H

#include <mpi.h>
#include <stddef.h>

#include "minimd.h"

PORTA_EXTERN_C_BEGIN

/** What a data file holds, on every rank: positions (in [0, prd)) and velocities by id - 1. */
typedef struct minimd_data {
  int64_t natoms;
  double prd[3], mass;
  int have_mass, have_velocities;
  double *x, *v;
} minimd_data;

/** Rank 0 reads `path`, every rank gets its contents. On failure (every rank) returns a Porta
 *  code; on rank 0 Porta's last error names the file, the line and the reason. */
int minimd_data_read(const char *path, minimd_data *out, MPI_Comm comm);

PORTA_EXTERN_C_END

#endif /* MINIMD_DATA_H */
