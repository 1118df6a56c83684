/** @file tea_internal.h
 *  Numerics-internal helpers of TeaLeaf (not part of the driver interface): kernel launchers
 *  in tea_kernels_*.c used by the solvers, boxes over the chunk's arrays. */
#ifndef TEA_INTERNAL_H
#define TEA_INTERNAL_H

#include <string.h>

#include "app_sum.h"
#include "tea_chunk.h"

PORTA_EXTERN_C_BEGIN

/** Array-index box [k0,k1) x [j0,j1). */
typedef struct tea_box {
  int64_t k0, k1, j0, j1;
} tea_box;

/** The interior grown by `extra` layers on faces that are not physical boundaries. */
static inline tea_box tea_box_interior(const tea_chunk *c, int extra) {
  tea_box b;
  b.k0 = c->halo - (c->phys_bottom ? 0 : extra);
  b.k1 = c->halo + c->ny + (c->phys_top ? 0 : extra);
  b.j0 = c->halo - (c->phys_left ? 0 : extra);
  b.j1 = c->halo + c->nx + (c->phys_right ? 0 : extra);
  return b;
}

static inline porta_mdrange_policy tea_policy(tea_box b) {
  return porta_mdrange2(b.k0, b.k1, b.j0, b.j1);
}

/** The interior split into its edge, `width` cells deep (the cells an exchange of that depth
 *  sends), updated by a ring kernel beside the main instance, and the inside. When k is the
 *  contiguous index (a GPU's layout) the inside is a box of whole lines of k (their first cell
 *  aligned, so a warp's loads stay in as few sectors as one kernel's) without the edge lines
 *  across them, whose kernel skips each line's edge cells by a test (tea_split_inside); else
 *  the inside box itself. Needs at least 2 width + 1 interior cells each way. */
typedef struct tea_split {
  int64_t k0, k1, j0, j1; /**< the interior box */
  int64_t width;          /**< the edge's depth */
  int k_contiguous;       /**< index k is the contiguous one (LayoutLeft, a GPU's) */
  int64_t ring;           /**< edge cells */
} tea_split;

/** *sp, a split update's geometry, set for c's interior and an edge `width` deep
 *  (tea_kernels_common.c); the failure of `label` where the interior has no inside. */
int tea_split_begin(tea_chunk *c, int width, const char *label, tea_split *sp);

/** *s's box, edge depth and edge cells for the box b (the layout is left to the caller). */
static inline void tea_split_box(tea_split *s, tea_box b, int64_t width) {
  s->k0 = b.k0;
  s->k1 = b.k1;
  s->j0 = b.j0;
  s->j1 = b.j1;
  s->width = width;
  s->ring = 2 * width * (b.j1 - b.j0) + 2 * width * (b.k1 - b.k0 - 2 * width);
}

/** CG's update at cell (k, j): u += alpha p; p = r + beta p. Every form of the step (its
 *  coefficients from the host or from the loop's memory, whole or split) runs this one. */
PORTA_FORCEINLINE_FUNCTION void tea_cg_up_cell(porta_view_f64 u, porta_view_f64 p, porta_view_f64 r,
                                               int64_t k, int64_t j, double alpha, double beta) {
  const double pk = PORTA_AT2(p, k, j);
  PORTA_AT2(u, k, j) += alpha * pk;
  PORTA_AT2(p, k, j) = PORTA_AT2(r, k, j) + beta * pk;
}

/** Edge cell i of the split (0 <= i < s->ring): the width bottom rows, the width top rows,
 *  then the width left and the width right columns between them. */
PORTA_INLINE_FUNCTION void tea_split_ring_cell(const tea_split *s, int64_t i, int64_t *k,
                                               int64_t *j) {
  const int64_t d = s->width, w = s->j1 - s->j0, h = s->k1 - s->k0 - 2 * d;
  if (i < 2 * d * w) {
    const int64_t row = i / w;
    *k = row < d ? s->k0 + row : s->k1 - 2 * d + row;
    *j = s->j0 + i % w;
  } else {
    const int64_t col = (i - 2 * d * w) / h;
    *k = s->k0 + d + (i - 2 * d * w) % h;
    *j = col < d ? s->j0 + col : s->j1 - 2 * d + col;
  }
}

/** Whether cell k of a whole k line of the inside box is inside the edge (the tested inside
 *  runs only when k is the contiguous index; a CPU's layout takes the box itself). */
PORTA_INLINE_FUNCTION int tea_split_inside(const tea_split *s, int64_t k) {
  return k >= s->k0 + s->width && k < s->k1 - s->width;
}

/** The box the inside's kernel runs over: whole lines of k when k is the contiguous index
 *  (the kernel tests each cell), else the inside box itself. */
