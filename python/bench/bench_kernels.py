"""The kernels of scripts/bench-python's kernel rows, each written twice: in Python (Porta's
kernels) and in C with Porta (C_SRC, compiled by the C compiler for the host back ends and by
nvcc for CUDA, and loaded by load_c), so that a row times the same work both ways."""
import ctypes

import porta
from porta import cache


@porta.kernel
def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
    y[i] += a * x[i]


@porta.kernel
def triad(i: int, a: float, b: porta.f64[:], c: porta.f64[:], out: porta.f64[:]):
    out[i] = b[i] + a * c[i]


@porta.kernel
def dot(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:], y: porta.f64[:]):
    acc += x[i] * y[i]


@porta.kernel
def exact_dot(i: int, acc: porta.ExactSum, x: porta.f64[:], y: porta.f64[:]):
    acc += x[i] * y[i]


@porta.kernel
def stencil(i: int, j: int, u: porta.f64[:, :], out: porta.f64[:, :]):
    out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


@porta.kernel
def spmv(t: porta.TeamMember, row_ptr: porta.i64[:], cols: porta.i32[:], vals: porta.f64[:],
         x: porta.f64[:], y: porta.f64[:]):
    row = t.league_rank
    s: porta.Sum[porta.f64]
    for k in porta.team_thread_range(t, row_ptr[row], row_ptr[row + 1]):
        s += vals[k] * x[cols[k]]
    if porta.single(t):
        y[row] = s


@porta.function
def lj_fr(r2: float, sigma6: float, eps: float) -> float:
    s6 = sigma6 / (r2 * r2 * r2)
    return 24.0 * eps * s6 * (2.0 * s6 - 1.0) / r2


@porta.kernel
def lj_force(i: int, pos: porta.f64[:, 3], neigh: porta.i32[:, :], cut2: float,
             sigma6: float, eps: float, f: porta.f64[:, 3]):
    xi = pos[i, 0]
    yi = pos[i, 1]
    zi = pos[i, 2]
    fx = 0.0
    fy = 0.0
    fz = 0.0
    for k in range(neigh.shape[1]):
        j = neigh[i, k]
        dx = xi - pos[j, 0]
        dy = yi - pos[j, 1]
        dz = zi - pos[j, 2]
        r2 = dx * dx + dy * dy + dz * dz
        if r2 < cut2:
            fr = lj_fr(r2, sigma6, eps)
            fx += dx * fr
            fy += dy * fr
            fz += dz * fr
    f[i, 0] = fx
    f[i, 1] = fy
    f[i, 2] = fz


