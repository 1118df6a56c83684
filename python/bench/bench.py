"""scripts/bench-python: Porta's Python kernels against the same kernels written in C with
Porta, one table (answers checked first; medians of repeated runs; ratios from this run).

Rows: launch overhead (a launch of axpy on 8 elements from Python with NumPy arguments,
minus the same launch from C), triad and dot bandwidth kernels, a 2D stencil on an mdrange,
a team SpMV (a league rank per row, a nested team reduction) and a Lennard-Jones force kernel
with a device function (Python time / C time), cold compile of a module and a cached
module's load (fresh processes).

With --porta-backend=cuda the same rows run on the GPU: the arrays are Views of space "cuda",
the C kernels are the same C compiled by nvcc, each timing is 10 launches and a fence, the
cold compile is nvcc's, and Numba's and CuPy's triads and launches are reference rows where
they are installed.
"""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import bench_apps
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


class Mem:
    """Where a row's arrays live: NumPy arrays for the host back ends, Views of space "cuda"
    (LayoutRight, as the C kernels index them) for CUDA. `reps` launches are timed together
    and end with a fence on CUDA (launches are asynchronous); the host times one launch."""

    def __init__(self, be):
        self.be, self.cuda = be, be == "cuda"
        self.reps = 10 if self.cuda else 1

    def put(self, a):
        if not self.cuda:
            return a
        v = porta.View(a.shape, a.dtype, space="cuda", layout="C")
        porta.deep_copy(v, np.ascontiguousarray(a))
        return v

    def zeros(self, shape, dtype=np.float64):
        return porta.View(shape, dtype, space="cuda", layout="C") if self.cuda \
            else np.zeros(shape, dtype)

    def get(self, a):
        return a.to_numpy() if self.cuda else a

    def ptr(self, a):
        return a.data_ptr if self.cuda else a.ctypes.data

    def clear(self, a):
        if self.cuda:
            a.fill(0.0)
        else:
            a[...] = 0.0

    def time(self, fn):
        """Seconds per call of fn over self.reps calls (fenced on CUDA)."""
        t0 = time.perf_counter()
        for _ in range(self.reps):
            fn()
        if self.cuda:
            porta.fence()
        return (time.perf_counter() - t0) / self.reps

    def same(self, a, b):
        """The Python and the C answers: the same bits on the host; on CUDA nvcc may contract
        the two sources' expressions into FMAs differently, so within 1e-12."""
        return np.array_equal(a, b) if not self.cuda else np.allclose(a, b, rtol=1e-12,
                                                                        atol=1e-300)