static inline porta_mdrange_policy tea_split_inside_policy(const tea_split *s) {
  const int64_t d = s->width;
  if (!s->k_contiguous) return porta_mdrange2(s->k0 + d, s->k1 - d, s->j0 + d, s->j1 - d);
  return porta_mdrange2(s->k0, s->k1, s->j0 + d, s->j1 - d);
}

/** The split's kernels of the cell update CELL(a, k, j) for arguments ARGS_T (with a
 *  tea_split member sp): NAME_inside over the inside box (with the test), NAME_ring over the
 *  edge cells; WHOLE is the update's kernel over a box (CELL at every cell), for a CPU's inside
 *  (its lines need no alignment, and a test per cell would keep the compiler from vectorising).
 *  NAME_run(c, width, ring_exec, args) runs the split update: args->sp set for c's interior and
 *  an edge `width` deep, then the edge's kernel on ring_exec (labelled LABEL "_ring") and the
 *  inside's on c->exec (LABEL "_inside"), typed; neither is waited for. */
#define TEA_SPLIT_KERNELS(NAME, ARGS_T, CELL, LABEL, WHOLE)                                        \
  PORTA_MDFOR2(NAME##_inside, ARGS_T, a, k, j) {                                                   \
    if (tea_split_inside(&a->sp, k)) CELL(a, k, j);                                                \
  }                                                                                                \
  PORTA_FOR(NAME##_ring, ARGS_T, a, i) {                                                           \
    int64_t k, j;                                                                                  \
    tea_split_ring_cell(&a->sp, i, &k, &j);                                                        \
    CELL(a, k, j);                                                                                 \
  }                                                                                                \
  static inline PORTA_UNUSED int NAME##_run(tea_chunk *c, int width, porta_exec ring_exec,         \
                                            ARGS_T *args) {                                        \
    PORTA_CHECK(tea_split_begin(c, width, LABEL "_inside", &args->sp));                            \
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED(LABEL "_ring", NAME##_ring, ring_exec,                  \
                                           porta_range(0, args->sp.ring), args));                  \
    const porta_mdrange_policy inside = tea_split_inside_policy(&args->sp);                        \
    if (!args->sp.k_contiguous) /* j contiguous (a CPU's layout): the box itself, no test */       \
      return PORTA_PARALLEL_FOR_LABELED(LABEL "_inside", WHOLE, c->exec, inside, args);            \
    return PORTA_PARALLEL_FOR_LABELED(LABEL "_inside", NAME##_inside, c->exec, inside, args);      \
  }

#define TEA_F(c, id) ((c)->fields[(id)])

/** Whether the solver's scalars (alpha, beta), in memory of `exec`'s space, are read by their
 *  launchers and passed to the kernels as values: on a host back end, where the host can read
 *  them and the body that launches runs on every pass; on a GPU the kernels read them. */
static inline bool tea_scalars_by_value(porta_exec exec) {
  return porta_exec_query(exec).on_device == 0;
}

/** A kernel's scalar at `at`: *value (*kernel_at NULL) where tea_scalars_by_value, else
 *  *kernel_at = at for the kernel to read. */
static inline void tea_scalar_arg(porta_exec exec, const double *at, double *value,
                                  const double **kernel_at) {
  const bool by_value = tea_scalars_by_value(exec);
  *value = by_value ? *at : 0.0;
  *kernel_at = by_value ? NULL : at;
}

/** The scalar NAME of a kernel's arguments `a` (set by tea_scalar_arg: a->NAME, or *a->NAME_at).
 *  A device pass's code runs on a GPU, a host pass's on a host back end, so the pass picks the
 *  form: no test in the cell, and no load under a condition, which kept a host compiler from
 *  vectorising an exact sum's first pass (TeaLeaf's CG with jac_diag: 1.18x the plain time). */
#define TEA_KERNEL_SCALAR(a, NAME) (PORTA_DEVICE_PASS ? PORTA_LDG(*(a)->NAME##_at) : (a)->NAME)

/** One kernel per preconditioner from one cell function CELL(a, k, j, pc), pc a constant in
 *  each: NAME_none, NAME_diag and NAME_block over an mdrange (with their cell functions
 *  NAME_none_cell ..., for TEA_SPLIT_KERNELS), and NAME_launch(label, exec, policy, pc, args),
 *  which launches the one that pc names, typed. */
