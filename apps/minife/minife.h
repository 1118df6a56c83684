/** @file minife.h
 *  miniFE on Porta: the state shared by the driver's files.
 *
 *  The problem (Mantevo miniFE 2.0, ref variant): steady heat conduction on the unit cube, a
 *  brick of nx x ny x nz trilinear hex8 elements, one unknown per node, assembled into a CSR
 *  matrix and solved with unpreconditioned CG. docs/minife.md maps it onto Porta. */
#ifndef MINIFE_H
#define MINIFE_H

#include <math.h>
#include <stdint.h>

#include "app_scalars.h"
#include "app_sum.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Run parameters: the reference's keys plus Porta's. */
typedef struct minife_params {
  int64_t nx, ny, nz;    /**< elements per dimension (ny defaults to nx, nz to ny) */
  int have_ny, have_nz;  /**< given on the command line */
  double load_imbalance; /**< percent, as the reference */
  int verify_solution;   /**< 1: the reference's check at the centre points */
  int mv_overlap;        /**< mv_overlap_comm_comp: halo exchange behind interior rows */
  int source_free;       /**< Q = 0: the analytic solution is exact; error over every node */
  int matvec_slice;      /**< rows a slice of the matrix's storage, 1 or 32; -1: the back end's */
  char name[128];        /**< added to the YAML file's name */
} minife_params;

/** A box of elements [lo, hi) per dimension (0 = x, 1 = y, 2 = z). */
typedef struct minife_box {
  int64_t lo[3], hi[3];
} minife_box;

/** This rank's share of the mesh. */
typedef struct minife_mesh {
  int rank, nranks;
  int64_t elems[3];     /**< global elements nx, ny, nz */
  int64_t nodes[3];     /**< global nodes nx+1, ny+1, nz+1 */
  minife_box *boxes;    /**< every rank's element box */
  minife_box box;       /**< this rank's */
  int64_t nlo[3], n[3]; /**< owned nodes: [nlo, nlo + n) per dimension */
  int64_t nrows;        /**< owned nodes = n[0] n[1] n[2] */
  int64_t first_row;    /**< global number of the first owned row */
  int64_t global_rows;
} minife_mesh;

/** Which node box a rank owns: [lo, hi) of its elements plus the upper face when it is the
 *  global one. */
void minife_owned_nodes(const minife_box *b, const int64_t elems[3], int64_t nlo[3], int64_t n[3]);

/** Rows a slice of the matrix's storage on a GPU: 2^5, a warp (matvec_slice=32). */
#define MINIFE_SLICE_SHIFT 5

/** The matrix of the owned rows, local columns: owned nodes are 0..nrows-1 (z, y, x order),
 *  external nodes nrows.. (grouped by owning rank, each group in global node order). Columns
 *  of a row are in global node order, which does not depend on the decomposition.
 *  Stored sliced (SELL): rows in slices of 2^slice_shift, a slice's entries column by column,
 *  each column as long as its longest row; entry j of row r at k0 + j step of its
 *  minife_row_span (minife_kernels.h).
 *  A slice of one row (the host's) is CSR; of 32 (a GPU's), a warp's rows read their j-th
 *  entries from one run of memory, and each row is still summed by one thread in CSR order. */
typedef struct minife_matrix {
  int64_t nrows, ncols, nnz;
  int64_t stored;           /**< entries stored: nnz and the slices' padding */
  int slice_shift;          /**< rows a slice: 2^slice_shift */
  porta_view_i32 row_ptr;   /**< nrows + 1: the rows' lengths summed */
  porta_view_i32 slice_ptr; /**< each slice's first entry, nslices + 1 (row_ptr itself for CSR) */
  porta_view_i32 cols;
  porta_view_f64 vals;
  porta_view_i32 interior_rows, boundary_rows; /**< rows without / with external columns */
  int64_t ninterior, nboundary;
} minife_matrix;

