/** @file porta/exchange_decomp.h
 *  Cartesian domain decomposition (2D and 3D) as the reference codes do it: the rank grid
 *  comes from MPI_Dims_create, cells are split as evenly as possible and the first
 *  `n mod parts` ranks along a dimension get one extra cell. Ranks are numbered with the
 *  first dimension (x) fastest, like TeaLeaf's chunk numbering. Non-periodic: a rank on the
 *  physical boundary has MPI_PROC_NULL as its neighbour there.
 */
#ifndef PORTA_EXCHANGE_DECOMP_H
#define PORTA_EXCHANGE_DECOMP_H

#include <mpi.h>
#include <stdint.h>

#include "porta/macros.h"

/** Marks a function of the exchange library's interface: exported from a shared
 *  libporta_exchange, which is built with every other symbol hidden. */
#ifndef PORTA_EXCHANGE_API
#define PORTA_EXCHANGE_API PORTA_API
#endif

PORTA_EXTERN_C_BEGIN

#define PORTA_DECOMP_MAX_DIMS 3
#define PORTA_LOW 0
#define PORTA_HIGH 1

/** Part `index` of `parts` of n cells: [*offset, *offset + *count); the first n % parts
 *  parts get one extra cell. */
PORTA_EXCHANGE_API void porta_split(int64_t n, int parts, int index, int64_t *offset,
                                    int64_t *count);

/** One rank's share of a Cartesian grid of `ndims` dimensions (dimension 0 is x). */
typedef struct porta_decomp {
  MPI_Comm comm;
  int rank, nranks, ndims;
  int dims[PORTA_DECOMP_MAX_DIMS];         /**< ranks along each dimension */
  int coords[PORTA_DECOMP_MAX_DIMS];       /**< this rank's position in the rank grid */
  int64_t global[PORTA_DECOMP_MAX_DIMS];   /**< global cells */
  int64_t offset[PORTA_DECOMP_MAX_DIMS];   /**< first global cell (0-based) of this rank */
  int64_t local[PORTA_DECOMP_MAX_DIMS];    /**< cells owned by this rank */
  int neighbour[PORTA_DECOMP_MAX_DIMS][2]; /**< [dim][PORTA_LOW/PORTA_HIGH] rank or MPI_PROC_NULL */
} porta_decomp;

/** Rank grid like MPI_Dims_create(nranks, ndims, dims) with dims zeroed first; returns a Porta
 *  code (PORTA_ERROR_INVALID_ARGUMENT for bad arguments). */
PORTA_EXCHANGE_API int porta_dims_create(int nranks, int ndims, int *dims);

/** The rank grid for `global` cells: of all grids of `nranks` ranks that give every rank at
 *  least one cell, the one with the fewest cells on the faces between ranks (MPI_Dims_create's
 *  grid where it is as good, so square domains keep it). MPI_Dims_create alone ignores the
 *  cells: 3 ranks on 2 x 100 cells get 3 x 1, which cannot work, where 1 x 3 fits. Fails when
 *  no grid fits. */
PORTA_EXCHANGE_API int porta_dims_for_cells(int nranks, int ndims, const int64_t *global,
                                            int *dims);

/** Decompose `global` cells (ndims entries) over the ranks of `comm`. `dims` may be NULL
 *  (porta_dims_for_cells) or give the rank grid. Fails (PORTA_ERROR_INVALID_ARGUMENT, the reason
 *  in porta_last_error_message()) when a rank would get no cells. */
PORTA_EXCHANGE_API int porta_decomp_create(MPI_Comm comm, int ndims, const int64_t *global,
                                           const int *dims, porta_decomp *d);
/** Same for an explicit rank (no communicator needed; for tests and for writers). */
PORTA_EXCHANGE_API int porta_decomp_for_rank(int rank, int nranks, int ndims, const int64_t *global,
                                             const int *dims, porta_decomp *d);

/** Non-zero when the rank's `side` (PORTA_LOW/PORTA_HIGH) of dimension `dim` is the physical
 *  boundary of the domain. */
static inline int porta_decomp_is_boundary(const porta_decomp *d, int dim, int side) {
  return d->neighbour[dim][side] == MPI_PROC_NULL;
}

PORTA_EXTERN_C_END

#endif /* PORTA_EXCHANGE_DECOMP_H */
