/** @file minimd_eam.h
 *  Reading the EAM potential file into splines (minimd_eam_file.c). */
#ifndef MINIMD_EAM_H
#define MINIMD_EAM_H

#include <mpi.h>
#include <stddef.h>

#include "minimd.h"

PORTA_EXTERN_C_BEGIN

/** Rank 0 reads the funcfl file at `path`; every rank gets the spline tables in e. On failure
 *  (every rank) returns a Porta code; on rank 0 Porta's last error names the file, the line and the
 *  reason. */
int minimd_eam_read(minimd_eam *e, const char *path, MPI_Comm comm);

PORTA_EXTERN_C_END

#endif /* MINIMD_EAM_H */
