"""axpy and dot written in Python, run by Porta on the back end chosen at run time, and
checked against NumPy.

    build/python-venv/bin/python examples/python/axpy_dot.py                       # default
    build/python-venv/bin/python examples/python/axpy_dot.py --porta-backend=serial
    PORTA_BACKEND=openmp PORTA_NUM_THREADS=2 build/python-venv/bin/python \\
        examples/python/axpy_dot.py

The first run translates the two kernels to C, compiles them with the C compiler and caches
the module (~/.cache/porta, or $PORTA_CACHE_DIR); later runs load it from the cache.
"""
import sys

import numpy as np

import porta


# A kernel is a decorated function. The leading `int` parameter is the index of the range;
# the others are the launch's arguments: a scalar (float means double) and two
# one-dimensional float64 arrays (porta.f64[:]). The body is C once translated.
@porta.kernel
def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
    y[i] += a * x[i]


# A reduction: the accumulator parameter (porta.Sum[porta.f64]: a sum of doubles) is added to
# as a local variable; Porta combines the partial sums of the threads.
@porta.kernel
def dot(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:], y: porta.f64[:]):
    acc += x[i] * y[i]


def main():
    porta.init()  # reads --porta-backend=... from sys.argv and PORTA_* from the environment
    n = 1_000_003
    x = np.arange(n, dtype=np.float64) % 3 + 1  # 1, 2, 3, 1, 2, 3, ...
    y = np.arange(n, dtype=np.float64) % 5  # 0 .. 4

    # NumPy arrays are passed as they are: the kernel reads and writes their memory.
    want_y = y + 0.5 * x
    porta.parallel_for(n, axpy, 0.5, x, y)  # the range [0, n) on the default back end
    ok = np.array_equal(y, want_y)

    # The reduced value comes back as a Python float. The values are multiples of 0.5, so the
    # sum is exact in any order.
    d = porta.parallel_reduce(n, dot, x, y)
    ok = ok and d == float(np.dot(x, y))

    print("axpy_dot: backend=%s threads=%d dot=%.1f %s"
          % (porta.backend(), porta.num_threads(), d, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
