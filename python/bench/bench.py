"""scripts/bench-python: Porta's Python kernels against the same kernels written in C with
Porta, one table (answers checked first; medians of repeated runs; ratios from this run).

Rows: launch overhead (a launch of axpy on 8 elements from Python with NumPy arguments,
minus the same launch from C), triad and dot bandwidth kernels, a 2D stencil on an mdrange,
a team SpMV (a league rank per row, a nested team reduction) and a Lennard-Jones force kernel
with a device function (Python time / C time), cold compile of a module and a cached
module's load (fresh processes).
"""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import porta
from porta import _core, cache


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
def lj_force(i: int, pos: porta.f64[:, :], neigh: porta.i32[:, :], cut2: float,
             sigma6: float, eps: float, f: porta.f64[:, :]):
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
typedef struct { double a; const double *x; double *y; } axpy_args;
PORTA_FOR(c_axpy, axpy_args, p, i) { p->y[i] += p->a * p->x[i]; }
typedef struct { double a; const double *b, *c; double *out; } triad_args;
PORTA_FOR(c_triad, triad_args, p, i) { p->out[i] = p->b[i] + p->a * p->c[i]; }
typedef struct { const double *x, *y; } dot_args;
PORTA_REDUCE(c_dot, dot_args, p, i, porta_sum_f64, acc) { *acc += p->x[i] * p->y[i]; }
#define EXPORT __attribute__((visibility("default")))
/* seconds per launch of axpy over n elements, `reps` launches */
EXPORT double c_axpy_launch(int be, double a, const double *x, double *y, int64_t n, int reps) {
  axpy_args g = {a, x, y};
  porta_exec e = porta_exec_backend((porta_backend)be);
  double t0 = porta_wtime();
  for (int r = 0; r < reps; ++r) PORTA_PARALLEL_FOR(c_axpy, e, porta_range(0, n), &g);
  return (porta_wtime() - t0) / reps;
}
EXPORT double run_triad(int be, double a, const double *b, const double *c, double *out, int64_t n) {
  triad_args g = {a, b, c, out};
  double t0 = porta_wtime();
  PORTA_PARALLEL_FOR(c_triad, porta_exec_backend((porta_backend)be), porta_range(0, n), &g);
  return porta_wtime() - t0;
}
EXPORT double run_dot(int be, const double *x, const double *y, int64_t n, double *r) {
  dot_args g = {x, y};
  double t0 = porta_wtime();
  PORTA_PARALLEL_REDUCE(c_dot, porta_exec_backend((porta_backend)be), porta_range(0, n), &g, r);
  return porta_wtime() - t0;
}
/* Each array with its own row stride, as a Porta view (PORTA_AT2) or a NumPy array has. */
typedef struct { const double *u; double *out; int64_t su, so; } stencil_args;
PORTA_MDFOR2(c_stencil, stencil_args, p, i, j) {
  const int64_t su = p->su;
  p->out[i * p->so + j] = 0.25 * (p->u[(i - 1) * su + j] + p->u[(i + 1) * su + j] +
                                  p->u[i * su + j - 1] + p->u[i * su + j + 1]);
}
EXPORT double run_stencil(int be, const double *u, double *out, int64_t ny, int64_t nx) {
  stencil_args g = {u, out, nx, nx};
  double t0 = porta_wtime();
  PORTA_PARALLEL_FOR(c_stencil, porta_exec_backend((porta_backend)be),
                     porta_mdrange2(1, ny - 1, 1, nx - 1), &g);
  return porta_wtime() - t0;
}
typedef struct { const int64_t *row_ptr; const int32_t *cols; const double *vals, *x; double *y; } spmv_args;
PORTA_TEAM_FOR(c_spmv, spmv_args, p, team) {
  const int64_t row = team->league_rank;
  double s;
  PORTA_TEAM_THREAD_REDUCE(team, k, p->row_ptr[row], p->row_ptr[row + 1], porta_sum_f64, s) {
    s += p->vals[k] * p->x[p->cols[k]];
  }
  PORTA_SINGLE_PER_TEAM(team) p->y[row] = s;
}
EXPORT double run_spmv(int be, const int64_t *rp, const int32_t *c, const double *v,
                       const double *x, double *y, int64_t nrows) {
  spmv_args g = {rp, c, v, x, y};
  double t0 = porta_wtime();
  PORTA_PARALLEL_FOR(c_spmv, porta_exec_backend((porta_backend)be),
                     porta_team_policy_make(nrows, PORTA_AUTO, 1), &g);
  return porta_wtime() - t0;
}
typedef struct { const double *pos; const int32_t *neigh; int64_t nn; double cut2, sigma6, eps;
                 double *f; } lj_args;
