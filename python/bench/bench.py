"""scripts/bench-python: Porta's Python kernels against the same kernels written in C with
Porta, one table (answers checked first; medians of repeated runs; ratios from this run).

Rows: launch overhead (a launch of axpy on 8 elements from Python with NumPy arguments,
minus the same launch from C), triad and dot bandwidth kernels (Python time / C time), cold
compile of a module and a cached module's load (fresh processes).
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


def main():
    porta.init(args=[a for a in sys.argv[1:] if a.startswith("--porta-")])
    lib = ctypes.CDLL(cache.build(C_SRC, "bench_c"))
    lib.c_axpy_launch.restype = D
    lib.c_axpy_launch.argtypes = [ctypes.c_int, D, P, P, I64, ctypes.c_int]
    lib.run_triad.restype = D
    lib.run_triad.argtypes = [ctypes.c_int, D, P, P, P, I64]
    lib.run_dot.restype = D
    lib.run_dot.argtypes = [ctypes.c_int, P, P, I64, ctypes.POINTER(D)]
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