C_SRC = r"""
#include "porta/porta.h"
/* The same C, compiled by the C compiler for the host back ends and by nvcc (as CUDA C++) for
   the CUDA one; on CUDA each timing ends with a fence (launches are asynchronous). */
#ifdef __cplusplus
#define EXPORT extern "C" __attribute__((visibility("default")))
#else
#define EXPORT __attribute__((visibility("default")))
#endif
#define FENCE(be, e) if ((be) == PORTA_BACKEND_CUDA) porta_exec_fence(e, "bench")
typedef struct { double a; const double *x; double *y; } axpy_args;
PORTA_FOR(c_axpy, axpy_args, p, i) { p->y[i] += p->a * p->x[i]; }
typedef struct { double a; const double *b, *c; double *out; } triad_args;
PORTA_FOR(c_triad, triad_args, p, i) { p->out[i] = p->b[i] + p->a * p->c[i]; }
typedef struct { const double *x, *y; } dot_args;
PORTA_REDUCE(c_dot, dot_args, p, i, porta_sum_f64, acc) { *acc += p->x[i] * p->y[i]; }
PORTA_REDUCE(c_exact_dot, dot_args, p, i, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, p->x[i] * p->y[i]);
}
/* seconds per launch of axpy over n elements, `reps` launches */
EXPORT double c_axpy_launch(int be, double a, const double *x, double *y, int64_t n, int reps) {
  axpy_args g = {a, x, y};
  porta_exec e = porta_exec_backend((porta_backend)be);
  double t0 = porta_wtime();
  for (int r = 0; r < reps; ++r) PORTA_PARALLEL_FOR(c_axpy, e, porta_range(0, n), &g);
  FENCE(be, e);
  return (porta_wtime() - t0) / reps;
}
/* Each run_* below: seconds per launch over `reps` launches. */
EXPORT double run_triad(int be, double a, const double *b, const double *c, double *out, int64_t n,
                        int reps) {
  triad_args g = {a, b, c, out};
  porta_exec e = porta_exec_backend((porta_backend)be);
  double t0 = porta_wtime();
  for (int r = 0; r < reps; ++r) PORTA_PARALLEL_FOR(c_triad, e, porta_range(0, n), &g);
  FENCE(be, e);
  return (porta_wtime() - t0) / reps;
}
EXPORT double run_dot(int be, const double *x, const double *y, int64_t n, double *res,
                      int reps) {
  dot_args g = {x, y};
  porta_exec e = porta_exec_backend((porta_backend)be);
  double t0 = porta_wtime();
  for (int r = 0; r < reps; ++r) PORTA_PARALLEL_REDUCE(c_dot, e, porta_range(0, n), &g, res);
  return (porta_wtime() - t0) / reps;
}
/* the exact dot rounded once, as Python's parallel_reduce returns it */
EXPORT double run_exact_dot(int be, const double *x, const double *y, int64_t n, double *res,
                            int reps) {
  dot_args g = {x, y};
  porta_exec e = porta_exec_backend((porta_backend)be);
  porta_xsum_f64_value v;
  double t0 = porta_wtime();
  for (int r = 0; r < reps; ++r) {
    PORTA_PARALLEL_REDUCE(c_exact_dot, e, porta_range(0, n), &g, &v);
    *res = porta_xsum_f64_round(&v);
  }
  return (porta_wtime() - t0) / reps;
}
/* Each array with its own row stride, as a Porta view (PORTA_AT2) or a NumPy array has. */
typedef struct { const double *u; double *out; int64_t su, so; } stencil_args;
PORTA_MDFOR2(c_stencil, stencil_args, p, i, j) {
  const int64_t su = p->su;
  p->out[i * p->so + j] = 0.25 * (p->u[(i - 1) * su + j] + p->u[(i + 1) * su + j] +
                                  p->u[i * su + j - 1] + p->u[i * su + j + 1]);
}
EXPORT double run_stencil(int be, const double *u, double *out, int64_t ny, int64_t nx,
                          int reps) {
  stencil_args g = {u, out, nx, nx};
  porta_exec e = porta_exec_backend((porta_backend)be);
  double t0 = porta_wtime();
  for (int r = 0; r < reps; ++r)
    PORTA_PARALLEL_FOR(c_stencil, e, porta_mdrange2(1, ny - 1, 1, nx - 1), &g);
  FENCE(be, e);
  return (porta_wtime() - t0) / reps;
}
typedef struct {
  const int64_t *row_ptr;
  const int32_t *cols;
  const double *vals, *x;
  double *y;
} spmv_args;
PORTA_TEAM_FOR(c_spmv, spmv_args, p, team) {
  const int64_t row = team->league_rank;
  double s;
  PORTA_TEAM_THREAD_REDUCE(team, k, p->row_ptr[row], p->row_ptr[row + 1], porta_sum_f64, s) {
    s += p->vals[k] * p->x[p->cols[k]];
  }
  PORTA_SINGLE_PER_TEAM(team) p->y[row] = s;
}
EXPORT double run_spmv(int be, const int64_t *rp, const int32_t *c, const double *v,
                       const double *x, double *y, int64_t nrows, int reps) {
  spmv_args g = {rp, c, v, x, y};
  porta_exec e = porta_exec_backend((porta_backend)be);
  double t0 = porta_wtime();
  for (int r = 0; r < reps; ++r)
    PORTA_PARALLEL_FOR(c_spmv, e, porta_team_policy_make(nrows, PORTA_AUTO, 1), &g);
  FENCE(be, e);
  return (porta_wtime() - t0) / reps;
}
typedef struct { const double *pos; const int32_t *neigh; int64_t nn; double cut2, sigma6, eps;
                 double *f; } lj_args;
PORTA_INLINE_FUNCTION double c_lj_fr(double r2, double sigma6, double eps) {
  double s6 = sigma6 / (r2 * r2 * r2);
  return 24.0 * eps * s6 * (2.0 * s6 - 1.0) / r2;
}
PORTA_FOR(c_lj, lj_args, p, i) {
  const double xi = p->pos[3 * i], yi = p->pos[3 * i + 1], zi = p->pos[3 * i + 2];
  double fx = 0.0, fy = 0.0, fz = 0.0;
  for (int64_t k = 0; k < p->nn; ++k) {
    const int64_t j = p->neigh[i * p->nn + k];
    const double dx = xi - p->pos[3 * j], dy = yi - p->pos[3 * j + 1], dz = zi - p->pos[3 * j + 2];
    const double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < p->cut2) {
      const double fr = c_lj_fr(r2, p->sigma6, p->eps);
      fx += dx * fr;
      fy += dy * fr;
      fz += dz * fr;
    }
  }
  p->f[3 * i] = fx;
  p->f[3 * i + 1] = fy;
  p->f[3 * i + 2] = fz;
}
EXPORT double run_lj(int be, const double *pos, const int32_t *neigh, int64_t n, int64_t nn,
                     double cut2, double sigma6, double eps, double *f, int reps) {
  lj_args g = {pos, neigh, nn, cut2, sigma6, eps, f};
  porta_exec e = porta_exec_backend((porta_backend)be);
  double t0 = porta_wtime();
  for (int r = 0; r < reps; ++r) PORTA_PARALLEL_FOR(c_lj, e, porta_range(0, n), &g);
  FENCE(be, e);
  return (porta_wtime() - t0) / reps;
}
"""

D = ctypes.c_double
P = ctypes.c_void_p
I64 = ctypes.c_int64
INT = ctypes.c_int


def load_c(cuda):
    lib = ctypes.CDLL(cache.build(C_SRC, "bench_c", cuda=cuda))
    lib.c_axpy_launch.restype = D
    lib.c_axpy_launch.argtypes = [INT, D, P, P, I64, INT]
    lib.run_triad.restype = D
    lib.run_triad.argtypes = [INT, D, P, P, P, I64, INT]
    lib.run_dot.restype = D
    lib.run_dot.argtypes = [INT, P, P, I64, ctypes.POINTER(D), INT]
    lib.run_exact_dot.restype = D
    lib.run_exact_dot.argtypes = [INT, P, P, I64, ctypes.POINTER(D), INT]
    lib.run_stencil.restype = D
    lib.run_stencil.argtypes = [INT, P, P, I64, I64, INT]
    lib.run_spmv.restype = D
    lib.run_spmv.argtypes = [INT, P, P, P, P, P, I64, INT]
    lib.run_lj.restype = D
    lib.run_lj.argtypes = [INT, P, P, I64, I64, D, D, D, P, INT]
    return lib
