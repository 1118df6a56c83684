"""From a NumPy loop to a Porta kernel: the program of docs/porting-guide.md's chapter of that
name. A 2D heat equation written with NumPy, then step by step with Porta kernels (on NumPy
arrays, then on views that a GPU can read), a reduction, a fused step, a team kernel with
scratch memory and an atomic histogram; every result is checked against NumPy, and the
errors the chapter shows are produced and checked too.

    build/python-venv/bin/python examples/python/porting_heat.py
    build/python-venv/bin/python examples/python/porting_heat.py --porta-backend=serial
    PORTA_BACKEND=openmp PORTA_NUM_THREADS=2 build/python-venv/bin/python \\
        examples/python/porting_heat.py
    build/python-venv/bin/python examples/python/porting_heat.py --porta-backend=cuda
"""
import sys

import numpy as np

import porta


# ---- Step 1: the NumPy program ----
def numpy_heat(u, c, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + c * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                              + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return u


# ---- Step 2: the same step as loops over the elements ----
def python_step(c, u, out):
    ny, nx = u.shape
    for i in range(1, ny - 1):
        for j in range(1, nx - 1):
            out[i, j] = u[i, j] + c * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                                       - 4.0 * u[i, j])


# ---- Step 3: the loop body becomes a kernel ----
@porta.kernel
def heat_step(i: int, j: int, c: float, u: porta.f64[:, :], out: porta.f64[:, :]):
    out[i, j] = u[i, j] + c * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                               - 4.0 * u[i, j])


def host_space():
    """The back end for NumPy arrays: the default one, unless it is the GPU's."""
    return "serial" if porta.backend() == "cuda" else None


def heat_on_numpy(u0, c, steps):
    u = u0.copy()
    out = u0.copy()  # the border is never written: it must hold the boundary values too
    ny, nx = u.shape
    interior = porta.MDRangePolicy((1, 1), (ny - 1, nx - 1), space=host_space())
    for _ in range(steps):
        porta.parallel_for(interior, heat_step, c, u, out)
        u, out = out, u
    return u


# ---- Step 4: reductions ----
@porta.kernel
def total_heat(i: int, j: int, acc: porta.Sum[porta.f64], u: porta.f64[:, :]):
    acc += u[i, j]


@porta.kernel
def max_change(i: int, j: int, acc: porta.Max[porta.f64], u: porta.f64[:, :],
               out: porta.f64[:, :]):
    acc = max(acc, abs(out[i, j] - u[i, j]))


# ---- Step 5: one pass instead of two (a step that also reduces) ----
@porta.kernel
def heat_step_change(i: int, j: int, acc: porta.Max[porta.f64], c: float,
                     u: porta.f64[:, :], out: porta.f64[:, :]):
    new = u[i, j] + c * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                         - 4.0 * u[i, j])
    out[i, j] = new
    acc = max(acc, abs(new - u[i, j]))


# ---- Step 6: views, for every back end including the GPU ----
def heat_on_views(u0, c, steps):
    ny, nx = u0.shape
    u = porta.View((ny, nx), porta.f64, label="u")  # the default back end's memory
    out = porta.View((ny, nx), porta.f64, label="out")
    h = porta.create_mirror_view(u)  # u itself where the host can read u
    np.asarray(h)[...] = u0  # the mirror's memory, as a NumPy array
    porta.deep_copy(u, h)  # host -> u (nothing to do when h is u)
    porta.deep_copy(out, u)  # the border in both
    interior = porta.MDRangePolicy((1, 1), (ny - 1, nx - 1))
    changes = []
    for _ in range(steps):
        changes.append(porta.parallel_reduce(interior, heat_step_change, c, u, out))
        u, out = out, u
    return u, changes


# ---- Step 7: teams and scratch memory ----
@porta.kernel
def smooth_rows(t: porta.TeamMember, u: porta.f64[:, :], out: porta.f64[:, :]):
    row = t.league_rank  # one team per row
    nx = u.shape[1]
    tile = porta.scratch(t, porta.f64, u.shape[1])  # the row, shared by the team
    for j in porta.team_thread_range(t, nx):
        tile[j] = u[row, j]
    t.team_barrier()  # the whole row is in scratch before anyone reads it
    for j in porta.team_thread_range(t, 1, nx - 1):
        out[row, j] = 0.25 * (tile[j - 1] + 2.0 * tile[j] + tile[j + 1])


# ---- Step 8: atomics ----
@porta.kernel
def histogram(i: int, j: int, u: porta.f64[:, :], counts: porta.i64[:]):
    nbins = counts.shape[0]
    b = min(int(u[i, j] * nbins), nbins - 1)  # u is in [0, 1]
    porta.atomic_add(counts, b, 1)


