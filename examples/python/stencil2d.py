"""A 2D heat-equation stencil on a multi-dimensional range, written in Python, run by Porta on
the back end chosen at run time, and checked against NumPy.

    build/python-venv/bin/python examples/python/stencil2d.py [--porta-backend=serial]
"""
import sys

import numpy as np

import porta


# Two leading `int` parameters: the kernel runs over a 2D box (porta.MDRangePolicy), the last
# index innermost on the host. a[i, j] is right for any NumPy layout: the kernel is
# specialised on each array's layout (C order here, so j is the unit stride).
@porta.kernel
def heat_step(i: int, j: int, c: float, u: porta.f64[:, :], out: porta.f64[:, :]):
    out[i, j] = u[i, j] + c * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                               - 4.0 * u[i, j])


# The largest change of a step: a Max reduction over the same box.
@porta.kernel
def max_change(i: int, j: int, acc: porta.Max[porta.f64], u: porta.f64[:, :],
               out: porta.f64[:, :]):
    acc = max(acc, abs(out[i, j] - u[i, j]))


def numpy_step(u, c):
    out = u.copy()
    out[1:-1, 1:-1] = u[1:-1, 1:-1] + c * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                          + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return out


def main():
    porta.init()
    ny, nx, c = 200, 300, 0.2
    u = np.zeros((ny, nx))
    u[ny // 3:2 * ny // 3, nx // 3:2 * nx // 3] = 1.0  # a hot square, cold borders
    ref = u.copy()
    out = u.copy()
    interior = porta.MDRangePolicy((1, 1), (ny - 1, nx - 1))  # the box [1, ny-1) x [1, nx-1)
    for _ in range(50):
        porta.parallel_for(interior, heat_step, c, u, out)
        change = porta.parallel_reduce(interior, max_change, u, out)
        u, out = out, u  # the new field is the next step's input
        want = numpy_step(ref, c)
        ok = np.allclose(u, want, rtol=1e-14, atol=1e-14) and \
            change == np.abs(want - ref).max()
        ref = want
        if not ok:
            break
    print("stencil2d: backend=%s threads=%d sum=%.6f %s"
          % (porta.backend(), porta.num_threads(), u.sum(), "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
