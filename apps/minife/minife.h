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
  int matvec_lanes;      /**< vector lanes per matrix row; -1: the back end's default */
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

/** The CSR matrix of the owned rows, local columns: owned nodes are 0..nrows-1 (z, y, x order),
 *  external nodes nrows.. (grouped by owning rank, each group in global node order). Columns
 *  of a row are in global node order, which does not depend on the decomposition. */
typedef struct minife_matrix {
  int64_t nrows, ncols, nnz;
  porta_view_i32 row_ptr; /**< nrows + 1 */
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
  int matvec_lanes;               /**< vector lanes per row in the matvec (0: a thread per row) */
  int matvec_team_size;           /**< threads per team of the vector-lane matvec (0: not yet) */
  int staged_team_size;           /**< threads per team of the staged matvec (0: not yet) */
  struct minife_cg_loop *cg_loop; /**< CG on the device, recorded at its first solve */
  /** several ranks on GPUs with NCCL: the sums and p's exchange the device loop queues
   *  (porta/exchange_device.h); NULL otherwise, with the reason in device_note */
  struct porta_device_comm *device;
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

/* ---- CG on the device (minife_cg_loop.c, kernels in minife_cg_kernels.c) ---- */

/** The device scalars (minife_loop_state.s). */
enum {
  MINIFE_LOOP_RTRANS, /**< r.r at the top of the iteration */
  MINIFE_LOOP_RRN,    /**< r.r after the update */
  MINIFE_LOOP_PAP,
  MINIFE_LOOP_BETA,
  MINIFE_LOOP_ALPHA,
  MINIFE_LOOP_NORMR,
  MINIFE_LOOP_BRK, /**< the breakdown tolerance */
  MINIFE_LOOP_NSCAL
};
/** The top of iteration k, written once (the device loop's kernel, the host loop's call):
 *  beta = r.r / the last r.r (0 at the first iteration), ||r||, the history. Returns k. */
PORTA_INLINE_FUNCTION int64_t minife_loop_top(double *s, int64_t *n, double *history) {
  const int64_t k = ++n[0];
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
/** How a device loop ended (minife_loop_state.n[2]). */
enum { MINIFE_LOOP_DONE = 0, MINIFE_LOOP_SUSPECT = 1 };

/** What the recorded CG kernels read and write. */
typedef struct minife_loop_state {
  porta_view_f64 s; /**< MINIFE_LOOP_NSCAL doubles */
  /** exact sums (--reproducible): MINIFE_LOOP_NSCAL accumulators, a reduction into scalar k
   *  lands in the k-th and its sum rounds it into s[k] (app_sum_finish_on); else empty */
  porta_view_u8 exact;
  porta_view_f64 wire;    /**< their scratch for the sum over the ranks */
  porta_view_f64 history; /**< ||r|| at the top of iteration k, [k] */
  porta_view_i64 n;       /**< [0] tops run, [1] iterations completed, [2] how it ended */
  int64_t max_iter;
  double tol;
} minife_loop_state;

/** One CG iteration written once (minife_cg.c's body): run now from the host, its scalars in
 *  host memory, or recorded into the device loop (minife_cg_loop.c), in device memory. */
typedef struct minife_pass {
  minife *m;
  porta_exec exec;             /**< the loop's space (recorded), the app's (now) */
  int recorded;                /**< recorded into the device loop, else run now */
  double *s;                   /**< the scalars (MINIFE_LOOP_*) */
  int64_t *n;                  /**< [0] tops run, [1] iterations completed, [2] status */
  double *history;             /**< ||r|| at the top of iteration k, [k] */
  const minife_loop_state *st; /**< recorded: the device state */
  void *host;                  /**< now: the host loop's state (minife_cg.c) */
  unsigned ended; /**< recorded: the scalars (bit slot) a reduction's end sums already */
} minife_pass;
/** A CG iteration over a pass. */
typedef int (*minife_pass_body)(minife_pass *p);

/** Recorded: where a reduction into scalar `slot` lands (its accumulator with exact sums). */
static inline app_sum_to minife_loop_sum_to(const minife_loop_state *st, int slot) {
  app_sum_to to;
  to.value = &st->s.data[slot];
  to.exact = st->exact.data ? (porta_xsum_f64_value *)(void *)st->exact.data + slot : NULL;
  return to;
}

/** The kernels of one CG iteration on `exec` (minife_cg_loop.c's body runs them with p's
 *  exchange and the global sums between): the top (beta, ||r||) and p = r + beta p; Ap = A p
 *  with p.Ap; alpha and x, r updated with r.r; the end (another iteration, or stop: done, or a
 *  suspected breakdown for the host). */
int minife_op_loop_top(minife *m, porta_exec exec, const minife_loop_state *st);
int minife_op_loop_matvec_dot(minife *m, porta_exec exec, const minife_loop_state *st);
int minife_op_loop_update(minife *m, porta_exec exec, const minife_loop_state *st);
int minife_op_loop_end(minife *m, porta_exec exec, const minife_loop_state *st);
/** Whether this solve runs on the device: default mode, a GPU (MINIFE_DEVICE_LOOP=1: the host
 *  back ends too; =0: never), one rank or several with a device communicator (NCCL) and
 *  without mv_overlap_comm_comp. */
int minife_cg_loop_wanted(const minife *m);
/** Several ranks (MPI_COMM_WORLD) whose CG may run on the device: the device communicator
 *  (NCCL) and p's exchange prepared for it. Collective; where NCCL cannot serve, every rank
 *  alike keeps the host loop and device_note says why. */
int minife_cg_loop_comm(minife *m);

/** What a device loop left for the host. */
typedef struct minife_loop_result {
  int tops;       /**< iterations begun (their ||r|| in the history) */
  int iterations; /**< iterations completed */
  int suspect;    /**< stopped at iteration `tops` on p.Ap below the breakdown tolerance */
  double pAp, rtrans, rr_next;
} minife_loop_result;

/** Iterations 1.. of CG on the device from r.r = rtrans (p, Ap, x, r as minife_cg leaves them
 *  before its first iteration); history[1..tops] filled. */
int minife_cg_loop_run(minife *m, minife_pass_body body, int max_iter, double tol, double rtrans,
                       double brkdown_tol, double *history, minife_loop_result *out);
/** In a recorded pass, several ranks: p's exchange queued on the pass's space (NCCL). */
int minife_pass_exchange_queued(minife_pass *p);
/** In a recorded pass: a scalar summed over the ranks in place, queued (NCCL; nothing on one
 *  rank). */
int minife_pass_sum_queued(minife_pass *p, int slot);
/** Recorded, before the reduction into scalar `slot`: its sum over the ranks as the reduction's
 *  end (porta/reduce_end.h: no kernel of its own) where the transport can (the peer one), and
 *  then minife_pass_sum_queued(p, slot) has nothing left to do. MINIFE_LOOP_END=0: never. */
int minife_pass_end_sum(minife_pass *p, int slot);
/** Release the device loop (minife_run_finish). */
void minife_cg_loop_free(minife *m);

/* The CG kernels (minife_cg_kernels.c): local sums only (slot 0 of app_sum). */
int minife_op_matvec_dot(minife *m, porta_view_f64 x, porta_view_f64 y, double *local);
int minife_op_matvec_rows(minife *m, porta_view_i32 rows, int64_t nrows, porta_view_f64 x,
                          porta_view_f64 y);
int minife_op_dot(minife *m, porta_view_f64 x, porta_view_f64 y, double *local);
int minife_op_waxpby(minife *m, double alpha, porta_view_f64 x, double beta, porta_view_f64 y,
                     porta_view_f64 w);
/** x += alpha p ; r -= alpha Ap ; *local_rr = local r.r */
int minife_op_update(minife *m, double alpha, double *local_rr);

PORTA_EXTERN_C_END

#endif /* MINIFE_H */
