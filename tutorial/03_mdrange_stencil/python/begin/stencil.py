"""Exercise 03 in Python, begin: a 2D heat (Jacobi) stencil in NumPy, to port to a Porta
kernel over a 2D range.

    build/python-venv/bin/python tutorial/03_mdrange_stencil/python/begin/stencil.py

This program runs as it is: NumPy's slices compute the steps on the host. Port the step to a
kernel over the interior box of 2D views (the TODO(tutorial) comments). The finished program
is ../solution/stencil.py.
Answers: (1) a linear field u = 1 + 2 i + 3 j is a fixed point of the stencil (unchanged, bit
for bit, after 50 steps); (2) a plate heated along its i = 0 edge, after 200 steps with
r = 0.2, has sum(u)=937.281497.
"""
import sys

import numpy as np

import porta

# TODO(tutorial): the kernel of one step. Two leading index parameters make it a kernel over a
# 2D box; the element (i, j) of the slice expression below is
#   unew[i, j] = c + r * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * c)
# with c = u[i, j]; the arrays are annotated porta.f64[:, :].


def run_heat(u0, r, nsteps):
    """nsteps steps from the field u0 (border included); the result."""
    nx, ny = u0.shape
    # TODO(tutorial): make u and unew 2D views, porta.View((nx, ny), porta.f64), fill u
    # through its host mirror (porta.create_mirror_view: the same layout, which deep_copy
    # needs) and copy u into unew (the fixed border in both).
    u = u0.copy()
    unew = u0.copy()
    # TODO(tutorial): the interior box is porta.MDRangePolicy((1, 1), (nx - 1, ny - 1));
    # replace the slice expression by porta.parallel_for(interior, heat_step, r, u, unew).
    for _ in range(nsteps):
        unew[1:-1, 1:-1] = u[1:-1, 1:-1] + r * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                                + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
        u, unew = unew, u
    # TODO(tutorial): return the values on the host: porta.create_mirror_view_and_copy(u).
    return u


def main():
    porta.init()
    nx, ny = 194, 130  # not square: i and j mixed up would show
    i, j = np.meshgrid(np.arange(nx, dtype=np.float64), np.arange(ny, dtype=np.float64),
                       indexing="ij")
    linear = 1.0 + 2.0 * i + 3.0 * j
    moved = int(np.count_nonzero(run_heat(linear, 0.25, 50) != linear))
    plate = run_heat(np.where(i == 0, 1.0, 0.0), 0.2, 200)
    # TODO(tutorial): keep this NumPy loop as the reference and compare the kernel's result
    # with it (max |difference| <= 1e-13).
    print("03_mdrange_stencil begin: backend=%s (NumPy, not ported yet) nx=%d ny=%d "
          "linear_fixed_point=%s sum(u)=%.6f"
          % (porta.backend(), nx, ny, "no" if moved else "exact", plate.sum()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