/** Setup (structure, assembly, boundary conditions) and solve state of one rank. */
typedef struct minife {
  minife_params prm;
  minife_mesh mesh;
  minife_matrix A;
  porta_view_f64 b, x, r, p, Ap; /**< p has ncols entries (owned + external) */
  porta_exec exec;
  app_sum *sum;
  struct porta_exchange *halo;    /**< external columns of p */
  double source;                  /**< Q */
  app_scalars cg_scalars;         /**< CG's doubles and integers (minife_cg.c) */
  porta_view_f64 cg_history;      /**< ||r|| at the top of iteration k, [k] */
  struct minife_cg_loop *cg_loop; /**< CG on the device, recorded at its first solve */
  /** several ranks on GPUs with NCCL: the sums and p's exchange the device loop queues
   *  (porta/exchange_device.h); NULL otherwise, with the reason in device_note */
  struct porta_device_comm *device;
  int queueing;   /**< while the device loop records: exchanges and sums queued on it */
  unsigned ended; /**< the scalars (bit slot) whose sum over the ranks a reduction's end does */
  char device_note[256];
} minife;

/* ---- setup (minife_structure.c, minife_assemble.c, minife_dirichlet.c) ---- */

/** Row lengths, row pointers and the columns of every owned row (needs the external map). */
int minife_structure(minife *m, porta_view_i32 column_map);
/** Hex8 element matrices and sources, summed into A and b (colored: deterministic). */
int minife_assemble(minife *m);
/** The reference's Dirichlet pass for `value` (0: faces x=0, y=0/1, z=0/1; 1: face x=1). */
int minife_dirichlet(minife *m, double value);
/** Split rows into interior (no external column) and boundary ones (overlap mode). */
int minife_split_rows(minife *m);

/* ---- CG (minife_cg.c) ---- */

/** What the solve did, for the report. */
typedef struct minife_cg_result {
  int iterations;
  int breakdown;
  double initial_residual, final_residual;
  double *history; /**< ||r|| at the top of every iteration: [0] initial, [k] iteration k */
  int nhistory;
  double t_waxpby, t_dot, t_matvec, t_total;
  double t_warmup; /**< the kernels' first launches, before the solve's clock starts */
  double t_loop;   /**< iterations run on the device (minife_cg_loop.c): one time for all */
} minife_cg_result;

int minife_cg(minife *m, int max_iter, double tol, minife_cg_result *res, int print);

/* ---- one CG iteration (minife_cg.c's body, kernels in minife_cg_kernels.c) ---- */

/** The solver's doubles (m->cg_scalars), in the execution space's memory. */
enum {
  MINIFE_LOOP_RTRANS, /**< r.r at the top of the iteration */
  MINIFE_LOOP_RRN,    /**< r.r after the update */
  MINIFE_LOOP_PAP,
  MINIFE_LOOP_BETA,
  MINIFE_LOOP_ALPHA,
  MINIFE_LOOP_NORMR,
  MINIFE_LOOP_BRK,  /**< the breakdown tolerance */
  MINIFE_LOOP_APAP, /**< Ap.Ap and p.p: the breakdown test's */
  MINIFE_LOOP_PP,
  MINIFE_LOOP_NSCAL
};
/** ... and its integers. */
enum {
  MINIFE_LOOP_TOPS,       /**< iterations begun */
  MINIFE_LOOP_ITERATIONS, /**< iterations completed */
  MINIFE_LOOP_STATUS,     /**< MINIFE_LOOP_GOING, or _SUSPECT: p.Ap below the tolerance */
  MINIFE_LOOP_NINTS
};
enum { MINIFE_LOOP_GOING = 0, MINIFE_LOOP_SUSPECT = 1 };

/** The top of iteration k, written once (the device loop's kernel, the host loop's call):
 *  beta = r.r / the last r.r (0 at the first iteration), ||r||, the history. Returns k. */
