/** @file minife_cg_kernels.c
 *  The kernels of miniFE's CG (minife_cg.c's iteration runs them): the top of an iteration
 *  (beta, ||r||) with p = r + beta p, the matvec (all rows, fused with the sum of p.Ap, or a
 *  list of rows), dot, waxpby, alpha and the x / r update fused with the sum of r.r, the end.
 *  Sums land in memory of the launch's space (app_sum_to); the caller adds them over the ranks.
 *  Scalars are read from there too, so the same kernels run from the host and recorded.
 *  Kernel file (C11 and C++17). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "minife_kernels.h"

/* One argument struct per kernel family, each holding what its kernels read and write. */

/** y = A x (A in minife_matrix's sliced storage), over every row or the rows of a list. */
typedef struct {
  minife_entries at;
  porta_view_i32 cols, rows;
  porta_view_f64 vals, x, y;
} matvec_args;

/** The sum of x.y. */
typedef struct {
  porta_view_f64 x, y;
} dot_args;

/** w = alpha x + beta y. */
typedef struct {
  porta_view_f64 x, y, w;
  double alpha, beta;
} waxpby_args;

/** x += alpha p; r -= alpha Ap; the sum of r.r (alpha in memory of the launch's space). */
typedef struct {
  porta_view_f64 x, p, r, Ap;
  const double *alpha;
} update_args;

/** Entries a row's sum on a GPU loads before it adds them: a third of an interior row. */
#ifndef MINIFE_ROW_LOADS
#define MINIFE_ROW_LOADS 9
#endif

/* The sum of vals[k] x[cols[k]] over a row's span (k0, k0 + step, ... < k1), in that order. On a
   GPU, MINIFE_ROW_LOADS entries are loaded before they are added, so that a thread keeps that many
   loads in flight: one at a time, a row's dependent loads (column, then x) left the GPU
   waiting (the matvec with p.Ap at n = 200 on an H200, the slice still a variable: 1.07 ms, 3
   at a time 1.00, 9 at a time 0.82, 27 1.31). On a CPU that batching took 17 % longer than the
   plain loop. */
PORTA_FORCEINLINE_FUNCTION double minife_entries_times(const matvec_args *a, minife_span sp) {
  const int64_t k0 = sp.k0, k1 = sp.k1, step = sp.step;
  double sum = 0.0;
#if PORTA_DEVICE_PASS
  for (int64_t k = k0; k < k1; k += MINIFE_ROW_LOADS * step) {
    double v[MINIFE_ROW_LOADS], xv[MINIFE_ROW_LOADS];
    int32_t c[MINIFE_ROW_LOADS];
    for (int u = 0; u < MINIFE_ROW_LOADS; ++u) {
      const int64_t ku = k + u * step;
      c[u] = ku < k1 ? PORTA_AT1(a->cols, ku) : 0;
      v[u] = ku < k1 ? PORTA_AT1(a->vals, ku) : 0.0;
    }
    for (int u = 0; u < MINIFE_ROW_LOADS; ++u) xv[u] = PORTA_AT1(a->x, c[u]);
    for (int u = 0; u < MINIFE_ROW_LOADS; ++u)
      if (k + u * step < k1) sum += v[u] * xv[u];
  }
#else
  for (int64_t k = k0; k < k1; k += step)
    sum += PORTA_AT1(a->vals, k) * PORTA_AT1(a->x, PORTA_AT1(a->cols, k));
#endif
  return sum;
}

/* Row r of A times x, its entries added in CSR order whatever the slice: the same bits on
   every back end. In slices of 32 rows (MINIFE_SLICE_SHIFT), a GPU's, a warp's 32 rows read
   their j-th values and columns from one run of 256 and 128 bytes. The slice is a constant
   here: as a variable its index arithmetic took 64 registers (the exact first pass 72) where
   the constant takes 31 (40), 4 blocks an SM (3) instead of 8 (6): 0.82 ms against 0.76. */
PORTA_FORCEINLINE_FUNCTION double minife_row_times(const matvec_args *a, int64_t r) {
  return minife_entries_times(a, minife_row_span(&a->at, MINIFE_SLICE_SHIFT, r));
}

/* The same in CSR (one-row slices, the host's): the entries between two row pointers. The
   host's exact first pass adds rows in vector lanes, where the sliced form's extra index took
   17 % longer. */
PORTA_FORCEINLINE_FUNCTION double minife_row_times_csr(const matvec_args *a, int64_t r) {
  const minife_span sp = {PORTA_AT1(a->at.row_ptr, r), PORTA_AT1(a->at.row_ptr, r + 1), 1};
  return minife_entries_times(a, sp);
}

