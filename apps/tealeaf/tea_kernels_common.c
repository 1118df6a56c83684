/** @file tea_kernels_common.c
 *  Set-up kernels of one step (reference tea_leaf_common_init_kernel and friends):
 *  u = u0 = energy1*density, face coefficients Kx/Ky, Di, the preconditioners, the residual,
 *  norms and the finalise. Kernel file (C++17 compatible).
 *
 *  The operator, with array indices (k = y, j = x):
 *    (A v)(k,j) = Di v(k,j) - ry (Ky(k+1,j) v(k+1,j) + Ky(k,j) v(k-1,j))
 *                           - rx (Kx(k,j+1) v(k,j+1) + Kx(k,j) v(k,j-1))
 *  written in the reference's evaluation order so that the numbers match it. */
#include "tea_pass.h"

/** u = u0 = energy1 * density. */
typedef struct {
  porta_view_f64 density, energy, u, u0;
} tea_init_u_args;

PORTA_MDFOR2(tea_k_init_u, tea_init_u_args, a, k, j) {
  double v = PORTA_AT2(a->energy, k, j) * PORTA_AT2(a->density, k, j);
  PORTA_AT2(a->u, k, j) = v;
  PORTA_AT2(a->u0, k, j) = v;
}

/** The operator's set-up: the conduction value w, the face coefficients and the diagonal. */
typedef struct {
  porta_view_f64 density, w, kx, ky, di, mi;
  double rx, ry;
  /* Kx is 0 for j <= kx_zero_to and j >= kx_zero_from, Ky for k <= ky_zero_to and
   * k >= ky_zero_from: the physical faces (unless reflective); out of range where none */
  int64_t kx_zero_to, kx_zero_from, ky_zero_to, ky_zero_from;
} tea_operator_args;

/* conduction value, whole array (w is a temporary): density or its reciprocal */
PORTA_MDFOR2(tea_k_init_w, tea_operator_args, a, k, j) {
  PORTA_AT2(a->w, k, j) = PORTA_AT2(a->density, k, j);
}
PORTA_MDFOR2(tea_k_init_w_recip, tea_operator_args, a, k, j) {
  PORTA_AT2(a->w, k, j) = 1.0 / PORTA_AT2(a->density, k, j);
}

/* Kx, Ky over [1, N) x [1, N), zero on the physical faces it is told */
PORTA_MDFOR2(tea_k_init_kxky, tea_operator_args, a, k, j) {
  double w = PORTA_AT2(a->w, k, j), wl = PORTA_AT2(a->w, k, j - 1), wb = PORTA_AT2(a->w, k - 1, j);
  double kx = (wl + w) / (2.0 * wl * w);
  double ky = (wb + w) / (2.0 * wb * w);
  if (j <= a->kx_zero_to || j >= a->kx_zero_from) kx = 0.0;
  if (k <= a->ky_zero_to || k >= a->ky_zero_from) ky = 0.0;
  PORTA_AT2(a->kx, k, j) = kx;
  PORTA_AT2(a->ky, k, j) = ky;
}

/** Di over [1, N-1); with_mi: also Mi = 1/Di (jac_diag). */
PORTA_FORCEINLINE_FUNCTION void tea_init_di_cell(const tea_operator_args *a, int64_t k, int64_t j,
                                                 int with_mi) {
  double di = (1.0 + a->ry * (PORTA_AT2(a->ky, k + 1, j) + PORTA_AT2(a->ky, k, j)) +
               a->rx * (PORTA_AT2(a->kx, k, j + 1) + PORTA_AT2(a->kx, k, j)));
  PORTA_AT2(a->di, k, j) = di;
  if (with_mi) PORTA_AT2(a->mi, k, j) = di != 0.0 ? 1.0 / di : 0.0;
}

