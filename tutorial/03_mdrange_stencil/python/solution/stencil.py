"""Exercise 03 in Python, solution: a 2D heat (Jacobi) stencil over a multi-dimensional range.

    build/python-venv/bin/python tutorial/03_mdrange_stencil/python/solution/stencil.py
    build/python-venv/bin/python tutorial/03_mdrange_stencil/python/solution/stencil.py \\
        --porta-backend=serial

The NumPy original (../begin/stencil.py; u is nx x ny, the border fixed):

    for step in range(nsteps):
        unew[1:-1, 1:-1] = u[1:-1, 1:-1] + r * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                                + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
        u, unew = unew, u

Ported: u and unew are 2D views in the default memory space and its default layout (C order,
"right", on the host; Fortran order, "left", on a GPU), the slice expression is one kernel
over the box [1, nx-1) x [1, ny-1) (porta.MDRangePolicy), and the host fills and reads the
fields through mirrors, which keep the views' layout; numpy.asarray(mirror)[i, j] is right in
either layout, and so is u[i, j] in the kernel.
Answers: (1) a linear field u = 1 + 2 i + 3 j is a fixed point: unchanged, bit for bit, after
50 steps; (2) a plate heated along its i = 0 edge, after 200 steps with r = 0.2, agrees with
the NumPy loop to 1e-13 (bitwise on the host back ends; a GPU may fuse multiply-adds), and its
total heat is sum(u)=937.281497.
"""
import sys

import numpy as np

import porta


# Two leading `int` parameters: the kernel runs over a 2D box. The last index is the innermost
# loop on the host. u[i, j] indexes any layout (the kernel is specialised on it).
@porta.kernel
def heat_step(i: int, j: int, r: float, u: porta.f64[:, :], unew: porta.f64[:, :]):
    c = u[i, j]
    unew[i, j] = c + r * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * c)


def run_heat(u0, r, nsteps):
    """nsteps steps from the NumPy field u0 (border included) on the default back end; the
    result as a NumPy array."""
    nx, ny = u0.shape
    # 2D views (Kokkos: View<double **> u("u", nx, ny)) in the space's default layout.
    u = porta.View((nx, ny), porta.f64, label="u")
    unew = porta.View((nx, ny), porta.f64, label="unew")
    h = porta.create_mirror_view(u)  # same shape and layout as u: deep_copy never converts
    np.asarray(h)[...] = u0  # NumPy copies into either layout
    porta.deep_copy(u, h)
    porta.deep_copy(unew, u)  # the fixed border in both

    interior = porta.MDRangePolicy((1, 1), (nx - 1, ny - 1))  # [1, nx-1) x [1, ny-1)
    for _ in range(nsteps):
        porta.parallel_for(interior, heat_step, r, u, unew)
        u, unew = unew, u  # swap the handles, not the data
    return np.array(porta.create_mirror_view_and_copy(u)), u.layout


def numpy_heat(u, r, nsteps):
    """The NumPy original (the reference)."""
    u = u.copy()
    unew = u.copy()
    for _ in range(nsteps):
        unew[1:-1, 1:-1] = u[1:-1, 1:-1] + r * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                                + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
        u, unew = unew, u
    return u


def main():
    porta.init()
    nx, ny = 194, 130  # not square: i and j mixed up would show
    ok = True
    i, j = np.meshgrid(np.arange(nx, dtype=np.float64), np.arange(ny, dtype=np.float64),
                       indexing="ij")

    # (1) A linear field is a fixed point of the stencil: exactly, in any order.
    linear = 1.0 + 2.0 * i + 3.0 * j
    got, layout = run_heat(linear, 0.25, 50)
    moved = int(np.count_nonzero(got != linear))
    if moved:
        print("linear field: %d values changed (a fixed point must not)" % moved,
              file=sys.stderr)
        ok = False

    # (2) A plate heated along its i = 0 edge, against the NumPy loop.
    r, nsteps = 0.2, 200
    plate = np.where(i == 0, 1.0, 0.0)
    got, _ = run_heat(plate, r, nsteps)
    ref = numpy_heat(plate, r, nsteps)
    max_diff = float(np.max(np.abs(got - ref)))  # a NaN gives NaN, which fails below
    if not max_diff <= 1e-13:
        print("heated plate: max |u - numpy| = %.3g, want <= 1e-13" % max_diff, file=sys.stderr)
        ok = False
    total = float(got.sum())
    if not abs(total - 937.281497) <= 5e-7:  # the C exercise's answer, to its printed digits
        print("heated plate: sum(u) = %.9f, want 937.281497" % total, file=sys.stderr)
        ok = False

    print("03_mdrange_stencil: backend=%s threads=%d layout=%s nx=%d ny=%d "
          "linear_fixed_point=%s sum(u)=%.6f max_diff_vs_numpy=%.3g %s"
          % (porta.backend(), porta.num_threads(), layout, nx, ny,
             "no" if moved else "exact", total, max_diff, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
