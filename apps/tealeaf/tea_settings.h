/** @file tea_settings.h
 *  TeaLeaf run settings: every keyword of the reference input deck (TeaLeaf_ref v1.403) with
 *  the default its *code* uses. The deck parser (tea_deck.c) fills this struct after
 *  tea_settings_defaults(); the numerics only read it. */
#ifndef TEA_SETTINGS_H
#define TEA_SETTINGS_H

#include <stdbool.h>

#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

/** States: at most this many (state 1 = background). */
#define TEA_MAX_STATES 16

/** Geometry of a state (`geometry=` keyword). The reference spells the circle `circle`
 *  (UoB-HPC/TeaLeaf: `circular`; the parser may accept both). */
typedef enum tea_geometry {
  TEA_GEOM_RECTANGLE = 0,
  TEA_GEOM_CIRCLE = 1,
  TEA_GEOM_POINT = 2
} tea_geometry;

/** Solver (`tl_use_jacobi`, `tl_use_cg`, `tl_use_chebyshev`, `tl_use_ppcg`; last one wins). */
typedef enum tea_solver {
  TEA_SOLVER_JACOBI = 0, /**< default when no solver keyword is given */
  TEA_SOLVER_CG = 1,
  TEA_SOLVER_CHEBY = 2,
  TEA_SOLVER_PPCG = 3
} tea_solver;

/** `tl_preconditioner_type none|jac_diag|jac_block`. */
typedef enum tea_precon {
  TEA_PRECON_NONE = 0,
  TEA_PRECON_JAC_DIAG = 1,
  TEA_PRECON_JAC_BLOCK = 2 /**< not allowed with halo_depth > 1 (parser rejects it) */
} tea_precon;

/** Rows in y of the block preconditioner's tridiagonal blocks (the reference's). */
#define TEA_JAC_BLOCK 4

/** `tl_coefficient_density` (default) / `tl_coefficient_inverse_density`. */
typedef enum tea_coefficient {
  TEA_COEF_CONDUCTIVITY = 1,      /**< w = density (keyword tl_coefficient_density) */
  TEA_COEF_RECIP_CONDUCTIVITY = 2 /**< w = 1/density (tl_coefficient_inverse_density) */
} tea_coefficient;

/** One `state n ...` line. Index n-1 in tea_settings.states. */
typedef struct tea_state {
  bool defined; /**< set by the parser; defining a state twice is an error */
  double density;
  double energy;
  tea_geometry geometry;         /**< ignored for state 1 (background) */
  double xmin, ymin, xmax, ymax; /**< rectangle box; circle/point: centre = (xmin, ymin) */
  double radius;                 /**< circle only */
} tea_state;

/** All deck settings. Defaults (tea_settings_defaults) are the reference code's. */
typedef struct tea_settings {
  /* ---- states ---- */
  int num_states; /**< highest state number defined (states[0..num_states-1]) */
  tea_state states[TEA_MAX_STATES];

  /* ---- grid ---- */
  int x_cells, y_cells; /**< 10, 10 */
  double xmin, ymin;    /**< 0, 0 */
  double xmax, ymax;    /**< 100, 100 (README says 10) */

  /* ---- time stepping ---- */
  double initial_timestep; /**< 0.1 (dt is constant) */
  double end_time;         /**< 10.0 */
  int end_step;            /**< "huge": INT_MAX */
  int summary_frequency;   /**< 10; 0 = only at the end */
  int visit_frequency;     /**< 0 = never */

  /* ---- solver ---- */
  tea_solver solver;           /**< JACOBI */
  int max_iters;               /**< tl_max_iters: 1000 */
  double eps;                  /**< tl_eps: 1e-10, relative to the initial residual */
  tea_precon preconditioner;   /**< tl_preconditioner_type: NONE */
  int ch_cg_presteps;          /**< tl_ch_cg_presteps: 25 (README says 30) */
  double ch_cg_epslim;         /**< tl_ch_cg_epslim: 1.0, absolute sqrt(rr) (README says 1e-5) */
  double ch_cg_errswitch;      /**< tl_ch_cg_errswitch: documented, NOT parsed by the reference;
                                    kept for completeness, unused (0) */
  int ppcg_inner_steps;        /**< tl_ppcg_inner_steps: -1 = not in the deck, meaning
                                    4*int(sqrt(sqrt(x_cells*y_cells))) (tea_ppcg_inner_steps()) */
  bool check_result;           /**< tl_check_result: off */
  tea_coefficient coefficient; /**< CONDUCTIVITY */
  int halo_depth;              /**< 1; >= 1 */
  bool reflective_boundary;    /**< off */

  /* ---- self check / diagnostics ---- */
  int test_problem; /**< 0 = none; 1..6 */
  bool profiler_on; /**< off */
  bool verbose_on;  /**< off: print residual every iteration */

  /* ---- tiling (accepted for compatibility; Porta does not tile) ---- */
  int tiles_per_task;       /**< 0 = "number of threads" */
  int tiles_per_problem;    /**< 0 = unset */
  int sub_tiles_per_tile;   /**< 1 */
  bool use_fortran_kernels; /**< on; no-op */

  /* ---- Porta extension (not a reference keyword) ---- */
  bool reproducible; /**< set by the driver (CLI): bitwise rank/thread-count independent sums */
} tea_settings;

/** Fill `s` with the reference code's defaults (no states defined). */
void tea_settings_defaults(tea_settings *s);

/** Inner steps PPCG uses: s->ppcg_inner_steps if > 0, else 4*int(sqrt(sqrt(x_cells*y_cells))). */
int tea_ppcg_inner_steps(const tea_settings *s);

/** Name of a solver / preconditioner, for reports ("cg", "jac_diag", ...). */
const char *tea_solver_name(tea_solver s);
const char *tea_precon_name(tea_precon p);

PORTA_EXTERN_C_END

#endif /* TEA_SETTINGS_H */
