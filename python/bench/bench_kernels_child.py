"""The module scripts/bench-python compiles and loads in fresh processes (cold / cached)."""
import porta


@porta.kernel
def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
    y[i] += a * x[i]


@porta.kernel
def dot(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:], y: porta.f64[:]):
    acc += x[i] * y[i]


@porta.kernel
def stencil(i: int, j: int, u: porta.f64[:, :], out: porta.f64[:, :]):
    if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
