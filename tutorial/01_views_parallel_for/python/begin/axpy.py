"""Exercise 01 in Python, begin: y = a*x + y in NumPy, to port to a Porta kernel on views.

    build/python-venv/bin/python tutorial/01_views_parallel_for/python/begin/axpy.py

This program runs as it is: NumPy computes the answer on the host. Port it step by step (the
TODO(tutorial) comments) until the update runs as a Porta kernel on the back end chosen at
run time (--porta-backend=serial|openmp|cuda, PORTA_BACKEND, PORTA_NUM_THREADS); the
finished program is ../solution/axpy.py.
Answer: y[i] = 3 i + 2 for every i, and sum(y) = 1500000500000 (exact in doubles).
"""
import sys

import numpy as np

import porta

# TODO(tutorial): write the kernel, a function decorated with @porta.kernel whose first
# parameter is the index (i: int) and whose others are the launch's arguments, annotated:
#   def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
#       y[i] += a * x[i]


def main():
    porta.init()  # reads --porta-backend=... from sys.argv and PORTA_* from the environment
    n = 1_000_000
    a = 3.0

    # TODO(tutorial): make x and y views in the default memory space (the GPU's on a CUDA
    # run): porta.View(n, porta.f64, label="x"). Fill them on the host through mirrors:
    # hx = porta.create_mirror_view(x) is x itself where the host can read x; numpy.asarray(hx)
    # is its memory (no copy); porta.deep_copy(x, hx) copies it to the view.
    x = np.arange(n, dtype=np.float64)
    y = np.full(n, 2.0)

    # TODO(tutorial): replace this line by the launch over [0, n):
    # porta.parallel_for(n, axpy, a, x, y)
    y += a * x

    # TODO(tutorial): copy y back to its host mirror (porta.deep_copy(hy, y)) and check the
    # mirror's values (numpy.asarray(hy)) against 3 i + 2, counting the wrong ones.
    total = y.sum()
    print("01_views_parallel_for begin: backend=%s (NumPy, not ported yet) n=%d sum(y)=%.0f"
          % (porta.backend(), n, total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