# ---- Common errors (the chapter shows their messages) ----
@porta.kernel
def bad_slice(i: int, u: porta.f64[:], out: porta.f64[:]):
    out[i] = u[i - 1:i + 2].sum()


@porta.kernel
def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
    y[i] += a * x[i]


def error_message(call, *args):
    """The message of the exception `call(*args)` raises (and its type)."""
    try:
        call(*args)
    except (porta.TranslationError, TypeError, ValueError) as e:
        return type(e).__name__ + ": " + str(e)
    return "no error"


def check_errors():
    ok = "bad_slice" in error_message(bad_slice.check) and \
        "is not supported in a Porta kernel" in error_message(bad_slice.check)
    x32 = np.ones(10, dtype=np.float32)
    msg = error_message(porta.parallel_for, porta.RangePolicy(0, 10, space=host_space()),
                        axpy, 2.0, x32, np.zeros(10))
    ok = ok and "argument 'x' has dtype float32 (itemsize 4), expected float64" in msg
    msg = error_message(porta.deep_copy, porta.View((3, 4), porta.f64, space="host",
                                                    layout="F"), np.zeros((3, 4)))
    ok = ok and "layouts differ (Left vs Right)" in msg
    if porta.backend() == "cuda":  # NumPy arrays are host memory, which a GPU cannot read
        msg = error_message(porta.parallel_for, 10, axpy, 2.0, np.ones(10), np.zeros(10))
        ok = ok and "in host memory, which the cuda back end cannot read" in msg
    return ok


def main():
    porta.init()  # --porta-backend=..., PORTA_BACKEND, PORTA_NUM_THREADS
    ny, nx, c, steps = 120, 160, 0.2, 40
    u0 = np.zeros((ny, nx))
    u0[ny // 3:2 * ny // 3, nx // 3:2 * nx // 3] = 1.0  # a hot square, cold borders
    ref = numpy_heat(u0, c, steps)
    tol = dict(rtol=1e-13, atol=1e-13)  # bitwise on the host; a GPU may fuse multiply-adds

    # Step 2 checks the element loop on a small grid (it is slow: plain Python).
    small = u0[::8, ::8].copy()
    out = small.copy()
    python_step(c, small, out)
    ok = np.allclose(out, numpy_heat(small, c, 1), **tol)

    # Steps 3 and 4 on NumPy arrays (host memory).
    u = heat_on_numpy(u0, c, steps)
    ok = ok and np.allclose(u, ref, **tol)
    everything = porta.MDRangePolicy((0, 0), (ny, nx), space=host_space())
    total = porta.parallel_reduce(everything, total_heat, u)
    ok = ok and abs(total - ref.sum()) <= 1e-12 * ref.sum()
    nxt = numpy_heat(u, c, 1)
    change = porta.parallel_reduce(everything, max_change, u, nxt)
    ok = ok and change == np.abs(nxt - u).max()

    # Steps 5 and 6 on views: unchanged on the GPU.
    v, changes = heat_on_views(u0, c, steps)
    result = porta.create_mirror_view_and_copy(v)  # the values, on the host
    ok = ok and np.allclose(np.asarray(result), ref, **tol)
    ok = ok and np.isclose(changes[-1], np.abs(ref - numpy_heat(u0, c, steps - 1)).max(), **tol)

    # Step 7: one team per row.
    smooth = porta.View((ny, nx), porta.f64, label="smooth")
    porta.deep_copy(smooth, v)  # the first and last columns stay
    porta.parallel_for(porta.TeamPolicy(ny, porta.AUTO), smooth_rows, v, smooth)
    want = ref.copy()
    want[:, 1:-1] = 0.25 * (ref[:, :-2] + 2.0 * ref[:, 1:-1] + ref[:, 2:])
    got = np.asarray(porta.create_mirror_view_and_copy(smooth))
    ok = ok and np.allclose(got, want, **tol)

    # Step 8: a histogram of the temperatures.
    counts = porta.View(10, porta.i64, label="counts")
    porta.parallel_for(porta.MDRangePolicy((0, 0), (ny, nx)), histogram, v, counts)
    bins = np.minimum((np.asarray(result) * 10).astype(np.int64), 9)
    ok = ok and np.array_equal(np.asarray(porta.create_mirror_view_and_copy(counts)),
                               np.bincount(bins.ravel(), minlength=10))

    ok = ok and check_errors()
    print("porting_heat: backend=%s threads=%d space=%s steps=%d total=%.6f %s"
          % (porta.backend(), porta.num_threads(), v.space, steps, total,
             "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
