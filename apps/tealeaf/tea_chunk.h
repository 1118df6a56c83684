/** @file tea_chunk.h
 *  TeaLeaf's rank-local state (the fields, the geometry, the solver's host coefficients) and
 *  the interface between the numerics (the kernels, the solver drivers, tea_step.c; they need
 *  only Porta and libm) and the run (tea_run.c: deck, MPI, report, HDF5).
 *
 *  ---------------------------------------------------------------------------------------
 *  Index convention (all rank-2 fields):
 *    view extents (ny + 2*halo, nx + 2*halo); element PORTA_AT2(v, k, j), k = y index (first),
 *    j = x index (second, contiguous on the host). Array index = local cell index + halo, so
 *    the interior is k in [halo, halo+ny), j in [halo, halo+nx); halo cells lie on either side.
 *    Local cell (j,k) (0-based, interior) is global cell (x_off + j, y_off + k) (0-based).
 *    Face fields: KX(k, j) is the face between cells j-1 and j (the left face of cell j);
 *    KY(k, j) is the face between cells k-1 and k (the bottom face of cell k).
 *  1-D geometry views (extent n + 2*halo + 1 for vertices, n + 2*halo for cells), same offset:
 *    vertexx(j) = xmin + dx*(x_off + j - halo) is the left vertex of array column j,
 *    cellx(j) = vertexx(j) + dx/2; likewise y.
 *
 *  The run's sequence (tea_run.c):
 *    tea_settings s; tea_settings_defaults(&s); <parse deck into s>
 *    tea_chunk c; memset(&c, 0, sizeof c);
 *    <fill: gx_cells, gy_cells, nx, ny, x_off, y_off, halo (= s.halo_depth), xmin, ymin, dx, dy,
 *     phys_left/right/bottom/top, exec, comm>
 *    tea_chunk_alloc(&c);
 *    tea_generate(&c, &s);              // states -> density, energy0; energy1 = energy0;
 *                                       // u = energy1*density; halos exchanged
 *    tea_field_summary(&c, &sum);       // step 0
 *    loop: tea_step_ex(&c, &s, &st);    // one implicit step (dt = s.initial_timestep)
 *          time += dt; summaries ...
 *    tea_chunk_free(&c);
 */
#ifndef TEA_CHUNK_H
#define TEA_CHUNK_H

#include <stdbool.h>

#include "porta/porta.h"
#include "tea_settings.h"

PORTA_EXTERN_C_BEGIN

/** Field ids for halo exchange (the reference's 11). Values index tea_chunk.fields[]. */
enum {
  TEA_FIELD_DENSITY = 0,
  TEA_FIELD_ENERGY0 = 1,
  TEA_FIELD_ENERGY1 = 2,
  TEA_FIELD_U = 3,
  TEA_FIELD_P = 4,
  TEA_FIELD_SD = 5,
  TEA_FIELD_R = 6,
  TEA_FIELD_Z = 7,
  TEA_FIELD_KX = 8,
  TEA_FIELD_KY = 9,
  TEA_FIELD_DI = 10,
  TEA_NUM_EXCHANGE_FIELDS = 11,
  /* work fields that are never exchanged (ids for tea_field() only) */
  TEA_FIELD_U0 = 11,
  TEA_FIELD_W = 12,
  TEA_FIELD_MI = 13,
  TEA_FIELD_CP = 14,     /**< jac_block Thomas factor c' */
  TEA_FIELD_BFP = 15,    /**< jac_block Thomas factor 1/(b - a c') */
  TEA_FIELD_RTEMP = 16,  /**< PPCG */
  TEA_FIELD_UTEMP = 17,  /**< PPCG */
  TEA_FIELD_RSTORE = 18, /**< PPCG */
  TEA_FIELD_UN = 19,     /**< Jacobi: previous iterate */
  TEA_NUM_FIELDS = 20
};

struct tea_comm; /**< the driver's communication state (opaque to the numerics) */
struct app_sum;  /**< global sums, plain or exact (apps/common/app_sum.h) */