static inline double c_lj_fr(double r2, double sigma6, double eps) {
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
                     double cut2, double sigma6, double eps, double *f) {
  lj_args g = {pos, neigh, nn, cut2, sigma6, eps, f};
  double t0 = porta_wtime();
  PORTA_PARALLEL_FOR(c_lj, porta_exec_backend((porta_backend)be), porta_range(0, n), &g);
  return porta_wtime() - t0;
}
"""

D = ctypes.c_double
P = ctypes.c_void_p
I64 = ctypes.c_int64


def median_time(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def child_load_time(cache_dir, mode):
    code = ("import time, numpy as np; t0 = time.perf_counter(); import porta; "
            "porta.init(backend='serial', args=[]); t1 = time.perf_counter(); "
            "import bench_kernels_child as m; x = np.zeros(8); porta.parallel_for(8, m.axpy, 1.0, x, x); "
            "t2 = time.perf_counter(); print(t2 - t1, porta.cache.stats['compiles'], "
            "porta.cache.stats['last_compile_s'])")
    env = dict(os.environ, PORTA_CACHE_DIR=cache_dir,
               PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), int(out[1]), float(out[2])


def ratio_row(name, tp, tc):
    return (name, "%.2f ms" % (tp * 1e3), "%.2f ms" % (tc * 1e3), "C/Py %.3f" % (tc / tp),
            ">= 0.95")


# The Python and the C kernel of a row write the same output array: two arrays at addresses
# 4 KiB apart from the input differently ran the same stencil at 14.0 and 16.2 ms.
def stencil_data(ny=4096, nx=4096):
    return np.random.default_rng(1).random((ny, nx)), np.zeros((ny, nx))


def bench_stencil(lib, be, bid, nt, u, out):
    ny, nx = u.shape
    pol = porta.MDRangePolicy((1, 1), (ny - 1, nx - 1), space=be)
    porta.parallel_for(pol, stencil, u, out)
    py = out.copy()
    out[:] = 0.0
    lib.run_stencil(bid, u.ctypes.data, out.ctypes.data, ny, nx)
    want = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    assert np.array_equal(out, py) and np.allclose(out[1:-1, 1:-1], want), "stencil answers"
    tp, tc = [], []
    for _ in range(9):
        tp.append(median_time(lambda: porta.parallel_for(pol, stencil, u, out), 1))
        tc.append(lib.run_stencil(bid, u.ctypes.data, out.ctypes.data, ny, nx))
    tp, tc = statistics.median(tp), statistics.median(tc)
    return ratio_row("2D stencil %dx%d, %s x%d" % (ny, nx, be, nt), tp, tc)


def spmv_data(n=1024):
    """The 5-point Laplacian on an n x n grid in CSR (n^2 rows, ~5 n^2 entries)."""
    i, j = np.divmod(np.arange(n * n), n)
    entries = []
    for di, dj, v in ((-1, 0, -1.0), (0, -1, -1.0), (0, 0, 4.0), (0, 1, -1.0), (1, 0, -1.0)):
        ok = (i + di >= 0) & (i + di < n) & (j + dj >= 0) & (j + dj < n)
        entries.append((np.flatnonzero(ok), ((i + di) * n + j + dj)[ok], np.full(ok.sum(), v)))
    r = np.concatenate([e[0] for e in entries])
    c = np.concatenate([e[1] for e in entries])
    v = np.concatenate([e[2] for e in entries])
    order = np.lexsort((c, r))
    row_ptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=n * n))]).astype(np.int64)
    x = np.random.default_rng(2).random(n * n)
    return row_ptr, c[order].astype(np.int32), v[order], x


def bench_spmv(lib, be, bid, nt, row_ptr, cols, vals, x):
    nrows = len(row_ptr) - 1
    y = np.zeros(nrows)
    pol = porta.TeamPolicy(nrows, porta.AUTO, space=be)
    porta.parallel_for(pol, spmv, row_ptr, cols, vals, x, y)
    y2 = y.copy()
    y[:] = 0.0
    args = (row_ptr.ctypes.data, cols.ctypes.data, vals.ctypes.data, x.ctypes.data)
    lib.run_spmv(bid, *args, y.ctypes.data, nrows)
    n = int(round(nrows ** 0.5))
    xs = x.reshape(n, n)
    want = 4.0 * xs
    want[1:, :] -= xs[:-1, :]
    want[:-1, :] -= xs[1:, :]
    want[:, 1:] -= xs[:, :-1]
    want[:, :-1] -= xs[:, 1:]
    assert np.array_equal(y, y2) and np.allclose(y, want.ravel()), "spmv answers"
    tp, tc = [], []
    for _ in range(9):
        tp.append(median_time(lambda: porta.parallel_for(pol, spmv, row_ptr, cols, vals, x, y),
                              1))
        tc.append(lib.run_spmv(bid, *args, y.ctypes.data, nrows))
    tp, tc = statistics.median(tp), statistics.median(tc)
    return ratio_row("team SpMV 2^20 rows, %s x%d" % (be, nt), tp, tc)


def lj_data(n=1 << 15, nn=48):
    """Atoms on a jittered cubic lattice, each with nn random neighbours among the nearby."""
    rng = np.random.default_rng(3)
    side = int(round(n ** (1 / 3))) + 1
    g = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
    pos = g * 1.1 + rng.random((n, 3)) * 0.1
    neigh = (np.arange(n)[:, None] + rng.integers(1, 400, (n, nn))) % n
    return pos, neigh.astype(np.int32)


def bench_lj(lib, be, bid, nt, pos, neigh):
    n, nn = neigh.shape
    f = np.zeros((n, 3))
    cut2, sigma6, eps = 2.5 ** 2, 1.0, 1.0
    pol = porta.RangePolicy(0, n, space=be)
    porta.parallel_for(pol, lj_force, pos, neigh, cut2, sigma6, eps, f)
    f2 = f.copy()
    f[:] = 0.0
    c_args = (pos.ctypes.data, neigh.ctypes.data, n, nn, cut2, sigma6, eps, f.ctypes.data)
    lib.run_lj(bid, *c_args)
    d = pos[:, None, :] - pos[neigh]
    r2 = (d * d).sum(-1)
    s6 = sigma6 / r2 ** 3
    fr = np.where(r2 < cut2, 24.0 * eps * s6 * (2.0 * s6 - 1.0) / r2, 0.0)
    want = (d * fr[..., None]).sum(1)
    assert np.array_equal(f, f2) and np.allclose(f, want, rtol=1e-10, atol=1e-8), "LJ answers"
    tp, tc = [], []
    for _ in range(9):
        tp.append(median_time(lambda: porta.parallel_for(pol, lj_force, pos, neigh, cut2, sigma6,
                                                         eps, f), 1))
        tc.append(lib.run_lj(bid, *c_args))
    tp, tc = statistics.median(tp), statistics.median(tc)
    return ratio_row("LJ force 2^15 atoms x %d, %s x%d" % (nn, be, nt), tp, tc)


def main():
    porta.init(args=[a for a in sys.argv[1:] if a.startswith("--porta-")])
    lib = ctypes.CDLL(cache.build(C_SRC, "bench_c"))
    lib.c_axpy_launch.restype = D
    lib.c_axpy_launch.argtypes = [ctypes.c_int, D, P, P, I64, ctypes.c_int]
    lib.run_triad.restype = D
    lib.run_triad.argtypes = [ctypes.c_int, D, P, P, P, I64]
    lib.run_dot.restype = D
    lib.run_dot.argtypes = [ctypes.c_int, P, P, I64, ctypes.POINTER(D)]
    lib.run_stencil.restype = D
    lib.run_stencil.argtypes = [ctypes.c_int, P, P, I64, I64]
    lib.run_spmv.restype = D
    lib.run_spmv.argtypes = [ctypes.c_int, P, P, P, P, P, I64]
    lib.run_lj.restype = D
    lib.run_lj.argtypes = [ctypes.c_int, P, P, I64, I64, D, D, D, P]
    sten = stencil_data()
    csr = spmv_data()
    lj = lj_data()
    rows = []
    spaces = [("serial", 1)] + ([("openmp", porta.num_threads())]
                                if porta.backend_available("openmp") else [])
    threads0 = porta.num_threads()
    for be, nt in spaces:
        porta.set_num_threads(nt)
        bid = _core.backend_id(be)
        pol = porta.RangePolicy(0, 8, space=be)
        xs, ys = np.ones(8), np.zeros(8)
        porta.parallel_for(pol, axpy, 1.0, xs, ys)
        reps = 20000
        py = []
        c = []
        for _ in range(7):
            t0 = time.perf_counter()
            for _ in range(reps):
                porta.parallel_for(pol, axpy, 1.0, xs, ys)
            py.append((time.perf_counter() - t0) / reps)
            c.append(lib.c_axpy_launch(bid, 1.0, xs.ctypes.data, ys.ctypes.data, 8, reps))
        pm, cm = statistics.median(py), statistics.median(c)
        rows.append(("launch axpy n=8, %s x%d" % (be, nt), "%.2f us" % (pm * 1e6),
                     "%.2f us" % (cm * 1e6), "+%.2f us" % ((pm - cm) * 1e6), "<= +1 us"))

        n = 1 << 24
        b, cc, out, out2 = np.random.rand(n), np.random.rand(n), np.zeros(n), np.zeros(n)
        porta.parallel_for(porta.RangePolicy(0, n, space=be), triad, 3.0, b, cc, out)
        lib.run_triad(bid, 3.0, b.ctypes.data, cc.ctypes.data, out2.ctypes.data, n)
        assert np.array_equal(out, out2) and np.allclose(out, b + 3.0 * cc), "triad answers"
        tp = median_time(lambda: porta.parallel_for(porta.RangePolicy(0, n, space=be), triad,
                                                    3.0, b, cc, out), 9)
        tc = statistics.median(lib.run_triad(bid, 3.0, b.ctypes.data, cc.ctypes.data,
                                           out2.ctypes.data, n) for _ in range(9))
        rows.append(("triad 2^24, %s x%d" % (be, nt), "%.2f ms" % (tp * 1e3),
                     "%.2f ms" % (tc * 1e3), "C/Py %.3f" % (tc / tp), ">= 0.95"))
        r = D()
        dp = porta.parallel_reduce(porta.RangePolicy(0, n, space=be), dot, b, cc)
        lib.run_dot(bid, b.ctypes.data, cc.ctypes.data, n, ctypes.byref(r))
        assert abs(dp - r.value) <= 1e-9 * abs(r.value), "dot answers"
        tp = median_time(lambda: porta.parallel_reduce(porta.RangePolicy(0, n, space=be), dot,
                                                       b, cc), 9)
        tc = statistics.median(lib.run_dot(bid, b.ctypes.data, cc.ctypes.data, n,
                                             ctypes.byref(r)) for _ in range(9))
        rows.append(("dot 2^24, %s x%d" % (be, nt), "%.2f ms" % (tp * 1e3),
                     "%.2f ms" % (tc * 1e3), "C/Py %.3f" % (tc / tp), ">= 0.95"))
        rows.append(bench_stencil(lib, be, bid, nt, *sten))
        rows.append(bench_spmv(lib, be, bid, nt, *csr))
        rows.append(bench_lj(lib, be, bid, nt, *lj))
    porta.set_num_threads(threads0)

    # Cold compile and cached load, in fresh processes with a fresh cache.
    with tempfile.TemporaryDirectory(prefix="porta-bench-cache-") as d:
        cold, ncomp, compile_s = child_load_time(d, "cold")
        assert ncomp == 1
        warm = statistics.median(child_load_time(d, "warm")[0] for _ in range(5))
    rows.append(("cold compile, 3-kernel module (cc)", "%.3f s" % compile_s, "",
                 "import + launch %.3f s" % cold, "<= 0.5 s"))
    rows.append(("cached module: import + first launch", "%.2f ms" % (warm * 1e3), "", "",
                 "<= 5 ms"))

    w = [max(len(str(r[k])) for r in rows + [("row", "Python", "C", "result", "target")])
         for k in range(5)]
    head = ("row", "Python", "C", "result", "target")
    print("  ".join(h.ljust(w[k]) for k, h in enumerate(head)))
    for r in rows:
        print("  ".join(str(v).ljust(w[k]) for k, v in enumerate(r)))


if __name__ == "__main__":
    main()
