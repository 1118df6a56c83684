/** @file minife_params.h
 *  miniFE's command line (app_cli spec with the reference's keys). */
#ifndef MINIFE_PARAMS_H
#define MINIFE_PARAMS_H

#include "app_cli.h"
#include "minife.h"

PORTA_EXTERN_C_BEGIN

/** Largest accepted element count along one dimension (larger meshes fail the size checks
 *  anyway; this keeps every product of extents inside int64). */
#define MINIFE_MAX_EXTENT 1000000

void minife_params_defaults(minife_params *p);
/** The command-line spec; its options write into *p. */
app_cli_spec minife_cli_spec(minife_params *p);
/** ny defaults to nx and nz to ny (after parsing). */
void minife_params_finish(minife_params *p);

PORTA_EXTERN_C_END

#endif /* MINIFE_PARAMS_H */
