"""Kernels of tests/python/test_kernels.py (kernels are read from their source file)."""
import math

import porta

SCALE = 3


@porta.kernel
def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
    y[i] += a * x[i]


@porta.kernel
def dot(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:], y: porta.f64[:]):
    acc += x[i] * y[i]


@porta.kernel
def vmin(i: int, acc: porta.Min[porta.f64], x: porta.f64[:]):
    acc = min(acc, x[i])


@porta.kernel
def vmax(i: int, acc: porta.Max[porta.f64], x: porta.f64[:]):
    if x[i] > acc:
        acc = x[i]


@porta.kernel
def vprod(i: int, acc: porta.Prod[porta.f64], x: porta.f64[:]):
    acc *= x[i]


@porta.kernel
def isum(i: int, acc: porta.Sum[porta.i64], x: porta.i64[:]):
    acc += x[i] * SCALE


@porta.kernel
def stencil2d(i: int, j: int, u: porta.f64[:, :], out: porta.f64[:, :]):
    """The 5-point Laplacian on the interior; the boundary is left alone."""
    if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@porta.kernel
def sum3d(i: int, j: int, k: int, acc: porta.Sum[porta.f64], a: porta.f64[:, :, :]):
    acc += a[i, j, k] * (i + 2 * j + 3 * k)


@porta.kernel
def scale3d(i: int, j: int, k: int, a: porta.f64[:, :, :], b: porta.f64[:, :, :]):
    b[i, j, k] = 2.0 * a[i, j, k] + i - j * k


@porta.kernel
def intmath(i: int, a: porta.i64[:], q: porta.i64[:], r: porta.i64[:], p: porta.i64[:]):
    d = i % 5 - 2  # -2 .. 2
    if d == 0:
        d = 3
    q[i] = a[i] // d
    r[i] = a[i] % d
    p[i] = (i % 4) ** 3


@porta.kernel
def floats(i: int, x: porta.f64[:], out: porta.f64[:, :]):
    v = x[i]
    out[i, 0] = math.sqrt(v) + math.exp(-v) + math.sin(v) * math.cos(v)
    out[i, 1] = math.log(v + 1.0) + math.atan2(v, 2.0) + abs(v - 1.0) ** 2
    out[i, 2] = v / 3 + v // 0.25 + v % 0.3 + math.pi
    out[i, 3] = math.floor(v * 10) + max(v, 0.5, 0.25) - min(v, 0.5)
    out[i, 4] = math.tanh(v) + math.hypot(v, 1.0) + float(int(v * 7.9))


@porta.kernel
def control(i: int, n: porta.i64, out: porta.f64[:]):
    t = 0.0
    k = 0
    while k < i % 7:
        t += k
        k += 1
    for m in range(10, 0, -3):
        if m == 4:
            continue
        t += 0.5 * m
    for m in range(i % 3, n, 2):
        if m > 8:
            break
        t -= m
    if i % 3 == 0:
        t = t * 2
    elif i % 3 == 1:
        t = -t
    else:
        t = t + 100
    out[i] = t if i % 2 == 0 else t + 0.25


@porta.kernel
def f32_axpy(i: int, a: porta.f32, x: porta.f32[:], y: porta.f32[:]):
    y[i] = a * x[i] + y[i]


@porta.kernel
def i32_copy(i: int, x: porta.i32[:], y: porta.i64[:]):
    y[i] = x[i] * 2 + 1


@porta.kernel
def norms3(i: int, v: porta.f64[:, 3], out: porta.f64[:]):
    """A row of three: the annotation fixes the extent, so the C indexes with constants."""
    s = 0.0
    for d in range(v.shape[1]):
        s += v[i, d] * v[i, d]
    out[i] = s
