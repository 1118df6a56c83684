/** @file minimd_params.h
 *  miniMD's deck and command line (minimd_params.c). */
#ifndef MINIMD_PARAMS_H
#define MINIMD_PARAMS_H

#include <mpi.h>
#include <stddef.h>

#include "app_cli.h"
#include "minimd.h"

PORTA_EXTERN_C_BEGIN

#define MINIMD_MAX_CELLS 100000       /**< unit cells per dimension */
#define MINIMD_MAX_STEPS 1000000000   /**< timesteps, intervals */
#define MINIMD_MAX_ATOMS 100000000000 /**< atoms in all (global ids are 64-bit) */

/** What the command line sets (-1: not given). */
typedef struct minimd_cli {
  int64_t nsteps, size, n[3];
  int threads, ntypes, nbins, half_neigh, ghost_newton, sort;
  int units, force;
  char data_file[1024];
  int check_exchange, yaml_output, yaml_screen, dump_every;
} minimd_cli;

void minimd_cli_defaults(minimd_cli *c);
/** The command-line spec; the options' setters write into *c. */
app_cli_spec minimd_cli_spec(minimd_cli *c);

/** Read the deck at `path` (rank 0 reads, every rank of `comm` parses) and apply the command
 *  line. On failure returns a Porta code; Porta's last error says "file:line: reason". */
int minimd_params_read(minimd_params *p, const char *path, const minimd_cli *c, MPI_Comm comm);

PORTA_EXTERN_C_END

#endif /* MINIMD_PARAMS_H */