PORTA_MDFOR2(tea_k_init_di, tea_operator_args, a, k, j) { tea_init_di_cell(a, k, j, 0); }
PORTA_MDFOR2(tea_k_init_di_mi, tea_operator_args, a, k, j) { tea_init_di_cell(a, k, j, 1); }

/* ---- block Jacobi (tridiagonal in y on blocks of TEA_JAC_BLOCK rows from the chunk's first row,
   like the reference's; with exact sums the chunks start on a block's row, tea_decompose) ---- */

typedef struct {
  porta_view_f64 ky, di, cp, bfp, src, dst;
  double ry;
  int64_t h, ny;
} tea_block_args;

/* I0 = block index b, I1 = array column j */
PORTA_MDFOR2(tea_k_block_init, tea_block_args, a, b, j) {
  int64_t bottom = a->h + b * TEA_JAC_BLOCK;
  int64_t top = bottom + TEA_JAC_BLOCK - 1;
  if (top > a->h + a->ny - 1) top = a->h + a->ny - 1;
  int64_t k = bottom;
  PORTA_AT2(a->cp, k, j) = (-PORTA_AT2(a->ky, k + 1, j) * a->ry) / PORTA_AT2(a->di, k, j);
  for (k = bottom + 1; k <= top; ++k) {
    double bfp = 1.0 / (PORTA_AT2(a->di, k, j) -
                        (-PORTA_AT2(a->ky, k, j) * a->ry) * PORTA_AT2(a->cp, k - 1, j));
    PORTA_AT2(a->bfp, k, j) = bfp;
    PORTA_AT2(a->cp, k, j) = (-PORTA_AT2(a->ky, k + 1, j) * a->ry) * bfp;
  }
}

PORTA_MDFOR2(tea_k_block_solve, tea_block_args, a, b, j) {
  double dp[TEA_JAC_BLOCK], z[TEA_JAC_BLOCK];
  int64_t bottom = a->h + b * TEA_JAC_BLOCK;
  int64_t top = bottom + TEA_JAC_BLOCK - 1;
  if (top > a->h + a->ny - 1) top = a->h + a->ny - 1;
  int n = (int)(top - bottom + 1);
  dp[0] = PORTA_AT2(a->src, bottom, j) / PORTA_AT2(a->di, bottom, j);
  for (int i = 1; i < n; ++i) {
    int64_t k = bottom + i;
    dp[i] = (PORTA_AT2(a->src, k, j) - (-PORTA_AT2(a->ky, k, j) * a->ry) * dp[i - 1]) *
            PORTA_AT2(a->bfp, k, j);
  }
  z[n - 1] = dp[n - 1];
  for (int i = n - 2; i >= 0; --i) z[i] = dp[i] - PORTA_AT2(a->cp, bottom + i, j) * z[i + 1];
  for (int i = 0; i < n; ++i) PORTA_AT2(a->dst, bottom + i, j) = z[i];
}

static tea_block_args tea_block_make(tea_chunk *c, int src, int dst) {
  tea_block_args a;
  a.ky = TEA_F(c, TEA_FIELD_KY);
  a.di = TEA_F(c, TEA_FIELD_DI);
  a.cp = TEA_F(c, TEA_FIELD_CP);
  a.bfp = TEA_F(c, TEA_FIELD_BFP);
  a.src = TEA_F(c, src);
  a.dst = TEA_F(c, dst);
  a.ry = c->ry;
  a.h = c->halo;
  a.ny = c->ny;
  return a;
}

static porta_mdrange_policy tea_block_policy(tea_chunk *c) {
  int64_t nb = (c->ny + TEA_JAC_BLOCK - 1) / TEA_JAC_BLOCK;
  return porta_mdrange2(0, nb, c->halo, c->halo + c->nx);
}

typedef struct {
  porta_view_f64 src, dst, mi;
} tea_diag_args;

PORTA_MDFOR2(tea_k_diag_solve, tea_diag_args, a, k, j) {
  PORTA_AT2(a->dst, k, j) = PORTA_AT2(a->mi, k, j) * PORTA_AT2(a->src, k, j);
}