/** The rank-local chunk. */
typedef struct tea_chunk {
  /* ---- filled by the driver before tea_chunk_alloc ---- */
  int gx_cells, gy_cells; /**< global grid */
  int nx, ny;             /**< this rank's interior cells */
  int x_off, y_off;       /**< global 0-based index of this rank's first interior cell */
  int halo;               /**< allocated halo width = settings halo_depth (>= 1) */
  double xmin, ymin;      /**< global domain origin */
  double dx, dy;          /**< uniform cell size */
  bool phys_left, phys_right, phys_bottom, phys_top; /**< face is on the physical boundary */
  porta_exec exec;       /**< where kernels run (porta_exec_default() if zeroed... set it) */
  struct tea_comm *comm; /**< owned by the driver */

  /* ---- allocated by tea_chunk_alloc ---- */
  porta_view_f64 fields[TEA_NUM_FIELDS]; /**< rank 2, (ny+2h, nx+2h) */
  porta_view_f64 vertexx, vertexy;       /**< rank 1, n+2h+1 */
  porta_view_f64 cellx, celly;           /**< rank 1, n+2h */

  /* ---- solver state kept across steps (numerics only) ---- */
  double rx, ry;         /**< dt/dx^2, dt/dy^2 of the current step */
  bool faces_zeroed;     /**< Kx, Ky are 0 on every physical face (no reflective_boundary): the
                              operator weighs a physical halo cell by exactly 0 */
  bool have_eigs;        /**< Chebyshev/PPCG eigenvalue estimate done (SAVEd in the ref) */
  double eigmin, eigmax; /**< widened estimate */
  double *cg_alphas, *cg_betas; /**< host history of CG coefficients (grown with the iterations) */
  int cg_hist_cap;
  double *ch_alphas, *ch_betas; /**< host Chebyshev coefficients (grown as used) */
  int ch_cap;
  struct tea_loop *loop; /**< the solver on the device, recorded at its first solve (tea_pass.h) */

  /* ---- reproducible mode (filled by tea_chunk_setup) ---- */
  bool reproducible; /**< global sums are exact (porta_xsum_f64): bitwise independent of the
                          rank count, thread count and back end */
  /** The run's global sums (created by tea_comm_create, exact when `reproducible`): every
   *  reduction kernel of the numerics is an APP_SUM_KERNEL_MD2 run by APP_SUM_REDUCE into
   *  it (slots 0, 1, ...), and the next tea_allreduce_sum(c, values, nslots) sums the slots
   *  over the ranks (exactly in reproducible mode). */
  struct app_sum *sum;
} tea_chunk;

/** Per-step solver figures. `iterations` is what the reference prints (one less than executed
 *  when converged, max_iters when not); `true_iterations` is what actually ran. */
typedef struct tea_step_stats {
  int iterations;       /**< reference's printed "Iteration count" */
  int true_iterations;  /**< outer iterations executed */
  int inner_iterations; /**< PPCG inner steps in total ("PPCG Iteration count") */
  int cheby_iterations; /**< Chebyshev iterations (of true_iterations) */
  int cg_iterations;    /**< CG iterations (of true_iterations) */
  bool converged;
  double error; /**< reference's "Conduction error": sqrt(|error|)/initial_residual */
  double initial_residual;
  double exact_error;   /**< tl_check_result: ||u0 - A u|| / initial_residual after the solve
                             (the reference's "EXACT error"; else 0) */
  double last_residual; /**< sqrt(|error|) of the last iteration (verbose_on only) */
} tea_step_stats;

/** The field summary (reference field_summary, global sums). */
typedef struct tea_summary {
  double volume, mass, density, energy, u;
} tea_summary;

/* ---- implemented by the DRIVER (apps/tealeaf/tea_comm.c) ---- */

/** Exchange the halos of the listed field ids with MPI neighbours, `depth` layers (<= halo),
 *  then call tea_reflect_boundaries for the physical faces. `fields` may hold ANY id in
 *  [0, TEA_NUM_FIELDS) (PPCG exchanges TEA_FIELD_RTEMP too): resolve them with tea_field().
 *  (Sentence kept for reference:) then call tea_reflect_boundaries(c, fields, nfields, depth) for
 * the physical faces. */
int tea_halo_exchange(tea_chunk *c, const int *fields, int nfields, int depth);
/** The MPI part of tea_halo_exchange alone: the physical faces' halos keep their values. */
int tea_halo_exchange_neighbours(tea_chunk *c, const int *fields, int nfields, int depth);
/** The instance beside c->exec that tea_halo_exchange_beside packs and unpacks on (a GPU run
 *  with neighbours, high priority): 1 and *side, or 0 when there is none. TEA_HALO_BESIDE=0
 *  turns it off (for comparisons), =1 on on host back ends too, where the "instance beside"
 *  is instance 0 and nothing overlaps (for tests of the split on machines without a GPU). */