PORTA_INLINE_FUNCTION int64_t minife_loop_top(double *s, int64_t *n, double *history) {
  const int64_t k = ++n[MINIFE_LOOP_TOPS];
  if (k == 1) {
    s[MINIFE_LOOP_BETA] = 0.0;
  } else {
    const double oldrtrans = s[MINIFE_LOOP_RTRANS];
    const double rtrans = s[MINIFE_LOOP_RRN]; /* r.r, summed by the last update */
    s[MINIFE_LOOP_RTRANS] = rtrans;
    s[MINIFE_LOOP_BETA] = rtrans / oldrtrans;
  }
  const double normr = sqrt(s[MINIFE_LOOP_RTRANS]);
  s[MINIFE_LOOP_NORMR] = normr;
  history[k] = normr;
  return k;
}

/** What the scalar kernels of an iteration read and write (memory of the pass's space). */
typedef struct minife_ctl {
  porta_view_f64 s, history; /**< the doubles; ||r|| at the top of iteration k, [k] */
  porta_view_i64 n;          /**< the integers */
  int64_t max_iter;
  double tol;
  porta_loop_handle loop; /**< recorded: the deciding loop's (zeroed from the host) */
} minife_ctl;

/** One CG iteration's pass: the same body whether the host drives it or a device loop has
 *  recorded it (minife_cg_loop.c); only the space and the loop's handle differ. */
typedef struct minife_pass {
  minife *m;
  porta_exec exec; /**< the loop's space while it records, else the app's */
  minife_ctl ctl;
  double *t; /**< time in the matvec, the sums, the vector updates (t[0..2]) */
} minife_pass;
/** A CG iteration over a pass. */
typedef int (*minife_pass_body)(minife_pass *p);

/** The kernels of one iteration on the pass's space: the top (beta, ||r||) and p = r + beta p;
 *  Ap = A p with p.Ap into `to`; alpha, then x += alpha p, r -= alpha Ap with r.r into `to`;
 *  the end (another iteration while k < max_iter and ||r|| > tol, or a stop on p.Ap below the
 *  breakdown tolerance, alpha 0, for the host's test). */
int minife_op_top(minife *m, porta_exec exec, const minife_ctl *c);
int minife_op_matvec_dot(minife *m, porta_exec exec, app_sum_to to);
int minife_op_update(minife *m, porta_exec exec, const minife_ctl *c, app_sum_to to);
int minife_op_end(minife *m, porta_exec exec, const minife_ctl *c);
/** y = A x over a list of rows (the overlap's interior or boundary rows). */
int minife_op_matvec_rows(minife *m, porta_view_i32 rows, int64_t nrows, porta_view_f64 x,
                          porta_view_f64 y);
/** The sum of x.y into `to`; w = alpha x + beta y (the reference's waxpby). */
int minife_op_dot(minife *m, porta_exec exec, porta_view_f64 x, porta_view_f64 y, app_sum_to to);
int minife_op_waxpby(minife *m, double alpha, porta_view_f64 x, double beta, porta_view_f64 y,
                     porta_view_f64 w);

/* ---- CG's iterations as a device loop (minife_cg_loop.c) ---- */

/** Whether this solve records its iterations: default mode, a GPU (MINIFE_DEVICE_LOOP=1: the
 *  host back ends too; =0: never), one rank or several with a device communicator (NCCL) and
 *  without mv_overlap_comm_comp. */
int minife_cg_loop_wanted(const minife *m);
/** Several ranks (MPI_COMM_WORLD) whose CG may run on the device: the device communicator
 *  (NCCL) and p's exchange prepared for it. Collective; where NCCL cannot serve, every rank
 *  alike keeps the host loop and device_note says why. */
int minife_cg_loop_comm(minife *m);
/** Run `body` as a device loop (recorded at the first call, again when max_iter or tol
 *  change) from the state in m->cg_scalars, until it stops; asynchronous. */
int minife_cg_loop_run(minife *m, minife_pass_body body, const minife_ctl *ctl);
/** Release the device loop and the solver's scalars (minife_run_finish). */
void minife_cg_loop_free(minife *m);

PORTA_EXTERN_C_END

#endif /* MINIFE_H */