int tea_k_precon(tea_chunk *c, tea_precon pc, int src, int dst) {
  const porta_exec exec = c->exec;
  if (pc == TEA_PRECON_JAC_BLOCK) {
    tea_block_args a = tea_block_make(c, src, dst);
    return PORTA_PARALLEL_FOR_LABELED("tea_block_solve", tea_k_block_solve, exec,
                                      tea_block_policy(c), &a);
  }
  if (pc == TEA_PRECON_JAC_DIAG) {
    tea_diag_args a;
    a.src = TEA_F(c, src);
    a.dst = TEA_F(c, dst);
    a.mi = TEA_F(c, TEA_FIELD_MI);
    return PORTA_PARALLEL_FOR_LABELED("tea_diag_solve", tea_k_diag_solve, exec,
                                      tea_policy(tea_box_interior(c, 0)), &a);
  }
  return PORTA_SUCCESS;
}

/** The operator's arguments; faces of Kx and Ky zeroed where the chunk touches a physical face
 *  and the boundary is not reflective. */
static tea_operator_args tea_operator_make(tea_chunk *c, const tea_settings *s) {
  tea_operator_args a;
  a.density = TEA_F(c, TEA_FIELD_DENSITY);
  a.w = TEA_F(c, TEA_FIELD_W);
  TEA_ARGS_OPERATOR(a, c);
  const int zero = !s->reflective_boundary;
  c->faces_zeroed = zero;
  const int64_t h = c->halo, none_below = -1, none_above = INT64_MAX;
  a.kx_zero_to = zero && c->phys_left ? h : none_below;
  a.kx_zero_from = zero && c->phys_right ? h + c->nx : none_above;
  a.ky_zero_to = zero && c->phys_bottom ? h : none_below;
  a.ky_zero_from = zero && c->phys_top ? h + c->ny : none_above;
  return a;
}

int tea_k_init_common(tea_chunk *c, const tea_settings *s) {
  const int64_t N0 = c->ny + 2 * c->halo, N1 = c->nx + 2 * c->halo;
  double dt = s->initial_timestep;
  c->rx = dt / (c->dx * c->dx);
  c->ry = dt / (c->dy * c->dy);
  tea_init_u_args u;
  u.density = TEA_F(c, TEA_FIELD_DENSITY);
  u.energy = TEA_F(c, TEA_FIELD_ENERGY1);
  u.u = TEA_F(c, TEA_FIELD_U);
  u.u0 = TEA_F(c, TEA_FIELD_U0);
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_init_u", tea_k_init_u, c->exec,
                                         tea_policy(tea_box_interior(c, 0)), &u));
  const tea_operator_args a = tea_operator_make(c, s);
  const porta_mdrange_policy all = porta_mdrange2(0, N0, 0, N1);
  if (s->coefficient == TEA_COEF_RECIP_CONDUCTIVITY)
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_init_w", tea_k_init_w_recip, c->exec, all, &a));
  else
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_init_w", tea_k_init_w, c->exec, all, &a));
  PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_init_kxky", tea_k_init_kxky, c->exec,
                                         porta_mdrange2(1, N0, 1, N1), &a));
  const porta_mdrange_policy inner = porta_mdrange2(1, N0 - 1, 1, N1 - 1);
  if (s->preconditioner == TEA_PRECON_JAC_DIAG)
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_init_di", tea_k_init_di_mi, c->exec, inner, &a));
  else
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_init_di", tea_k_init_di, c->exec, inner, &a));
  if (s->preconditioner == TEA_PRECON_JAC_BLOCK) {
    tea_block_args b = tea_block_make(c, TEA_FIELD_R, TEA_FIELD_Z);
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("tea_block_init", tea_k_block_init, c->exec,
                                           tea_block_policy(c), &b));
  }
  return PORTA_SUCCESS;
}

/* ---- residual, norms, finalise ---- */