int tea_halo_beside(const tea_chunk *c, porta_exec *side);
/** Whether the chunk has MPI neighbours (more than one rank): its halos need an exchange. */
bool tea_has_neighbours(const tea_chunk *c);
/** tea_halo_beside for an edge `depth` cells deep: every rank has 2 depth + 1 interior cells
 *  each way (a choice all ranks make alike). */
int tea_halo_beside_depth(const tea_chunk *c, int depth, porta_exec *side);
/** tea_halo_exchange_neighbours on that instance, so that it runs beside a kernel queued on
 *  c->exec (which must not write what is sent or received). The kernels that made the values
 *  to send must be on the side instance or complete; on return the halos are in place (the
 *  side instance fenced) and kernels queued on c->exec from then on can read them. */
int tea_halo_exchange_beside(tea_chunk *c, const int *fields, int nfields, int depth);
/** The first ghost layer of `field`'s faces, for a kernel that reads no corner (no
 *  reflection): queued on `exec` while a loop records (porta_halo2d_queue_faces), else the
 *  whole layer from the host (on the instance beside when `exec` is it). */
int tea_halo_exchange_faces(tea_chunk *c, porta_exec exec, int field);
/** Whether a pass can fork p's exchange onto the instance beside (`*side`): from the host as
 *  tea_halo_beside, or while a loop records on GPUs whose exchanges are queued, every rank with
 *  3 x 3 cells at least, unless TEA_LOOP_OVERLAP=0. */
int tea_side(const tea_chunk *c, porta_exec *side);
/** The device communicator the loops queue their sums and exchanges on (NULL: none). */
const struct porta_device_comm *tea_loop_device_comm(const tea_chunk *c);
/** How the device loop's sums and exchanges travel between ranks: "gpu-peer", "nccl" or "none"
 *  (porta_device_comm_transport). */
const char *tea_loop_transport(const tea_chunk *c);
/** Why several ranks on GPUs cannot queue, for the report; "" where they can, or did not try
 *  (one rank, TEA_DEVICE_LOOP=0). */
const char *tea_loop_queue_note(const tea_chunk *c);
/** While a loop records (`on`), tea_halo_exchange_neighbours queues its exchange on c->exec
 *  (PPCG's inner steps are the host loop's code, run in the body with c->exec the loop's
 *  space) and there is no instance beside (tea_halo_beside says 0). */
void tea_set_queueing(tea_chunk *c, bool on);
/** Sum `n` values over all ranks in place (app_sum_allreduce on c->sum). In reproducible mode
 *  (c->reproducible) the values are the rounded local sums the reduction kernels just left in
 *  c->sum's slots 0..n-1 (else an error): the exact accumulators are merged over the ranks and
 *  rounded once, so the result is bitwise rank-count independent. */
int tea_allreduce_sum(tea_chunk *c, double *values, int n);

/* ---- implemented by the NUMERICS ---- */

/** The view of field `id` (0 <= id < TEA_NUM_FIELDS), or NULL. */
porta_view_f64 *tea_field(tea_chunk *c, int id);
/** Allocate every field and the geometry views and fill the coordinates. */
int tea_chunk_alloc(tea_chunk *c);
/** Release everything tea_chunk_alloc allocated (safe on a zeroed chunk). */
void tea_chunk_free(tea_chunk *c);
/** Mirror-copy the listed fields into the halo layers (1..depth) on physical faces
 *  (ghost(-1-i) = interior(i)); corners covered by doing x then y over the full extent. */
int tea_reflect_boundaries(tea_chunk *c, const int *fields, int nfields, int depth);
/** States -> density, energy0; energy1 = energy0; u = energy1*density; halo exchange. */
int tea_generate(tea_chunk *c, const tea_settings *s);
/** Global field summary (calls tea_allreduce_sum once). */
int tea_field_summary(tea_chunk *c, tea_summary *out);
/** One implicit time step (reference tea_leaf). */
int tea_step_ex(tea_chunk *c, const tea_settings *s, tea_step_stats *stats);

PORTA_EXTERN_C_END

#endif /* TEA_CHUNK_H */
