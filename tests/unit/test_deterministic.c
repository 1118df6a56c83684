/** @file test_deterministic.c
 *  Deterministic reductions (porta_set_deterministic(1)) give bitwise-identical results on the
 *  Serial back end and on OpenMP with 1, 2 and 3 threads, for range reductions (sum and dot),
 *  PORTA_MDREDUCE2 and team reductions, on doubles whose summation order matters (magnitudes
 *  1e-8..1e8, mixed signs). The results also equal, bit for bit, a host model of the documented
 *  decomposition (backend/launch.h: chunks of PORTA_DET_CHUNK indices or a box's tiles,
 *  PORTA_DET_LANES lanes, fixed halving trees), which is what the CUDA back end must reproduce too,
 * and they are close to a compensated long-double reference. The non-deterministic sum is only
 * printed.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

#define PT_NMAX 1000003

/** Values with random sign and magnitude log-uniform in [1e-8, 1e8) (the LCG of harness.h). */
static uint64_t pt_state = 0x853c49e6748fea9bull;
static double pt_next_value(void) { return pt_lcg_signed(&pt_state, -8.0, 8.0); }

/** Compensated (Neumaier) sum in long double: the reference. */
static double pt_reference_sum(const double *x, const double *y, int64_t n) {
  long double s = 0, c = 0;
  for (int64_t i = 0; i < n; ++i) {
    long double v = y ? (long double)x[i] * (long double)y[i] : (long double)x[i];
    long double t = s + v;
    if (fabsl(s) >= fabsl(v))
      c += (s - t) + v;
    else
      c += (v - t) + s;
    s = t;
  }
  return (double)(s + c);
}

/** The documented fixed-order tree over n partials (halving strides, as on the GPU). */
static void pt_model_tree(double *p, int64_t n) {
  int64_t s = 1;
  while (s < n) s <<= 1;
  for (s >>= 1; s > 0; s >>= 1)
    for (int64_t l = 0; l < s; ++l)
      if (l + s < n) p[l] = p[l] + p[l + s];
}

/** A chunk's or tile's lanes joined by the halving tree: lane 0's value. */
static double pt_model_lanes(double *lane) {
  for (int s = PORTA_DET_LANES / 2; s > 0; s >>= 1)
    for (int l = 0; l < s; ++l) lane[l] = lane[l] + lane[l + s];
  return lane[0];
}

/** The partials joined by the tree; frees them. */
static double pt_model_partials(double *part, int64_t n) {
  pt_model_tree(part, n);
  const double r = part[0];
  free(part);
  return r;
}

/** Host model of a deterministic range sum of v(i), i in [0, n): chunks, lanes, trees. */
static double pt_model_range(const double *x, const double *y, int64_t n) {
  const int64_t nc = (n + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK;
  if (nc == 0) return 0.0;
  double *part = (double *)malloc((size_t)nc * sizeof(double));
  for (int64_t c = 0; c < nc; ++c) {
    double lane[PORTA_DET_LANES];
    const int64_t lo = c * PORTA_DET_CHUNK;
    const int64_t hi = lo + PORTA_DET_CHUNK < n ? lo + PORTA_DET_CHUNK : n;
    for (int l = 0; l < PORTA_DET_LANES; ++l) lane[l] = 0.0;
    for (int64_t i = lo; i < hi; ++i) lane[(i - lo) % PORTA_DET_LANES] += y ? x[i] * y[i] : x[i];
    part[c] = pt_model_lanes(lane);
  }
  return pt_model_partials(part, nc);
}

/** Host model of a deterministic box sum of x (rows x cols, row-major): tiles of
 *  PORTA_DET_LANES rows (a lane each) by PORTA_DET_TILE_REST columns, the rows' blocks fastest;
 *  in a tile, lane l sums its row's columns in order; lanes and tiles by the halving trees. */
static double pt_model_md(const double *x, int64_t rows, int64_t cols) {
  const int64_t nb0 = (rows + PORTA_DET_LANES - 1) / PORTA_DET_LANES;
  const int64_t nt = nb0 * ((cols + PORTA_DET_TILE_REST - 1) / PORTA_DET_TILE_REST);
  if (nt == 0) return 0.0;
  double *part = (double *)malloc((size_t)nt * sizeof(double));
  for (int64_t t = 0; t < nt; ++t) {
    double lane[PORTA_DET_LANES];
    const int64_t j0 = t / nb0 * PORTA_DET_TILE_REST;
    const int64_t j1 = j0 + PORTA_DET_TILE_REST < cols ? j0 + PORTA_DET_TILE_REST : cols;
    for (int l = 0; l < PORTA_DET_LANES; ++l) {
      const int64_t i = t % nb0 * PORTA_DET_LANES + l;
      lane[l] = 0.0;
      for (int64_t j = j0; j < j1 && i < rows; ++j) lane[l] += x[i * cols + j];
    }
    part[t] = pt_model_lanes(lane);
  }
  return pt_model_partials(part, nt);
}

/** Host model of the deterministic team sum of rows x cols values: one partial per (league
 *  rank, member), member r summing the columns r, r + ts, ...; then the tree. */
static double pt_model_team(const double *u, int64_t rows, int64_t cols, int ts) {
  if (rows == 0) return 0.0;
  double *part = (double *)malloc((size_t)(rows * ts) * sizeof(double));
  for (int64_t lr = 0; lr < rows; ++lr)
    for (int r = 0; r < ts; ++r) {
      double s = 0.0;
      for (int64_t j = r; j < cols; j += ts) s += u[lr * cols + j];
      part[lr * ts + r] = s;
    }
  return pt_model_partials(part, rows * ts);
}

static int pt_same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* ------------------------------------------------------------------------------------------ */
/* Kernels                                                                                     */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_f64 x, y;
} vec_args;

