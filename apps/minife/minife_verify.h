/** @file minife_verify.h
 *  The computed solution against the reference's analytic solution. */
#ifndef MINIFE_VERIFY_H
#define MINIFE_VERIFY_H

#include <mpi.h>

#include "minife.h"

PORTA_EXTERN_C_BEGIN

/** Nodes with x up to this are "far" from the edges of the face x = 1, where the boundary
 *  data jump (minife_verify.c says why that matters). */
#define MINIFE_FAR_X 0.75

typedef struct minife_verify_result {
  double max_error;          /**< over the checked nodes of all ranks */
  double max_error_far;      /**< over those with x <= MINIFE_FAR_X (away from the jumps) */
  double at[3];              /**< where it is */
  double computed, analytic; /**< the two values there */
  int64_t points;            /**< nodes checked (all ranks) */
} minife_verify_result;

/** Collective. `whole_domain`: every node; else the reference's centre points. */
int minife_verify(const minife_mesh *mesh, porta_view_f64 x, int whole_domain, MPI_Comm comm,
                  minife_verify_result *res);

PORTA_EXTERN_C_END

#endif /* MINIFE_VERIFY_H */