/* y = A x over the rows of a list (overlapping the exchange, driven from the host): any slice */
PORTA_FOR(minife_k_matvec_rows, matvec_args, a, i) {
  const int64_t r = PORTA_AT1(a->rows, i);
  PORTA_AT1(a->y, r) = minife_entries_times(a, minife_row_span(&a->at, a->at.shift, r));
}

/* y = A x over every row, sliced (deterministic reductions on a GPU: below) */
PORTA_FOR(minife_k_matvec, matvec_args, a, r) { PORTA_AT1(a->y, r) = minife_row_times(a, r); }

/* y = A x over every row, and the sum of y.x: sliced (a GPU's) or CSR */
APP_SUM_KERNEL(minife_k_matvec_dot, matvec_args, a, r) {
  const double y = minife_row_times(a, r);
  PORTA_AT1(a->y, r) = y;
  return y * PORTA_AT1(a->x, r);
}

APP_SUM_KERNEL(minife_k_matvec_dot_csr, matvec_args, a, r) {
  const double y = minife_row_times_csr(a, r);
  PORTA_AT1(a->y, r) = y;
  return y * PORTA_AT1(a->x, r);
}

APP_SUM_KERNEL(minife_k_dot, dot_args, a, i) { return PORTA_AT1(a->x, i) * PORTA_AT1(a->y, i); }

/* w = alpha x + beta y, with the reference's special cases (they decide the rounding) */
PORTA_FOR(minife_k_waxpby, waxpby_args, a, i) {
  const double xi = PORTA_AT1(a->x, i), yi = PORTA_AT1(a->y, i);
  double w;
  if (a->beta == 0.0)
    w = a->alpha == 1.0 ? xi : a->alpha * xi;
  else
    w = a->alpha == 1.0 ? xi + a->beta * yi : a->alpha * xi + a->beta * yi;
  PORTA_AT1(a->w, i) = w;
}

static matvec_args matvec_make(const minife *m, porta_view_f64 x, porta_view_f64 y) {
  matvec_args a;
  memset(&a, 0, sizeof a);
  a.at = minife_entries_of(&m->A);
  a.cols = m->A.cols;
  a.vals = m->A.vals;
  a.x = x;
  a.y = y;
  return a;
}

int minife_op_matvec_dot(minife *m, porta_exec exec, app_sum_to to) {
  matvec_args a = matvec_make(m, m->p, m->Ap);
  if (m->A.slice_shift != 0 && porta_deterministic()) {
    /* a deterministic reduction gives a warp 2048 rows, 64 a lane one after another: fused,
       the sliced matvec took 1.46 ms an iteration at n = 200 on an H200 against 0.86; as a
       kernel of its own, p.Ap then the same terms in the same order */
    PORTA_CHECK(PORTA_PARALLEL_FOR_LABELED("minife_matvec", minife_k_matvec, exec,
                                           porta_range(0, m->A.nrows), &a));
    return minife_op_dot(m, exec, m->Ap, m->p, to);
  }
  if (m->A.slice_shift == 0)
    return APP_SUM_REDUCE_INTO(minife_k_matvec_dot_csr, "minife_matvec_dot", exec,
                               porta_range(0, m->A.nrows), &a, to);
  return APP_SUM_REDUCE_INTO(minife_k_matvec_dot, "minife_matvec_dot", exec,
                             porta_range(0, m->A.nrows), &a, to);
}

int minife_op_matvec_rows(minife *m, porta_view_i32 rows, int64_t nrows, porta_view_f64 x,
                          porta_view_f64 y) {
  matvec_args a = matvec_make(m, x, y);
  a.rows = rows;
  return PORTA_PARALLEL_FOR_LABELED("minife_matvec_rows", minife_k_matvec_rows, m->exec,
                                    porta_range(0, nrows), &a);
}

int minife_op_dot(minife *m, porta_exec exec, porta_view_f64 x, porta_view_f64 y, app_sum_to to) {
  dot_args a;
  a.x = x;
  a.y = y;
  return APP_SUM_REDUCE_INTO(minife_k_dot, "minife_dot", exec, porta_range(0, m->A.nrows), &a, to);
}

int minife_op_waxpby(minife *m, double alpha, porta_view_f64 x, double beta, porta_view_f64 y,
                     porta_view_f64 w) {
  waxpby_args a;
  a.alpha = alpha;
  a.beta = beta;
  a.x = x;
  a.y = y;
  a.w = w;
  return PORTA_PARALLEL_FOR_LABELED("minife_waxpby", minife_k_waxpby, m->exec,
                                    porta_range(0, m->A.nrows), &a);
}

/* ---- The scalar steps of an iteration, one thread each, and the two kernels that read the
 * scalars: the divisions and branches are the reference's. */

typedef struct {
  porta_view_f64 r, p, s;
} p_update_args;