PORTA_REDUCE(det_sum, vec_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->x, i); }
PORTA_REDUCE(det_dot, vec_args, a, i, porta_sum_f64, acc) {
  *acc += PORTA_AT1(a->x, i) * PORTA_AT1(a->y, i);
}

typedef struct {
  porta_view_f64 u; /**< (rows + 1, cols + 2): the box [1, rows + 1) x [2, cols + 2) */
  int64_t cols;
} mat_args;

PORTA_MDREDUCE2(det_md_sum, mat_args, a, i, j, porta_sum_f64, acc) { *acc += PORTA_S2(a->u, i, j); }

typedef struct {
  porta_view_f64 u; /**< (rows, d1, d2 + 1): the box [0, rows) x [0, d1) x [1, d2 + 1) */
} box3_args;

PORTA_MDREDUCE3(det_md3_sum, box3_args, a, i, j, k, porta_sum_f64, acc) {
  *acc += PORTA_S3(a->u, i, j, k);
}

/** League rank lr sums row lr + 1 (columns 2 .. cols + 1) across the team's threads. */
PORTA_TEAM_REDUCE(det_team_sum, mat_args, a, t, porta_sum_f64, acc) {
  PORTA_TEAM_THREAD_RANGE(t, j, 0, a->cols) { *acc += PORTA_S2(a->u, t->league_rank + 1, j + 2); }
}

/* ------------------------------------------------------------------------------------------ */
/* The configurations compared                                                                 */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  const char *name;
  porta_exec exec;
  int threads; /**< OpenMP threads (0: leave as is) */
} pt_config;

static int pt_configs(pt_config *c) {
  int n = 0;
  c[n].name = "serial";
  c[n].exec = porta_exec_backend(PORTA_BACKEND_SERIAL);
  c[n].threads = 0;
  ++n;
  if (porta_backend_available(PORTA_BACKEND_OPENMP)) {
    static const char *const names[3] = {"openmp x1", "openmp x2", "openmp x3"};
    for (int t = 1; t <= 3; ++t) {
      c[n].name = names[t - 1];
      c[n].exec = porta_exec_backend(PORTA_BACKEND_OPENMP);
      c[n].threads = t;
      ++n;
    }
  } else {
    printf("  (OpenMP is not available: only the serial back end is compared)\n");
  }
  /* a device back end, when it is the default, must give the same bits (same decomposition) */
  if (porta_exec_default().backend != PORTA_BACKEND_SERIAL &&
      porta_exec_default().backend != PORTA_BACKEND_OPENMP) {
    c[n].name = "default";
    c[n].exec = porta_exec_default();
    c[n].threads = 0;
    ++n;
  }
  return n;
}