def median_time(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def child_load_time(cache_dir, be="serial"):
    """A fresh process: import porta, init, import the 3-kernel module and launch its axpy.
    Returns (seconds for import + first launch, compiles made, that compile's seconds (nvcc's
    on CUDA), seconds of the module's import alone)."""
    arr = ("porta.View(8, space='cuda')" if be == "cuda" else "np.zeros(8)")
    key = "last_nvcc_compile_s" if be == "cuda" else "last_compile_s"
    code = ("import time, numpy as np; t0 = time.perf_counter(); import porta; "
            "porta.init(backend='%s', args=[]); x = %s; porta.fence(); "
            "t1 = time.perf_counter(); import bench_kernels_child as m; "
            "t2 = time.perf_counter(); porta.parallel_for(8, m.axpy, 1.0, x, x); porta.fence(); "
            "t3 = time.perf_counter(); print(t3 - t1, porta.cache.stats['compiles'], "
            "porta.cache.stats.get('%s', 0.0), t2 - t1)" % (be, arr, key))
    env = dict(os.environ, PORTA_CACHE_DIR=cache_dir,
               PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), int(out[1]), float(out[2]), float(out[3])


def compile_rows(cuda):
    """Cold compile (three fresh caches: the median and the range) and the cached module's
    import + first launch (five fresh processes: the median), in fresh processes."""
    be = "cuda" if cuda else "serial"
    colds = []
    for _ in range(3):
        with tempfile.TemporaryDirectory(prefix="porta-bench-cache-") as d:
            cold = child_load_time(d, be)
            assert cold[1] == 1
            colds.append(cold)
    with tempfile.TemporaryDirectory(prefix="porta-bench-cache-") as d:
        child_load_time(d, be)
        warm = sorted(child_load_time(d, be) for _ in range(5))[2]
    cs = sorted(c[2] for c in colds)
    return [("cold compile, 3-kernel module (%s)" % ("nvcc" if cuda else "cc"),
             "%.3f s" % cs[1], "", "min %.3f max %.3f s" % (cs[0], cs[2]),
             "<= 2 s" if cuda else "<= 0.5 s"),
            ("cached module: import + first launch", "%.2f ms" % (warm[0] * 1e3), "",
             "import %.2f ms" % (warm[3] * 1e3), "<= 5 ms")]


def ratio_row(name, tp, tc):
    unit, k = ("us", 1e6) if tc < 1e-3 else ("ms", 1e3)
    return (name, "%.2f %s" % (tp * k, unit), "%.2f %s" % (tc * k, unit),
            "C/Py %.3f" % (tc / tp), ">= 0.95")


def alternate(py, c, samples=9):
    """Medians of `samples` timings of py() and c(), taken in turn."""
    tp, tc = [], []
    for _ in range(samples):
        tp.append(py())
        tc.append(c())
    return statistics.median(tp), statistics.median(tc)


def bench_launch(lib, m, bid, nt, reps=20000):
    """A launch of axpy on 8 elements, from Python and from C, `reps` in a row."""
    pol = porta.RangePolicy(0, 8, space=m.be)
    xs, ys = m.put(np.ones(8)), m.put(np.zeros(8))
    porta.parallel_for(pol, axpy, 1.0, xs, ys)
    py, c = [], []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(reps):
            porta.parallel_for(pol, axpy, 1.0, xs, ys)
        if m.cuda:
            porta.fence()
        py.append((time.perf_counter() - t0) / reps)
        c.append(lib.c_axpy_launch(bid, 1.0, m.ptr(xs), m.ptr(ys), 8, reps))
    pm, cm = statistics.median(py), statistics.median(c)
    return ("launch axpy n=8, %s x%d" % (m.be, nt), "%.2f us" % (pm * 1e6),
            "%.2f us" % (cm * 1e6), "+%.2f us" % ((pm - cm) * 1e6),
            "<= +5 us" if m.cuda else "<= +1 us")


def bench_triad_dot(lib, m, bid, nt, n):
    rng = np.random.default_rng(0)
    b0, c0 = rng.random(n), rng.random(n)
    b, cc, out = m.put(b0), m.put(c0), m.zeros(n)
    pol = porta.RangePolicy(0, n, space=m.be)
    porta.parallel_for(pol, triad, 3.0, b, cc, out)
    got = m.get(out).copy()
    m.clear(out)
    lib.run_triad(bid, 3.0, m.ptr(b), m.ptr(cc), m.ptr(out), n, 1)
    assert m.same(got, m.get(out)) and np.allclose(got, b0 + 3.0 * c0), "triad answers"
    tp, tc = alternate(lambda: m.time(lambda: porta.parallel_for(pol, triad, 3.0, b, cc, out)),
                       lambda: lib.run_triad(bid, 3.0, m.ptr(b), m.ptr(cc), m.ptr(out), n,
                                             m.reps))
    e = "2^%d" % (n.bit_length() - 1)
    rows = [ratio_row("triad %s, %s x%d" % (e, m.be, nt), tp, tc)]
    r = D()
    dp = porta.parallel_reduce(pol, dot, b, cc)
    lib.run_dot(bid, m.ptr(b), m.ptr(cc), n, ctypes.byref(r), 1)
    assert abs(dp - r.value) <= 1e-9 * abs(r.value), "dot answers"
    assert abs(dp - float(b0 @ c0)) <= 1e-9 * abs(dp), "dot answers"
    tp, tc = alternate(lambda: m.time(lambda: porta.parallel_reduce(pol, dot, b, cc)),
                       lambda: lib.run_dot(bid, m.ptr(b), m.ptr(cc), n, ctypes.byref(r),
                                           m.reps))
    rows.append(ratio_row("dot %s, %s x%d" % (e, m.be, nt), tp, tc))
    return rows


# The Python and the C kernel of a row write the same output array: two arrays at addresses
# 4 KiB apart from the input differently ran the same stencil at 14.0 and 16.2 ms.
def bench_stencil(lib, m, bid, nt, ny, nx):
    u0 = np.random.default_rng(1).random((ny, nx))
    u, out = m.put(u0), m.zeros((ny, nx))
    pol = porta.MDRangePolicy((1, 1), (ny - 1, nx - 1), space=m.be)
    porta.parallel_for(pol, stencil, u, out)
    py = m.get(out).copy()
    m.clear(out)
    lib.run_stencil(bid, m.ptr(u), m.ptr(out), ny, nx, 1)
    got = m.get(out)
    want = 0.25 * (u0[:-2, 1:-1] + u0[2:, 1:-1] + u0[1:-1, :-2] + u0[1:-1, 2:])
    assert m.same(got, py) and np.allclose(got[1:-1, 1:-1], want), "stencil answers"
    tp, tc = alternate(lambda: m.time(lambda: porta.parallel_for(pol, stencil, u, out)),
                       lambda: lib.run_stencil(bid, m.ptr(u), m.ptr(out), ny, nx, m.reps))
    return ratio_row("2D stencil %dx%d, %s x%d" % (ny, nx, m.be, nt), tp, tc)


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


def bench_spmv(lib, m, bid, nt, row_ptr, cols, vals, x0):
    nrows = len(row_ptr) - 1
    rp, cl, vl, x, y = m.put(row_ptr), m.put(cols), m.put(vals), m.put(x0), m.zeros(nrows)
    pol = porta.TeamPolicy(nrows, porta.AUTO, space=m.be)
    porta.parallel_for(pol, spmv, rp, cl, vl, x, y)
    y2 = m.get(y).copy()
    m.clear(y)
    args = (m.ptr(rp), m.ptr(cl), m.ptr(vl), m.ptr(x), m.ptr(y), nrows)
    lib.run_spmv(bid, *args, 1)
    n = int(round(nrows ** 0.5))
    xs = x0.reshape(n, n)
    want = 4.0 * xs
    want[1:, :] -= xs[:-1, :]
    want[:-1, :] -= xs[1:, :]
    want[:, 1:] -= xs[:, :-1]
    want[:, :-1] -= xs[:, 1:]
    got = m.get(y)
    assert m.same(got, y2) and np.allclose(got, want.ravel()), "spmv answers"
    tp, tc = alternate(lambda: m.time(lambda: porta.parallel_for(pol, spmv, rp, cl, vl, x, y)),
                       lambda: lib.run_spmv(bid, *args, m.reps))
    return ratio_row("team SpMV 2^%d rows, %s x%d" % (nrows.bit_length() - 1, m.be, nt), tp, tc)


def lj_data(n=1 << 15, nn=48):
    """Atoms on a jittered cubic lattice, each with nn random neighbours among the nearby."""
    rng = np.random.default_rng(3)
    side = int(round(n ** (1 / 3))) + 1
    g = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
    pos = g * 1.1 + rng.random((n, 3)) * 0.1
    neigh = (np.arange(n)[:, None] + rng.integers(1, 400, (n, nn))) % n
    return pos, neigh.astype(np.int32)


def bench_lj(lib, m, bid, nt, pos0, neigh0):
    n, nn = neigh0.shape
    pos, neigh, f = m.put(pos0), m.put(neigh0), m.zeros((n, 3))
    cut2, sigma6, eps = 2.5 ** 2, 1.0, 1.0
    pol = porta.RangePolicy(0, n, space=m.be)
    porta.parallel_for(pol, lj_force, pos, neigh, cut2, sigma6, eps, f)
    f2 = m.get(f).copy()
    m.clear(f)
    c_args = (m.ptr(pos), m.ptr(neigh), n, nn, cut2, sigma6, eps, m.ptr(f))
    lib.run_lj(bid, *c_args, 1)
    d = pos0[:, None, :] - pos0[neigh0]
    r2 = (d * d).sum(-1)
    s6 = sigma6 / r2 ** 3
    fr = np.where(r2 < cut2, 24.0 * eps * s6 * (2.0 * s6 - 1.0) / r2, 0.0)
    want = (d * fr[..., None]).sum(1)
    got = m.get(f)
    assert m.same(got, f2) and np.allclose(got, want, rtol=1e-10, atol=1e-8), "LJ answers"
    tp, tc = alternate(lambda: m.time(lambda: porta.parallel_for(pol, lj_force, pos, neigh, cut2,
                                                                 sigma6, eps, f)),
                       lambda: lib.run_lj(bid, *c_args, m.reps))
    return ratio_row("LJ force 2^%d atoms x %d, %s x%d" % (n.bit_length() - 1, nn, m.be, nt),
                     tp, tc)


def load_c(cuda):
    lib = ctypes.CDLL(cache.build(C_SRC, "bench_c", cuda=cuda))
    lib.c_axpy_launch.restype = D
    lib.c_axpy_launch.argtypes = [INT, D, P, P, I64, INT]
    lib.run_triad.restype = D
    lib.run_triad.argtypes = [INT, D, P, P, P, I64, INT]
    lib.run_dot.restype = D
    lib.run_dot.argtypes = [INT, P, P, I64, ctypes.POINTER(D), INT]
    lib.run_stencil.restype = D
    lib.run_stencil.argtypes = [INT, P, P, I64, I64, INT]
    lib.run_spmv.restype = D
    lib.run_spmv.argtypes = [INT, P, P, P, P, P, I64, INT]
    lib.run_lj.restype = D
    lib.run_lj.argtypes = [INT, P, P, I64, I64, D, D, D, P, INT]
    return lib


def others_cuda(n, reps=10):
    """Rows for Numba's and CuPy's CUDA kernels where they are installed: a launch on 8
    elements and a triad (their time against Porta's C triad is in the triad row)."""
    rows = []
    rng = np.random.default_rng(0)
    b0, c0 = rng.random(n), rng.random(n)
    try:
        from numba import cuda as ncuda

        @ncuda.jit
        def nb_triad(a, b, c, out):
            i = ncuda.grid(1)
            if i < out.size:
                out[i] = b[i] + a * c[i]

        b, c, out = ncuda.to_device(b0), ncuda.to_device(c0), ncuda.device_array(n)
        small = [ncuda.to_device(np.ones(8)) for _ in range(3)]
        nb_triad[1, 32](3.0, *small)
        nb_triad[(n + 255) // 256, 256](3.0, b, c, out)
        ncuda.synchronize()
        assert np.allclose(out.copy_to_host(), b0 + 3.0 * c0), "numba triad answers"

        def launches(k=5000):
            t0 = time.perf_counter()
            for _ in range(k):
                nb_triad[1, 32](3.0, *small)
            ncuda.synchronize()
            return (time.perf_counter() - t0) / k

        def triad_t():
            t0 = time.perf_counter()
            for _ in range(reps):
                nb_triad[(n + 255) // 256, 256](3.0, b, c, out)
            ncuda.synchronize()
            return (time.perf_counter() - t0) / reps

        rows.append(("numba.cuda launch n=8 (reference)", "%.2f us" % (
            statistics.median(launches() for _ in range(5)) * 1e6), "", "", ""))
        rows.append(("numba.cuda triad 2^%d (reference)" % (n.bit_length() - 1), "%.2f ms" % (
            statistics.median(triad_t() for _ in range(9)) * 1e3), "", "", ""))
    except Exception as e:  # not installed, or no GPU for it
        rows.append(("numba.cuda", "not run: %s" % str(e).splitlines()[0][:60], "", "", ""))
    try:
        import cupy as cp

        k = cp.ElementwiseKernel("float64 a, float64 b, float64 c", "float64 out",
                                 "out = b + a * c", "cp_triad")
        b, c, out = cp.asarray(b0), cp.asarray(c0), cp.empty(n)
        small = [cp.ones(8) for _ in range(3)]
        k(3.0, small[0], small[1], small[2])
        k(3.0, b, c, out)
        cp.cuda.runtime.deviceSynchronize()
        assert np.allclose(cp.asnumpy(out), b0 + 3.0 * c0), "cupy triad answers"

        def launches(m=5000):
            t0 = time.perf_counter()
            for _ in range(m):
                k(3.0, small[0], small[1], small[2])
            cp.cuda.runtime.deviceSynchronize()
            return (time.perf_counter() - t0) / m

        def triad_t():
            t0 = time.perf_counter()
            for _ in range(reps):
                k(3.0, b, c, out)
            cp.cuda.runtime.deviceSynchronize()
            return (time.perf_counter() - t0) / reps

        rows.append(("cupy ElementwiseKernel launch n=8 (reference)", "%.2f us" % (
            statistics.median(launches() for _ in range(5)) * 1e6), "", "", ""))
        rows.append(("cupy triad 2^%d (reference)" % (n.bit_length() - 1), "%.2f ms" % (
            statistics.median(triad_t() for _ in range(9)) * 1e3), "", "", ""))
    except Exception as e:
        rows.append(("cupy", "not run: %s" % str(e).splitlines()[0][:60], "", "", ""))
    return rows


def others_host(n, nt, reps=5):
    """Rows for Numba's and Warp's CPU kernels where they are installed: a call on 8 elements
    and a triad (Numba: prange over the OpenMP threads' count; Warp: its CPU device), each
    with Porta's Python triad on OpenMP x nt timed in turn on the same arrays (C/Py there is
    the reference's time over Porta's)."""
    rows = []
    rng = np.random.default_rng(0)
    b, c = rng.random(n), rng.random(n)
    out = np.zeros(n)
    want = b + 3.0 * c
    small = [np.ones(8) for _ in range(3)]
    pol = porta.RangePolicy(0, n, space="openmp") if porta.backend_available("openmp") \
        else porta.RangePolicy(0, n, space="serial")

    def timed(fn, k):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        return (time.perf_counter() - t0) / k

    def porta_triad():
        return timed(lambda: porta.parallel_for(pol, triad, 3.0, b, c, out), reps)

    def add_rows(name, call_small, call_triad):
        launch = statistics.median(timed(call_small, 20000) for _ in range(5))
        tr, tp = alternate(lambda: timed(call_triad, reps), porta_triad)
        rows.append(("%s call n=8 (reference)" % name, "%.2f us" % (launch * 1e6), "", "", ""))
        rows.append(("%s triad 2^%d (reference) vs Porta Python" % (name, n.bit_length() - 1),
                     "%.2f ms (%.1f GB/s)" % (tp * 1e3, 24 * n / tp / 1e9),
                     "%.2f ms (%.1f GB/s)" % (tr * 1e3, 24 * n / tr / 1e9),
                     "ref/Porta %.3f" % (tr / tp), ""))
    try:
        import numba

        numba.set_num_threads(nt)

        @numba.njit(parallel=True, fastmath=False)
        def nb_triad(a, b, c, out):
            for i in numba.prange(out.size):
                out[i] = b[i] + a * c[i]

        @numba.njit
        def nb_triad_serial(a, b, c, out):  # the dispatch alone: no thread pool
            for i in range(out.size):
                out[i] = b[i] + a * c[i]

        nb_triad_serial(3.0, *small)
        out[:] = 0
        nb_triad(3.0, b, c, out)
        assert np.array_equal(out, want), "numba triad answers"
        add_rows("numba %s x%d (call: plain njit)" % (numba.__version__, nt),
                 lambda: nb_triad_serial(3.0, *small), lambda: nb_triad(3.0, b, c, out))
    except Exception as e:
        rows.append(("numba (CPU)", "not run: %s" % str(e).splitlines()[0][:60], "", "", ""))
    try:
        import warp as wp

        wp.config.quiet = True
        wp.init()

        @wp.kernel
        def wp_triad(a: float, b: wp.array(dtype=wp.float64), c: wp.array(dtype=wp.float64),
                     out: wp.array(dtype=wp.float64)):
            i = wp.tid()
            out[i] = b[i] + wp.float64(a) * c[i]

        wb, wc, wo = (wp.array(x, dtype=wp.float64, device="cpu") for x in (b, c, out))
        ws = [wp.array(x, dtype=wp.float64, device="cpu") for x in small]
        wp.launch(wp_triad, dim=8, inputs=[3.0] + ws, device="cpu")
        wp.launch(wp_triad, dim=n, inputs=[3.0, wb, wc, wo], device="cpu")
        assert np.array_equal(wo.numpy(), want), "warp triad answers"
        add_rows("warp %s (CPU, one thread)" % wp.config.version,
                 lambda: wp.launch(wp_triad, dim=8, inputs=[3.0] + ws, device="cpu"),
                 lambda: wp.launch(wp_triad, dim=n, inputs=[3.0, wb, wc, wo], device="cpu"))
    except Exception as e:
        rows.append(("warp (CPU)", "not run: %s" % str(e).splitlines()[0][:60], "", "", ""))
    return rows


def main():
    porta.init(args=[a for a in sys.argv[1:] if a.startswith("--porta-")])
    cuda = porta.backend() == "cuda"
    lib = load_c(cuda)
    rows = []
    if cuda:
        spaces = [("cuda", 1)]
        sizes = dict(n=1 << 26, sten=(8192, 8192), csr=spmv_data(1024), lj=lj_data(1 << 18))
    else:
        spaces = [("serial", 1)] + ([("openmp", porta.num_threads())]
                                    if porta.backend_available("openmp") else [])
        sizes = dict(n=1 << 24, sten=(4096, 4096), csr=spmv_data(1024), lj=lj_data())
    threads0 = porta.num_threads()
    for be, nt in spaces:
        if not cuda:
            porta.set_num_threads(nt)
        m = Mem(be)
        bid = _core.backend_id(be)
        rows.append(bench_launch(lib, m, bid, nt))
        rows += bench_triad_dot(lib, m, bid, nt, sizes["n"])
        rows.append(bench_stencil(lib, m, bid, nt, *sizes["sten"]))
        rows.append(bench_spmv(lib, m, bid, nt, *sizes["csr"]))
        rows.append(bench_lj(lib, m, bid, nt, *sizes["lj"]))
    if not cuda:
        porta.set_num_threads(threads0)

    rows += compile_rows(cuda)
    if cuda:
        rows += others_cuda(sizes["n"])
    else:
        rows += others_host(sizes["n"], threads0)
    if "--no-apps" not in sys.argv[1:]:
        rows += bench_apps.rows(cuda, threads0)

    head = ("row", "Python", "C", "result", "target")
    w = [max(len(str(r[k])) for r in rows + [head]) for k in range(5)]
    print("  ".join(h.ljust(w[k]) for k, h in enumerate(head)))
    for r in rows:
        print("  ".join(str(v).ljust(w[k]) for k, v in enumerate(r)))


if __name__ == "__main__":
    main()