/* r = u0 - A u; rr += r^2 */
APP_SUM_KERNEL_MD2(tea_k_residual_r, tea_resid_args, a, k, j) {
  double smvp = TEA_AV(a, a->u, k, j);
  double r = PORTA_AT2(a->u0, k, j) - smvp;
  PORTA_AT2(a->r, k, j) = r;
  return r * r;
}

int tea_k_residual(tea_chunk *c, double *rr) {
  tea_resid_args a = tea_resid_make(c);
  porta_mdrange_policy in = tea_policy(tea_box_interior(c, 0));
  const char *label = "tea_residual";
  if (!rr) return APP_SUM_RUN(tea_k_residual_r, label, c->exec, in, &a); /* the sum is not used */
  PORTA_CHECK(tea_sum_check(c, label));
  return APP_SUM_REDUCE(tea_k_residual_r, c->sum, label, c->exec, in, &a, 0, rr);
}

/** The norm of one field. */
typedef struct {
  porta_view_f64 x;
} tea_norm_args;

APP_SUM_KERNEL_MD2(tea_k_norm2_r, tea_norm_args, a, k, j) {
  double v = PORTA_AT2(a->x, k, j);
  return v * v;
}

int tea_k_norm2(tea_chunk *c, int field, double *out) {
  tea_norm_args a;
  a.x = TEA_F(c, field);
  *out = 0.0;
  PORTA_CHECK(tea_sum_check(c, "tea_norm2"));
  return APP_SUM_REDUCE(tea_k_norm2_r, c->sum, "tea_norm2", c->exec,
                        tea_policy(tea_box_interior(c, 0)), &a, 0, out);
}

/** The finalise: energy1 = u / density. */
typedef struct {
  porta_view_f64 energy1, u, density;
} tea_finalise_args;

/* counts the cells where the result is not finite (e - e is 0 only for a finite e) */
APP_SUM_KERNEL_MD2(tea_k_finalise_f, tea_finalise_args, a, k, j) {
  double e = PORTA_AT2(a->u, k, j) / PORTA_AT2(a->density, k, j);
  PORTA_AT2(a->energy1, k, j) = e;
  return e - e == 0.0 ? 0.0 : 1.0;
}

int tea_k_finalise(tea_chunk *c, double *nonfinite) {
  tea_finalise_args a;
  a.energy1 = TEA_F(c, TEA_FIELD_ENERGY1);
  a.u = TEA_F(c, TEA_FIELD_U);
  a.density = TEA_F(c, TEA_FIELD_DENSITY);
  PORTA_CHECK(tea_sum_check(c, "tea_finalise"));
  return APP_SUM_REDUCE(tea_k_finalise_f, c->sum, "tea_finalise", c->exec,
                        tea_policy(tea_box_interior(c, 0)), &a, 0, nonfinite);
}

int tea_split_begin(tea_chunk *c, int width, const char *label, tea_split *sp) {
  if (width < 1 || c->nx < 2 * width + 1 || c->ny < 2 * width + 1)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, label, "interior",
                       "%d x %d cells have no inside to split off an edge %d deep", c->nx, c->ny,
                       width);
  tea_split_box(sp, tea_box_interior(c, 0), width);
  sp->k_contiguous = porta_stride(TEA_F(c, TEA_FIELD_U), 0) == 1; /* every field's layout */
  return PORTA_SUCCESS;
}

PORTA_FOR(tea_k_loop_start_f, tea_loop_ctl_args, a, i) { tea_loop_begin(&a->st, &a->start); }

int tea_k_loop_start(tea_chunk *c, const tea_loop_state *st, const tea_loop_start *start) {
  tea_loop_ctl_args a = tea_loop_ctl_of(st, NULL);
  a.start = *start;
  return PORTA_PARALLEL_FOR_LABELED("tea_loop_start", tea_k_loop_start_f, c->exec,
                                    porta_range(0, 1), &a);
}