static void pt_use(const pt_config *c) {
  if (c->threads > 0) PT_OK(porta_set_num_threads(c->threads));
}

static double *pt_x, *pt_y; /* host copies of the data */

static void check_bits(const char *what, int64_t n, const char *cfg, double got, double want) {
  if (!pt_same_bits(got, want)) {
    fprintf(stderr, "  %s n=%lld on %s: %.17g, want %.17g (bitwise)\n", what, (long long)n, cfg,
            got, want);
    PT_CHECK(pt_same_bits(got, want));
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Tests                                                                                       */
/* ------------------------------------------------------------------------------------------ */

static const int64_t pt_sizes[] = {1, 31, 2048, 2049, PT_NMAX};
#define PT_NSIZES ((int)(sizeof pt_sizes / sizeof pt_sizes[0]))

static void test_range_sum_and_dot(void) {
  pt_config cfg[5];
  const int nc = pt_configs(cfg);
  vec_args a;
  PT_OK(porta_view_f64_create1(&a.x, "x", PT_NMAX));
  PT_OK(porta_view_f64_create1(&a.y, "y", PT_NMAX));
  memcpy(a.x.data, pt_x, PT_NMAX * sizeof(double));
  memcpy(a.y.data, pt_y, PT_NMAX * sizeof(double));
  porta_set_deterministic(1);
  for (int s = 0; s < PT_NSIZES; ++s) {
    const int64_t n = pt_sizes[s];
    const double model_sum = pt_model_range(pt_x, NULL, n);
    const double model_dot = pt_model_range(pt_x, pt_y, n);
    double first_sum = 0, first_dot = 0;
    for (int c = 0; c < nc; ++c) {
      double sum = -1, dot = -1;
      pt_use(&cfg[c]);
      PT_OK(porta_parallel_reduce("det_sum", cfg[c].exec, porta_range(0, n), &det_sum, &a, &sum));
      PT_OK(porta_parallel_reduce("det_dot", cfg[c].exec, porta_range(0, n), &det_dot, &a, &dot));
      if (c == 0) {
        first_sum = sum;
        first_dot = dot;
      }
      check_bits("sum vs serial", n, cfg[c].name, sum, first_sum);
      check_bits("sum vs model", n, cfg[c].name, sum, model_sum);
      /* x*y + acc: a GPU compiler may contract it to an FMA (one rounding less) unless the
       * reproducible build setting forbids it; host C builds never contract */
      if (PORTA_ENABLE_REPRODUCIBLE || cfg[c].exec.backend == PORTA_BACKEND_SERIAL ||
          cfg[c].exec.backend == PORTA_BACKEND_OPENMP) {
        check_bits("dot vs serial", n, cfg[c].name, dot, first_dot);
        check_bits("dot vs model", n, cfg[c].name, dot, model_dot);
      } else if (!pt_same_bits(dot, first_dot)) {
        printf("  dot n=%lld on %s differs from serial in the last bits (FMA contraction; "
               "build with PORTA_ENABLE_REPRODUCIBLE for the same bits)\n",
               (long long)n, cfg[c].name);
      }
    }
    /* the default execution space too (whatever PORTA_BACKEND chose) */
    double sum = -1;
    PT_OK(porta_parallel_reduce("det_sum", porta_exec_default(), porta_range(0, n), &det_sum, &a,
                                &sum));
    check_bits("sum vs serial", n, "default", sum, first_sum);
    /* accurate: close to the compensated long-double reference */
    PT_NEAR(first_sum, pt_reference_sum(pt_x, NULL, n), 1e-12);
    PT_NEAR(first_dot, pt_reference_sum(pt_x, pt_y, n), 1e-12);
  }
  porta_set_deterministic(0);
  porta_view_f64_release(&a.x);
  porta_view_f64_release(&a.y);
}

/** Box shapes (rows x cols) for the MD and team reductions: 1 .. ~1e6 points; the last two
 *  have 18751 and 40000 tiles, so the GPU's tree of the tiles' partials runs every phase. */
static const int64_t pt_shapes[][2] = {{1, 1},     {31, 1},     {1, 31},     {32, 64},   {3, 683},
                                       {40, 1100}, {1009, 991}, {3, 300001}, {1, 640000}};
#define PT_NSHAPES ((int)(sizeof pt_shapes / sizeof pt_shapes[0]))

/** Fill the (rows + 1) x (cols + 2) view: the box holds pt_x in row-major order, the rest NaN
 *  (so reading outside the box would show). */
static void pt_fill_box(mat_args *a, int64_t rows, int64_t cols) {
  PT_OK(porta_view_f64_create2(&a->u, "u", rows + 1, cols + 2));
  PT_OK(porta_view_f64_fill(a->u, NAN));
  a->cols = cols;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) PORTA_S2(a->u, i + 1, j + 2) = pt_x[i * cols + j];
}

/** The box reduction K over box P on every configuration: the same bits as the first (the
 *  serial back end) and as the order's model; close to the compensated sum of its N values. */
static void pt_check_box(const char *what, const pt_config *cfg, int nc, int64_t n, double model,
                         porta_mdrange_policy p, const porta_kernel *k, const void *args) {
  char vs_serial[64], vs_model[64];
  snprintf(vs_serial, sizeof vs_serial, "%s vs serial", what);
  snprintf(vs_model, sizeof vs_model, "%s vs model", what);
  double first = 0;
  for (int c = 0; c < nc; ++c) {
    double got = -1;
    pt_use(&cfg[c]);
    PT_OK(porta_parallel_reduce_md(what, cfg[c].exec, p, k, args, &got));
    if (c == 0) first = got;
    check_bits(vs_serial, n, cfg[c].name, got, first);
    check_bits(vs_model, n, cfg[c].name, got, model);
  }
  PT_NEAR(first, pt_reference_sum(pt_x, NULL, n), 1e-12);
}

static void test_mdreduce(void) {
  pt_config cfg[5];
  const int nc = pt_configs(cfg);
  porta_set_deterministic(1);
  for (int s = 0; s < PT_NSHAPES; ++s) {
    const int64_t rows = pt_shapes[s][0], cols = pt_shapes[s][1], n = rows * cols;
    mat_args a;
    pt_fill_box(&a, rows, cols);
    /* a box is cut into tiles (backend/launch.h) */
    const int64_t lo[2] = {1, 2}, hi[2] = {rows + 1, cols + 2};
    pt_check_box("mdreduce", cfg, nc, n, pt_model_md(pt_x, rows, cols),
                 porta_mdrange(2, lo, hi, NULL), &det_md_sum, &a);
    porta_view_f64_release(&a.u);
  }
  porta_set_deterministic(0);
}

/** Rank 3: a tile's lane sums 16 points of indices 1 and 2 flattened row-major, across rows of
 *  index 2 where they are short (d2 = 45) and along them where they are long (d2 = 1100). */
static void test_mdreduce3(void) {
  static const int64_t shapes[][3] = {{1, 1, 1}, {35, 7, 45}, {33, 3, 1100}};
  pt_config cfg[5];
  const int nc = pt_configs(cfg);
  porta_set_deterministic(1);
  for (int s = 0; s < 3; ++s) {
    const int64_t n0 = shapes[s][0], d1 = shapes[s][1], d2 = shapes[s][2], n = n0 * d1 * d2;
    box3_args a;
    PT_OK(porta_view_f64_create3(&a.u, "u3", n0, d1, d2 + 1));
    PT_OK(porta_view_f64_fill(a.u, NAN));
    for (int64_t i = 0; i < n0; ++i)
      for (int64_t j = 0; j < d1; ++j)
        for (int64_t k = 0; k < d2; ++k) PORTA_S3(a.u, i, j, k + 1) = pt_x[(i * d1 + j) * d2 + k];
    const int64_t lo[3] = {0, 0, 1}, hi[3] = {n0, d1, d2 + 1};
    pt_check_box("mdreduce3", cfg, nc, n, pt_model_md(pt_x, n0, d1 * d2),
                 porta_mdrange(3, lo, hi, NULL), &det_md3_sum, &a);
    porta_view_f64_release(&a.u);
  }
  porta_set_deterministic(0);
}

static void test_team_reduce(void) {
  pt_config cfg[5];
  const int nc = pt_configs(cfg);
  porta_set_deterministic(1);
  for (int s = 0; s < PT_NSHAPES; ++s) {
    const int64_t rows = pt_shapes[s][0], cols = pt_shapes[s][1], n = rows * cols;
    mat_args a;
    pt_fill_box(&a, rows, cols);
    /* team size 1 on every configuration */
    const double model1 = pt_model_team(pt_x, rows, cols, 1);
    double first = 0;
    for (int c = 0; c < nc; ++c) {
      double got = -1;
      pt_use(&cfg[c]);
      PT_OK(porta_parallel_reduce_team("det_team_sum", cfg[c].exec,
                                       porta_team_policy_make(rows, 1, 1), &det_team_sum, &a,
                                       &got));
      if (c == 0) first = got;
      check_bits("team (size 1) vs serial", n, cfg[c].name, got, first);
      check_bits("team (size 1) vs model", n, cfg[c].name, got, model1);
    }
    PT_NEAR(first, pt_reference_sum(pt_x, NULL, n), 1e-12);
    /* team size 2 where the configuration allows it (OpenMP with 2 and 3 threads) */
    const double model2 = pt_model_team(pt_x, rows, cols, 2);
    for (int c = 0; c < nc; ++c) {
      pt_use(&cfg[c]);
      if (cfg[c].exec.backend != PORTA_BACKEND_OPENMP ||
          porta_team_size_max(cfg[c].exec, porta_team_policy_make(rows, 2, 1)) < 2)
        continue;
      double got = -1;
      PT_OK(porta_parallel_reduce_team("det_team_sum", cfg[c].exec,
                                       porta_team_policy_make(rows, 2, 1), &det_team_sum, &a,
                                       &got));
      check_bits("team (size 2) vs model", n, cfg[c].name, got, model2);
    }
    porta_view_f64_release(&a.u);
  }
  porta_set_deterministic(0);
}

/** Without deterministic mode the order follows the thread split: print, do not assert. */
static void test_nondeterministic_differs(void) {
  if (!porta_backend_available(PORTA_BACKEND_OPENMP)) return;
  vec_args a;
  PT_OK(porta_view_f64_create1(&a.x, "x", PT_NMAX));
  PT_OK(porta_view_f64_create1(&a.y, "y", 1));
  memcpy(a.x.data, pt_x, PT_NMAX * sizeof(double));
  porta_set_deterministic(0);
  PT_OK(porta_set_num_threads(3));
  int differ = 0;
  for (int s = 0; s < PT_NSIZES; ++s) {
    const int64_t n = pt_sizes[s];
    double left = 0, par = -1;
    for (int64_t i = 0; i < n; ++i) left += pt_x[i];
    PT_OK(porta_parallel_reduce("nondet_sum", porta_exec_backend(PORTA_BACKEND_OPENMP),
                                porta_range(0, n), &det_sum, &a, &par));
    PT_NEAR(par, pt_reference_sum(pt_x, NULL, n), 1e-12);
    if (!pt_same_bits(par, left)) ++differ;
    printf("  n=%-8lld left-to-right %.17g, OpenMP x3 %.17g: %s\n", (long long)n, left, par,
           pt_same_bits(par, left) ? "same bits" : "differ");
  }
  printf("  the non-deterministic sum differs from the serial loop for %d of %d sizes\n", differ,
         PT_NSIZES);
  porta_view_f64_release(&a.x);
  porta_view_f64_release(&a.y);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  const int threads = porta_num_threads(), det = porta_deterministic();
  pt_x = (double *)malloc(PT_NMAX * sizeof(double));
  pt_y = (double *)malloc(PT_NMAX * sizeof(double));
  for (int64_t i = 0; i < PT_NMAX; ++i) pt_x[i] = pt_next_value();
  for (int64_t i = 0; i < PT_NMAX; ++i) pt_y[i] = pt_next_value();
  PT_RUN(test_range_sum_and_dot);
  PT_RUN(test_mdreduce);
  PT_RUN(test_mdreduce3);
  PT_RUN(test_team_reduce);
  PT_RUN(test_nondeterministic_differs);
  PT_OK(porta_set_num_threads(threads));
  porta_set_deterministic(det);
  PT_EQ_I64(porta_num_threads(), threads);
  free(pt_x);
  free(pt_y);
  PT_END();
}
