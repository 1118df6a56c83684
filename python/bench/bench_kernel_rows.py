"""The kernel rows of scripts/bench-python: each kernel of bench_kernels.py run from Python and
from C on the same arrays (the answers checked first), timed in turn (medians), as a row of the
table: launch overhead, triad and dot, the exact dot (porta.ExactSum) and what it costs over the
plain dot, a 2D stencil, a team SpMV and an LJ force kernel."""
import ctypes
import math
import statistics
import struct
import time

import numpy as np

import porta
from bench_kernels import D, axpy, dot, exact_dot, lj_force, spmv, stencil, triad


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


def alternate_all(fns, samples=9):
    """Medians of `samples` timings of each of fns, taken in turn."""
    ts = [[] for _ in fns]
    for _ in range(samples):
        for t, fn in zip(ts, fns):
            t.append(fn())
    return [statistics.median(t) for t in ts]


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


def bench_exact_dot(lib, m, bid, nt, n):
    """The dot summed exactly (porta.ExactSum; in C the reducer porta_xsum_f64), from Python and
    from C, and the plain Python dot (porta.Sum[porta.f64]) timed in turn with them. Checked
    first: Python's exact dot has the C one's bits and, on the host, math.fsum's of the same
    rounded products (on CUDA nvcc may contract a product into the first addition, as in C)."""
    rng = np.random.default_rng(0)
    b0, c0 = rng.random(n), rng.random(n)
    b, cc = m.put(b0), m.put(c0)
    pol = porta.RangePolicy(0, n, space=m.be)
    r = D()
    xp = porta.parallel_reduce(pol, exact_dot, b, cc)
    lib.run_exact_dot(bid, m.ptr(b), m.ptr(cc), n, ctypes.byref(r), 1)
    want = math.fsum(b0 * c0)
    same = struct.pack("<d", xp) == struct.pack("<d", want)
    assert struct.pack("<d", xp) == struct.pack("<d", r.value), "exact dot answers (Python, C)"
    assert same or (m.cuda and abs(xp - want) <= 1e-12 * want), "exact dot answers (fsum)"
    tx, tc, tp = alternate_all([
        lambda: m.time(lambda: porta.parallel_reduce(pol, exact_dot, b, cc)),
        lambda: lib.run_exact_dot(bid, m.ptr(b), m.ptr(cc), n, ctypes.byref(r), m.reps),
        lambda: m.time(lambda: porta.parallel_reduce(pol, dot, b, cc))])
    e = "2^%d" % (n.bit_length() - 1)
    unit, k = ("us", 1e6) if tp < 1e-3 else ("ms", 1e3)
    return [ratio_row("exact dot %s, %s x%d" % (e, m.be, nt), tx, tc),
            ("exact / plain dot (Python) %s, %s x%d" % (e, m.be, nt),
             "%.2f / %.2f %s" % (tx * k, tp * k, unit), "", "time x%.3f" % (tx / tp), "")]


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