/* x += alpha p ; r += (-alpha) Ap ; sum r.r, written as APP_SUM_KERNEL writes its plain kernel:
   on an H100/H200 the same occupancy (8 blocks of 256 threads per SM) as the kernel that took
   alpha as a value, so the same occupancy-sized reduction grid and the same bits. alpha comes
   through the read-only path (PORTA_LDG): a plain load, which the stores to x and r might
   alias, took 36 registers (7 blocks); a pointer chosen at run time took 40, with the division
   48, and changed the grid and the bits at n=200. */
PORTA_FORCEINLINE_FUNCTION double minife_update_term(const update_args *a, int64_t i) {
  const double alpha = PORTA_LDG(*a->alpha);
  PORTA_AT1(a->x, i) = PORTA_AT1(a->x, i) + alpha * PORTA_AT1(a->p, i);
  const double r = PORTA_AT1(a->r, i) + (-alpha) * PORTA_AT1(a->Ap, i);
  PORTA_AT1(a->r, i) = r;
  return r * r;
}
/* an exact sum's second pass: r.r as r is now */
APP_SUM_AGAIN(minife_k_update, update_args, a, i) {
  return PORTA_AT1(a->r, i) * PORTA_AT1(a->r, i);
}
APP_SUM_KERNEL_UPDATING(minife_k_update, update_args, a, i) { return minife_update_term(a, i); }

/* p = r + beta p (the reference's waxpby(1, r, beta, p, p); beta = 0 at the first iteration) */
PORTA_FOR(minife_k_p_update, p_update_args, a, i) {
  const double beta = PORTA_AT1(a->s, MINIFE_LOOP_BETA);
  const double ri = PORTA_AT1(a->r, i), pi = PORTA_AT1(a->p, i);
  PORTA_AT1(a->p, i) = beta == 0.0 ? ri : ri + beta * pi;
}

/* the top of iteration k: beta from the last update's r.r, normr, the history */
PORTA_FOR(minife_k_top, minife_ctl, a, i) {
  minife_loop_top(a->s.data, a->n.data, a->history.data);
}

/* alpha = rtrans / pAp; 0 while a breakdown is suspected (x and r stay as they are) */
PORTA_FOR(minife_k_alpha, minife_ctl, a, i) {
  const double pap = PORTA_AT1(a->s, MINIFE_LOOP_PAP);
  PORTA_AT1(a->s, MINIFE_LOOP_ALPHA) =
      pap < PORTA_AT1(a->s, MINIFE_LOOP_BRK) ? 0.0 : PORTA_AT1(a->s, MINIFE_LOOP_RTRANS) / pap;
}

/* the end of iteration k: a suspected breakdown stops the loop for the host; else the next
   iteration runs while k < max_iter and normr > tol (the host loop's condition) */
PORTA_FOR(minife_k_end, minife_ctl, a, i) {
  const int64_t k = PORTA_AT1(a->n, MINIFE_LOOP_TOPS);
  int again = 0;
  if (PORTA_AT1(a->s, MINIFE_LOOP_PAP) < PORTA_AT1(a->s, MINIFE_LOOP_BRK)) {
    PORTA_AT1(a->n, MINIFE_LOOP_STATUS) = MINIFE_LOOP_SUSPECT;
  } else {
    PORTA_AT1(a->n, MINIFE_LOOP_ITERATIONS) = k;
    again = k + 1 <= a->max_iter && PORTA_AT1(a->s, MINIFE_LOOP_NORMR) > a->tol;
  }
  porta_loop_decide(&a->loop, again);
}

int minife_op_top(minife *m, porta_exec exec, const minife_ctl *c) {
  PORTA_CHECK(
      PORTA_PARALLEL_FOR_LABELED("minife_loop_top", minife_k_top, exec, porta_range(0, 1), c));
  p_update_args p;
  p.r = m->r;
  p.p = m->p;
  p.s = c->s;
  return PORTA_PARALLEL_FOR_LABELED("minife_waxpby", minife_k_p_update, exec,
                                    porta_range(0, m->A.nrows), &p);
}

int minife_op_update(minife *m, porta_exec exec, const minife_ctl *c, app_sum_to to) {
  PORTA_CHECK(
      PORTA_PARALLEL_FOR_LABELED("minife_loop_alpha", minife_k_alpha, exec, porta_range(0, 1), c));
  update_args u;
  u.alpha = &c->s.data[MINIFE_LOOP_ALPHA];
  u.x = m->x;
  u.p = m->p;
  u.r = m->r;
  u.Ap = m->Ap;
  return APP_SUM_REDUCE_INTO(minife_k_update, "minife_update", exec, porta_range(0, m->A.nrows), &u,
                             to);
}

int minife_op_end(minife *m, porta_exec exec, const minife_ctl *c) {
  (void)m;
  return PORTA_PARALLEL_FOR_LABELED("minife_loop_end", minife_k_end, exec, porta_range(0, 1), c);
}
