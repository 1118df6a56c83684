/** @file minife_setup.h
 *  The host side of miniFE's setup: decomposition, column map and exchange plan. */
#ifndef MINIFE_SETUP_H
#define MINIFE_SETUP_H

#include <mpi.h>

#include "minife.h"

PORTA_EXTERN_C_BEGIN

/** This rank's share of the mesh (boxes of all ranks, load imbalance, rows); the imbalance
 *  in elements as the reference reports it. Fails when a rank would get no element. */
int minife_mesh_create(minife_mesh *mesh, const minife_params *prm, int rank, int nranks,
                       float *largest_imbalance, float *std_dev);
void minife_mesh_free(minife_mesh *mesh);

/** The map from the extended node box (one layer around the owned nodes) to local columns
 *  (-1 outside the mesh), on the execution space; and, on more than one rank, the exchange
 *  plan that fills the external entries of p. */
int minife_columns(minife_mesh *mesh, MPI_Comm comm, porta_exec exec, porta_view_i32 *column_map,
                   struct porta_exchange **plan, int64_t *nexternal, int64_t *exchange_bytes);

PORTA_EXTERN_C_END

#endif /* MINIFE_SETUP_H */
