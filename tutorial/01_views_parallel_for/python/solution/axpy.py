"""Exercise 01 in Python, solution: y = a*x + y as a Porta kernel on views.

    build/python-venv/bin/python tutorial/01_views_parallel_for/python/solution/axpy.py
    build/python-venv/bin/python tutorial/01_views_parallel_for/python/solution/axpy.py \\
        --porta-backend=serial
    PORTA_BACKEND=openmp PORTA_NUM_THREADS=2 build/python-venv/bin/python \\
        tutorial/01_views_parallel_for/python/solution/axpy.py

The NumPy original (../begin/axpy.py):

    x = np.arange(n, dtype=np.float64)
    y = np.full(n, 2.0)
    y += a * x

Ported: x and y are porta.Views in the default back end's memory (the GPU's on a CUDA run),
filled on the host through host mirrors and porta.deep_copy, updated by a kernel launched
with porta.parallel_for, and copied back to the host mirror for the check.
Answer: y[i] = 3 i + 2 for every i, and sum(y) = 1500000500000 (exact in doubles).
"""
import sys

import numpy as np

import porta


# The kernel: the leading `i: int` is the index of the range, the other parameters are the
# launch's arguments (Kokkos: the lambda's captures). `float` is a double, porta.f64[:] a
# one-dimensional array of doubles (a View, or a NumPy array on the host back ends).
@porta.kernel
def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
    y[i] += a * x[i]


def main():
    porta.init()  # reads --porta-backend=... from sys.argv and PORTA_* from the environment
    n = 1_000_000
    a = 3.0

    # Views in the default memory space (Kokkos: View<double *> x("x", n)).
    x = porta.View(n, porta.f64, label="x")
    y = porta.View(n, porta.f64, label="y")
    # Host mirrors (Kokkos: create_mirror_view): the view itself where the host can read it
    # (Serial, OpenMP), else a new host view of the same shape. numpy.asarray shares memory.
    hx = porta.create_mirror_view(x)
    hy = porta.create_mirror_view(y)
    np.asarray(hx)[:] = np.arange(n, dtype=np.float64)
    np.asarray(hy)[:] = 2.0
    porta.deep_copy(x, hx)  # host -> the view's memory (nothing to do when hx is x)
    porta.deep_copy(y, hy)

    porta.parallel_for(n, axpy, a, x, y)  # the range [0, n) on the default back end

    porta.deep_copy(hy, y)  # fences first: the kernel has finished when the copy starts
    got = np.asarray(hy)
    want = 3.0 * np.arange(n, dtype=np.float64) + 2.0
    errors = int(np.count_nonzero(got != want))  # exact: every value is an integer
    for i in np.flatnonzero(got != want)[:3]:
        print("y[%d] = %.17g, want %.17g" % (i, got[i], want[i]), file=sys.stderr)
    total = float(got.sum())
    ok = errors == 0 and total == 1500000500000.0
    print("01_views_parallel_for: backend=%s threads=%d n=%d sum(y)=%.0f errors=%d %s"
          % (porta.backend(), porta.num_threads(), n, total, errors, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
