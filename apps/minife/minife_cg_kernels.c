/** @file minife_cg_kernels.c
 *  The kernels of miniFE's CG (minife_cg.c's iteration runs them): the top of an iteration
 *  (beta, ||r||) with p = r + beta p, CSR matvec (all rows, fused with the sum of p.Ap, or a
 *  list of rows), dot, waxpby, alpha and the x / r update fused with the sum of r.r, the end.
 *  Sums land in memory of the launch's space (app_sum_to); the caller adds them over the ranks.
 *  Scalars are read from there too, so the same kernels run from the host and recorded.
 *  Kernel file (C11 and C++17). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "minife_kernels.h"

/* One argument struct per kernel family, each holding what its kernels read and write. */

/** y = A x (A in CSR: row_ptr, cols, vals), over every row or the rows of a list. */
typedef struct {
  porta_view_i32 row_ptr, cols, rows;
  porta_view_f64 vals, x, y;
  int64_t nrows, rows_per_team; /**< team kernels: rows in all, rows per team */
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

PORTA_FORCEINLINE_FUNCTION double minife_row_times(const matvec_args *a, int64_t r) {
  double sum = 0.0;
  const int64_t k1 = PORTA_AT1(a->row_ptr, r + 1);
  for (int64_t k = PORTA_AT1(a->row_ptr, r); k < k1; ++k)
    sum += PORTA_AT1(a->vals, k) * PORTA_AT1(a->x, PORTA_AT1(a->cols, k));
  return sum;
}

/* y = A x over the rows of a list */
PORTA_FOR(minife_k_matvec_rows, matvec_args, a, i) {
  const int64_t r = PORTA_AT1(a->rows, i);
  PORTA_AT1(a->y, r) = minife_row_times(a, r);
}

/* y = A x over every row, and the sum of y.x */
APP_SUM_KERNEL(minife_k_matvec_dot, matvec_args, a, r) {
  const double y = minife_row_times(a, r);
  PORTA_AT1(a->y, r) = y;
  return y * PORTA_AT1(a->x, r);
}

/* The same with vector lanes (GPU): a team takes rows_per_team rows, each of its threads a
 * row, the thread's vector lanes split the row's nonzeros. The lanes' partial sums meet in a
 * tree, so a row's sum is not the one-thread order: used in default mode only. Row i is i
 * (minife_k_matvec_team) or rows[i] (minife_k_matvec_team_rows). */
PORTA_FORCEINLINE_FUNCTION void minife_matvec_lanes(const matvec_args *a, porta_team *team,
                                                    int use_rows) {
  const int64_t r0 = team->league_rank * a->rows_per_team;
  const int64_t r1 = r0 + a->rows_per_team < a->nrows ? r0 + a->rows_per_team : a->nrows;
  PORTA_TEAM_THREAD_RANGE(team, i, r0, r1) {
    const int64_t r = use_rows ? (int64_t)PORTA_AT1(a->rows, i) : i;
    double sum;
    PORTA_THREAD_VECTOR_REDUCE(team, k, PORTA_AT1(a->row_ptr, r), PORTA_AT1(a->row_ptr, r + 1),
                               porta_sum_f64, sum) {
      sum += PORTA_AT1(a->vals, k) * PORTA_AT1(a->x, PORTA_AT1(a->cols, k));
    }
    PORTA_SINGLE_PER_THREAD(team) { PORTA_AT1(a->y, r) = sum; }
  }
}

PORTA_TEAM_FOR(minife_k_matvec_team, matvec_args, a, team) { minife_matvec_lanes(a, team, 0); }

PORTA_TEAM_FOR(minife_k_matvec_team_rows, matvec_args, a, team) { minife_matvec_lanes(a, team, 1); }

/** Nonzeros a lane of the staged matvec loads before it stores them. */
#define MINIFE_STAGED_LOADS 8

/* y = A x over every row, each row summed in minife_row_times's order, a team's rows staged in
 * team scratch (exact sums on a GPU): the team's lanes copy the values of its rows and the x
 * entries they multiply, a nonzero a lane in turn, so that the global reads coalesce; then a
 * lane sums a row from the scratch, as one thread reading global memory would. On one H200 at
 * n = 200 the matvec took 0.96 ms against the fused kernel's 1.43 (a thread a row from global
 * memory; the vector lanes' own 0.80); 32, 64 and 128 rows a team, a lane each, gave exact CG
 * 1.29, 1.25 and 1.27 ms an iteration; fewer lanes than rows took longer (design-notes). */
PORTA_TEAM_FOR(minife_k_matvec_staged, matvec_args, a, team) {
  const int64_t r0 = team->league_rank * a->rows_per_team;
  const int64_t r1 = r0 + a->rows_per_team < a->nrows ? r0 + a->rows_per_team : a->nrows;
  const int64_t k0 = PORTA_AT1(a->row_ptr, r0), k1 = PORTA_AT1(a->row_ptr, r1);
  const size_t bytes = (size_t)a->rows_per_team * MINIFE_ROW_MAX * sizeof(double);
  double *vals = (double *)porta_team_scratch(team, 0, bytes);
  double *xs = (double *)porta_team_scratch(team, 0, bytes);
  /* every lane's loads first, MINIFE_STAGED_LOADS at a time, then its stores: a store to the
     scratch between two loads would hold the second back (the compiler cannot tell them apart) */
  const int64_t lanes = (int64_t)team->team_size * team->vector_length;
  const int64_t me = (int64_t)team->team_rank * team->vector_length + team->vector_lane;
  for (int64_t k = k0 + me; k < k1; k += MINIFE_STAGED_LOADS * lanes) {
    double v[MINIFE_STAGED_LOADS], xv[MINIFE_STAGED_LOADS];
    for (int u = 0; u < MINIFE_STAGED_LOADS; ++u) {
      const int64_t ku = k + u * lanes;
      v[u] = ku < k1 ? PORTA_AT1(a->vals, ku) : 0.0;
      xv[u] = ku < k1 ? PORTA_AT1(a->x, PORTA_AT1(a->cols, ku)) : 0.0;
    }
    for (int u = 0; u < MINIFE_STAGED_LOADS; ++u) {
      const int64_t ku = k + u * lanes;
      if (ku < k1) {
        vals[ku - k0] = v[u];
        xs[ku - k0] = xv[u];
      }
    }
  }
  porta_team_barrier(team);
  /* a row a lane (not a thread: its lanes would repeat its sum) */
  for (int64_t r = r0 + me; r < r1; r += lanes) {
    double sum = 0.0;
    const int64_t j1 = PORTA_AT1(a->row_ptr, r + 1) - k0;
    for (int64_t j = PORTA_AT1(a->row_ptr, r) - k0; j < j1; ++j) sum += vals[j] * xs[j];
    PORTA_AT1(a->y, r) = sum;
  }
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
  a.row_ptr = m->A.row_ptr;
  a.cols = m->A.cols;
  a.vals = m->A.vals;
  a.x = x;
  a.y = y;
  return a;
}

/** Threads of a vector-lane matvec team on the GPU. On an H100 at n=200 with 4 lanes a row,
 *  1024 threads (256 rows) a team ran CG at 1.32 ms per iteration, 256 threads at 1.41 ms. */
#define MINIFE_TEAM_THREADS 1024

/** Teams of `rows` rows that cover n rows (at least one). */
static int64_t teams_for(int64_t n, int64_t rows) { return n > 0 ? (n + rows - 1) / rows : 1; }

/** Team policy for the vector-lane matvec over n rows: MINIFE_TEAM_THREADS / lanes rows a
 *  team, a thread a row on the GPU; on the host as many threads as a team may have. */
static porta_team_policy lanes_policy(const minife *m, matvec_args *a, int64_t n) {
  const int vl = m->matvec_lanes, rows = MINIFE_TEAM_THREADS / vl;
  a->nrows = n;
  a->rows_per_team = rows;
  porta_team_policy p = porta_team_policy_make(teams_for(n, rows), rows, vl);
  minife *mm = (minife *)m;
  if (mm->matvec_team_size == 0) { /* host teams: at most the thread count (asked once) */
    const int most = porta_team_size_max(m->exec, p);
    mm->matvec_team_size = most > 0 && most < rows ? most : rows;
  }
  p.team_size = mm->matvec_team_size;
  return p;
}

/** Rows a team of the staged matvec takes, as many threads (a row a lane, so a team of 4-lane
 *  threads sums its rows on its first quarter; all its lanes copy). */
#define MINIFE_STAGED_ROWS 64

/** Team policy for the staged matvec over every row: its scratch holds a team's values and x
 *  entries; on the host as many threads as a team may have. */
static porta_team_policy staged_policy(minife *m, porta_exec exec, matvec_args *a) {
  const int64_t n = m->A.nrows, rows = MINIFE_STAGED_ROWS;
  const size_t bytes = porta_scratch_size((size_t)rows * MINIFE_ROW_MAX * sizeof(double));
  a->nrows = n;
  a->rows_per_team = rows;
  porta_team_policy p = porta_team_policy_make(teams_for(n, rows), (int)rows, m->matvec_lanes);
  p = porta_team_scratch_request(p, 0, 2 * bytes, 0);
  if (m->staged_team_size == 0) { /* at most what the back end allows (asked once) */
    const int most = porta_team_size_max(exec, p);
    m->staged_team_size = most > 0 && most < p.team_size ? most : p.team_size;
  }
  p.team_size = m->staged_team_size;
  return p;
}

/** How y = A x with its dot runs: one range kernel, a thread a row, fused with the dot
 *  (the host); or a team kernel and the dot as a pass of its own (GPU, `matvec_lanes` > 0): with
 *  ordinary sums the rows split over vector lanes, with exact ones staged, so that each row keeps
 *  the one-thread order (the host loop and the device loop choose alike: the same bits). */
typedef enum { MATVEC_FUSED, MATVEC_LANES, MATVEC_STAGED } matvec_form;

static matvec_form matvec_form_of(const minife *m) {
  if (m->matvec_lanes <= 0) return MATVEC_FUSED;
  return app_sum_is_exact(m->sum) ? MATVEC_STAGED : MATVEC_LANES;
}

/** y = A x as a team kernel (form MATVEC_LANES or MATVEC_STAGED). */
static int matvec_team(minife *m, porta_exec exec, matvec_form form, matvec_args *a) {
  if (form == MATVEC_STAGED)
    return PORTA_PARALLEL_FOR_LABELED("minife_matvec", minife_k_matvec_staged, exec,
                                      staged_policy(m, exec, a), a);
  return PORTA_PARALLEL_FOR_LABELED("minife_matvec", minife_k_matvec_team, exec,
                                    lanes_policy(m, a, m->A.nrows), a);
}

int minife_op_matvec_dot(minife *m, porta_exec exec, app_sum_to to) {
  matvec_args a = matvec_make(m, m->p, m->Ap);
  const matvec_form form = matvec_form_of(m);
  if (form == MATVEC_FUSED)
    return APP_SUM_REDUCE_INTO(minife_k_matvec_dot, "minife_matvec_dot", exec,
                               porta_range(0, m->A.nrows), &a, to);
  /* the matvec, then p.Ap as a pass of its own. A team reduction here cost more than the
     separate dot on an H100 (n=200, vector lanes: 1.54 ms against 1.10 + 0.06 ms). */
  PORTA_CHECK(matvec_team(m, exec, form, &a));
  return minife_op_dot(m, exec, m->Ap, m->p, to);
}

int minife_op_matvec_rows(minife *m, porta_view_i32 rows, int64_t nrows, porta_view_f64 x,
                          porta_view_f64 y) {
  matvec_args a = matvec_make(m, x, y);
  a.rows = rows;
  if (matvec_form_of(m) == MATVEC_LANES)
    return PORTA_PARALLEL_FOR_LABELED("minife_matvec_rows", minife_k_matvec_team_rows, m->exec,
                                      lanes_policy(m, &a, nrows), &a);
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