#define TEA_PRECON_KERNELS(NAME, ARGS_T, CELL)                                                     \
  TEA_PRECON_KERNEL_(NAME##_none, ARGS_T, CELL, TEA_PRECON_NONE)                                   \
  TEA_PRECON_KERNEL_(NAME##_diag, ARGS_T, CELL, TEA_PRECON_JAC_DIAG)                               \
  TEA_PRECON_KERNEL_(NAME##_block, ARGS_T, CELL, TEA_PRECON_JAC_BLOCK)                             \
  static inline PORTA_UNUSED int NAME##_launch(const char *label, porta_exec exec,                 \
                                               porta_mdrange_policy p, tea_precon pc,              \
                                               const ARGS_T *args) {                               \
    if (pc == TEA_PRECON_JAC_DIAG)                                                                 \
      return PORTA_PARALLEL_FOR_LABELED(label, NAME##_diag, exec, p, args);                        \
    if (pc == TEA_PRECON_JAC_BLOCK)                                                                \
      return PORTA_PARALLEL_FOR_LABELED(label, NAME##_block, exec, p, args);                       \
    return PORTA_PARALLEL_FOR_LABELED(label, NAME##_none, exec, p, args);                          \
  }
#define TEA_PRECON_KERNEL_(KNAME, ARGS_T, CELL, PC)                                                \
  PORTA_FORCEINLINE_FUNCTION void KNAME##_cell(const ARGS_T *a, int64_t k, int64_t j) {            \
    CELL(a, k, j, PC);                                                                             \
  }                                                                                                \
  PORTA_MDFOR2(KNAME, ARGS_T, a, k, j) { KNAME##_cell(a, k, j); }

/** The operator A of chunk c into a kernel family's argument struct `a` (members kx, ky, di,
 *  rx, ry: what TEA_AV reads): the face coefficients kx, ky, the diagonal di, rx and ry. */
#define TEA_ARGS_STENCIL(a, c)                                                                     \
  do {                                                                                             \
    (a).kx = TEA_F(c, TEA_FIELD_KX);                                                               \
    (a).ky = TEA_F(c, TEA_FIELD_KY);                                                               \
    (a).di = TEA_F(c, TEA_FIELD_DI);                                                               \
    (a).rx = (c)->rx;                                                                              \
    (a).ry = (c)->ry;                                                                              \
  } while (0)

/** TEA_ARGS_STENCIL and the diagonal preconditioner mi (member mi). */
#define TEA_ARGS_OPERATOR(a, c)                                                                    \
  do {                                                                                             \
    TEA_ARGS_STENCIL(a, c);                                                                        \
    (a).mi = TEA_F(c, TEA_FIELD_MI);                                                               \
  } while (0)

/** r = u0 - A u (the residual: tea_k_residual, Chebyshev's step). */
typedef struct {
  porta_view_f64 u, u0, r, kx, ky, di;
  double rx, ry;
} tea_resid_args;

static inline tea_resid_args tea_resid_make(const tea_chunk *c) {
  tea_resid_args a;
  a.u = TEA_F(c, TEA_FIELD_U);
  a.u0 = TEA_F(c, TEA_FIELD_U0);
  a.r = TEA_F(c, TEA_FIELD_R);
  TEA_ARGS_STENCIL(a, c);
  return a;
}

/** PORTA_SUCCESS where the chunk has its summation state c->sum (for a global sum into it:
 *  APP_SUM_REDUCE(NAME, c->sum, ...), summed over the ranks by the next tea_allreduce_sum), else
 *  the failure of `label`. */
static inline int tea_sum_check(const tea_chunk *c, const char *label) {
  if (!c->sum)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "tea_sum_check", label,
                       "the chunk has no summation state (tea_comm_create creates it)");
  return PORTA_SUCCESS;
}

/** (A v)(k,j) for kernel args `a` with members di, kx, ky, rx, ry (reference evaluation order). */
#define TEA_AV(a, v, k, j)                                                                         \
  (PORTA_AT2(a->di, k, j) * PORTA_AT2(v, k, j) -                                                   \
   a->ry * (PORTA_AT2(a->ky, k + 1, j) * PORTA_AT2(v, k + 1, j) +                                  \
            PORTA_AT2(a->ky, k, j) * PORTA_AT2(v, k - 1, j)) -                                     \
   a->rx * (PORTA_AT2(a->kx, k, j + 1) * PORTA_AT2(v, k, j + 1) +                                  \
            PORTA_AT2(a->kx, k, j) * PORTA_AT2(v, k, j - 1)))

/* ---- common kernels (tea_kernels_common.c) ---- */
int tea_k_init_common(tea_chunk *c, const tea_settings *s); /**< u,u0,Kx,Ky,Di,Mi,cp,bfp */
int tea_k_residual(tea_chunk *c, double *rr); /**< r = u0 - A u; *rr = local sum r^2 (NULL: skip) */
int tea_k_norm2(tea_chunk *c, int field, double *out); /**< local sum f^2 over the interior */
/** energy1 = u / density; *nonfinite = local count of cells where energy1 is not finite (a
 *  global-sum slot 0, for tea_allreduce_sum). */
int tea_k_finalise(tea_chunk *c, double *nonfinite);
/** z = M^-1 src over the interior (block: Thomas on 4-cell blocks; diag: Mi*src). */
int tea_k_precon(tea_chunk *c, tea_precon pc, int src, int dst);

/* ---- CG (tea_kernels_cg.c) ---- */
int tea_k_cg_init(tea_chunk *c, tea_precon pc, double *rro); /**< p = r or M r; rro = r.p */
/** u += alpha p; r -= alpha w (z = M r with a preconditioner) on `exec`, no sum (PPCG). The
 *  scalars alpha, beta of these kernels are in memory of `exec`'s space (tea_scalar_arg). */
int tea_k_ppcg_calc_ur(tea_chunk *c, tea_precon pc, const double *alpha);
/** w = A p, p.w into pw (Di recomputed from Kx, Ky: 32 B/cell); the sums into memory of
 *  `exec`'s space (app_sum.h), no wait. Every CG iteration's. */
int tea_k_cg_calc_w(tea_chunk *c, app_sum_to pw);
/** With a preconditioner: u += alpha p, r -= alpha w, z = M r, r.z into rrn, no wait. */
int tea_k_cg_calc_ur(tea_chunk *c, tea_precon pc, const double *alpha, app_sum_to rrn);
/** p = src + beta p on `exec`. */
int tea_k_cg_calc_p(tea_chunk *c, int src, const double *beta);
/** Lean unpreconditioned CG iteration, 96 B/cell (tea_kernels_cg.c): tea_k_cg_calc_w; r -=
 *  alpha w, r.r into rrn; then u += alpha p, p = r + beta p (tea_pass.h's tea_k_cg_calc_up). */
int tea_k_cg_calc_r(tea_chunk *c, const double *alpha, app_sum_to rrn);

/* ---- Chebyshev (tea_kernels_cheby.c) ---- */
int tea_k_cheby_init(tea_chunk *c, tea_precon pc, double theta);
int tea_k_cheby_iterate(tea_chunk *c, tea_precon pc, double alpha, double beta);

/* ---- PPCG (tea_kernels_ppcg.c) ---- */
/** The inner steps' kernels (the loop is tea_solve_ppcg.c's): sd = (z or r) / theta, rtemp = r,
 *  utemp = sd; rtemp -= A sd; sd = alpha sd + beta (M rtemp), utemp += sd, on the interior grown
 *  by `extra` cells, or split (tea_split) with the edge, c->halo deep, on `ring_exec`. The
 *  result ("z") is left in UTEMP. */
int tea_k_ppcg_init_sd(tea_chunk *c, tea_precon pc, double theta);
int tea_k_ppcg_inner_r(tea_chunk *c, int extra);
int tea_k_ppcg_inner_sd(tea_chunk *c, tea_precon pc, int extra, double alpha, double beta);
int tea_k_ppcg_inner_sd_split(tea_chunk *c, tea_precon pc, porta_exec ring_exec, double alpha,
                              double beta);
/** w = A p; rstore = r; p.w and utemp.r into pw_rz and the slot after it (value[0..1], or
 *  exact[0..1] in exact mode); and (r - rstore).utemp into rrn: memory of `exec`'s space, no
 *  wait. */
int tea_k_ppcg_calc_w_store(tea_chunk *c, app_sum_to pw_rz);
int tea_k_ppcg_calc_rrn(tea_chunk *c, app_sum_to rrn);
/** p = utemp; rro = r.p */
int tea_k_ppcg_init_p(tea_chunk *c, double *rro);

/* ---- Jacobi (tea_kernels_jacobi.c) ---- */
/** Which cells tea_k_jacobi_copy copies (un = u): the interior and the halo's first layer
 *  (all that the update reads), or either part alone. */
typedef enum tea_jacobi_copy {
  TEA_JACOBI_COPY_ALL,
  TEA_JACOBI_COPY_INTERIOR,
  TEA_JACOBI_COPY_FRAME
} tea_jacobi_copy;
/** un = u on the chunk's space. */
int tea_k_jacobi_copy(tea_chunk *c, tea_jacobi_copy part);
/** u = Jacobi update from un with its L1 norm sum|u - un| into err, memory of `exec`'s
 *  space, no wait. */
int tea_k_jacobi_update(tea_chunk *c, app_sum_to err);

/* ---- eigenvalues / coefficients (tea_eigen.c) ---- */
int tea_calc_eigenvalues(const double *cg_alphas, const double *cg_betas, int n, double *eigmin,
                         double *eigmax);
void tea_calc_ch_coefs(double *alphas, double *betas, double eigmin, double eigmax, double *theta,
                       int n);

PORTA_EXTERN_C_END

#endif /* TEA_INTERNAL_H */
