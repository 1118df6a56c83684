"""One Python source on every back end, the GPU included: a 2D heat equation whose fields are
Porta views in the default back end's memory (the GPU's on CUDA, the host's otherwise), filled
and read through host mirrors as a C or Kokkos program does, and checked against NumPy.

    build/python-venv/bin/python examples/python/heat_views.py [--porta-backend=cuda]

NumPy arrays are host memory, which a CUDA kernel cannot read (it raises TypeError naming the
argument): a program meant for every back end keeps its fields in views and copies them with
porta.deep_copy. On the host the mirrors are the views themselves, so nothing is copied.
"""
import sys

import numpy as np

import porta


@porta.kernel
def heat_step(i: int, j: int, c: float, u: porta.f64[:, :], out: porta.f64[:, :]):
    out[i, j] = u[i, j] + c * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                               - 4.0 * u[i, j])


@porta.kernel
def total_heat(i: int, j: int, acc: porta.Sum[porta.f64], u: porta.f64[:, :]):
    acc += u[i, j]


def main():
    porta.init()  # --porta-backend=... or PORTA_BACKEND choose the back end
    ny, nx, c, steps = 200, 300, 0.2, 50
    # Views in the default memory space, C-ordered (as NumPy's) whatever the space's default.
    u = porta.View((ny, nx), porta.f64, layout="C", label="u")
    out = porta.View((ny, nx), porta.f64, layout="C", label="out")
    host = porta.create_mirror_view(u)  # u itself when the host can read it
    a = np.asarray(host)  # no copy
    a[...] = 0.0
    a[ny // 3:2 * ny // 3, nx // 3:2 * nx // 3] = 1.0  # a hot square, cold borders
    porta.deep_copy(u, host)  # to the device (nothing to do when host is u)
    porta.deep_copy(out, u)
    ref = a.copy()

    interior = porta.MDRangePolicy((1, 1), (ny - 1, nx - 1))
    for _ in range(steps):
        porta.parallel_for(interior, heat_step, c, u, out)
        u, out = out, u
        ref[1:-1, 1:-1] = ref[1:-1, 1:-1] + c * (ref[:-2, 1:-1] + ref[2:, 1:-1] + ref[1:-1, :-2]
                                                 + ref[1:-1, 2:] - 4.0 * ref[1:-1, 1:-1])
    total = porta.parallel_reduce(porta.MDRangePolicy((0, 0), (ny, nx)), total_heat, u)

    result = porta.create_mirror_view_and_copy(u)  # the values, on the host
    ok = np.allclose(np.asarray(result), ref, rtol=1e-13, atol=1e-13) and \
        abs(total - ref.sum()) <= 1e-9 * ref.sum()
    print("heat_views: backend=%s threads=%d space=%s steps=%d total=%.6f %s"
          % (porta.backend(), porta.num_threads(), u.space, steps, total,
             "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
