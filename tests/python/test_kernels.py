"""Every kernel compared with NumPy on Serial, OpenMP x1 and OpenMP x2."""
import os

import numpy as np
import pytest

import porta
import kernels_basic as K


def test_axpy(space):
    rng = np.random.default_rng(1)
    x, y = rng.random(10007), rng.random(10007)
    want = y + 2.5 * x
    porta.parallel_for(space.range(len(x)), K.axpy, 2.5, x, y)
    # nvcc contracts y + a * x into an FMA (one rounding): within an ulp on CUDA
    np.testing.assert_allclose(y, want, rtol=0 if space.name != "cuda" else 2.3e-16, atol=0)


def test_axpy_keywords_and_int_policy(space):
    x, y = np.arange(100.0), np.zeros(100)
    porta.parallel_for(100, K.axpy, x=x, y=y, a=2.0)
    np.testing.assert_array_equal(y, 2 * x)
    porta.parallel_for(space.range(60, begin=50), K.axpy, 1.0, x, y)
    np.testing.assert_array_equal(y[50:60], 3 * x[50:60])
    np.testing.assert_array_equal(y[60:], 2 * x[60:])


def test_dot(space):
    x, y = np.arange(1000.0) % 3 + 1, np.arange(1000.0) % 5
    assert porta.parallel_reduce(space.range(1000), K.dot, x, y) == float(x @ y)


def test_min_max_prod_isum(space):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(5001)
    assert porta.parallel_reduce(space.range(len(x)), K.vmin, x) == x.min()
    assert porta.parallel_reduce(space.range(len(x)), K.vmax, x) == x.max()
    p = 1.0 + rng.random(40) * 1e-3
    np.testing.assert_allclose(porta.parallel_reduce(space.range(40), K.vprod, p), np.prod(p),
                               rtol=1e-14)
    xi = np.arange(-500, 501, dtype=np.int64) ** 2
    r = porta.parallel_reduce(space.range(len(xi)), K.isum, xi)
    assert isinstance(r, int) and r == int(xi.sum()) * K.SCALE


def stencil_ref(u):
    ref = np.zeros_like(u)
    ref[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                       - 4.0 * u[1:-1, 1:-1])
    return ref


@pytest.mark.parametrize("layout", ["C", "F", "strided", "transposed"])
def test_stencil2d_layouts(space, layout):
    rng = np.random.default_rng(3)
    base = rng.random((62, 45))
    u = {"C": base, "F": np.asfortranarray(base), "strided": rng.random((124, 90))[::2, 1::2],
         "transposed": rng.random((45, 62)).T}[layout]
    out = np.zeros(u.shape, order="F" if layout == "F" else "C")
    porta.parallel_for(space.md((0, 0), u.shape), K.stencil2d, u, out)
    np.testing.assert_allclose(out, stencil_ref(u), rtol=1e-15, atol=1e-15)


def test_rank3(space):
    rng = np.random.default_rng(4)
    a = rng.random((7, 9, 11))
    i, j, k = np.meshgrid(np.arange(7), np.arange(9), np.arange(11), indexing="ij")
    got = porta.parallel_reduce(space.md((0, 0, 0), a.shape), K.sum3d, a)
    np.testing.assert_allclose(got, np.sum(a * (i + 2 * j + 3 * k)), rtol=1e-13)
    for arr in (a, np.asfortranarray(a), a[:, ::2, :]):
        b = np.zeros(arr.shape)
        porta.parallel_for(space.md((0, 0, 0), arr.shape), K.scale3d, arr, b)
        ii, jj, kk = np.meshgrid(*(np.arange(s) for s in arr.shape), indexing="ij")
        np.testing.assert_allclose(b, 2.0 * arr + ii - jj * kk, rtol=1e-15)


def test_python_integer_semantics(space):
    n = 200
    a = np.arange(-100, 100, dtype=np.int64) * 7
    q, r, p = (np.zeros(n, dtype=np.int64) for _ in range(3))
    porta.parallel_for(space.range(n), K.intmath, a, q, r, p)
    d = np.arange(n) % 5 - 2
    d[d == 0] = 3
    np.testing.assert_array_equal(q, a // d)  # floor division, as Python's
    np.testing.assert_array_equal(r, a % d)  # the divisor's sign, as Python's
    np.testing.assert_array_equal(p, (np.arange(n) % 4) ** 3)


def test_math_functions(space):
    x = np.linspace(0.0, 3.0, 301)
    out = np.zeros((len(x), 5))
    porta.parallel_for(space.range(len(x)), K.floats, x, out)
    want = np.stack([
        np.sqrt(x) + np.exp(-x) + np.sin(x) * np.cos(x),
        np.log(x + 1.0) + np.arctan2(x, 2.0) + np.abs(x - 1.0) ** 2,
        x / 3 + x // 0.25 + x % 0.3 + np.pi,
        np.floor(x * 10) + np.maximum(np.maximum(x, 0.5), 0.25) - np.minimum(x, 0.5),
        np.tanh(x) + np.hypot(x, 1.0) + np.trunc(x * 7.9),
    ], axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-13)


def control_ref(i, n):
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
    return t if i % 2 == 0 else t + 0.25


def test_control_flow(space):
    out = np.zeros(50)
    porta.parallel_for(space.range(50), K.control, 6, out)
    np.testing.assert_array_equal(out, [control_ref(i, 6) for i in range(50)])


def test_f32_and_i32(space):
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, dtype=np.float32)
    want = np.float32(0.5) * x + y
    porta.parallel_for(space.range(100), K.f32_axpy, 0.5, x, y)
    np.testing.assert_array_equal(y, want)
    xi = np.arange(100, dtype=np.int32)
    yi = np.zeros(100, dtype=np.int64)
    porta.parallel_for(space.range(100), K.i32_copy, xi, yi)
    np.testing.assert_array_equal(yi, 2 * xi + 1)


def test_no_copy_views_of_numpy(space):
    # A slice of a bigger array is written in place: NumPy arrays are passed without a copy.
    big = np.zeros(300)
    x = np.ones(100)
    porta.parallel_for(space.range(100), K.axpy, 1.0, x, big[100:200])
    assert big[:100].sum() == 0 and big[200:].sum() == 0 and big[100:200].sum() == 100
    want = big.copy()
    want[::3] += 1.0
    porta.parallel_for(space.range(100), K.axpy, 1.0, x, big[::3])  # a strided view
    np.testing.assert_array_equal(big, want)


def test_fixed_extent_annotation(space):
    """porta.f64[:, 3]: constant extent and strides in the generated C (both layouts), and a
    launch on another extent raises a TypeError naming the argument."""
    assert repr(porta.f64[:, 3]) == "porta.f64[:, 3]" and porta.f64[:, 3] != porta.f64[:, :]
    rng = np.random.default_rng(3)
    for order in ("C", "F"):
        v = np.asarray(rng.random((50, 3)), order=order)
        out = np.zeros(50)
        porta.parallel_for(space.range(50), K.norms3, v, out)
        np.testing.assert_allclose(out, (v * v).sum(axis=1), rtol=1e-15)
    c_file = os.path.join(os.path.dirname(K.norms3._unit.paths[-1]), "kernels_basic.c")
    with open(c_file) as fh:
        src = fh.read()
    # C order: the extent and the row stride are constants; F order: the row stride is 1 and
    # the column stride the runtime extent
    assert "const int64_t pk_v_n1 = 3;" in src and "const int64_t pk_v_s0 = 3;" in src
    with pytest.raises(TypeError, match=r"argument 'v' has extent 4 in dimension 1, where the "
                                        r"kernel's annotation fixes 3"):
        porta.parallel_for(space.range(5), K.norms3, np.zeros((5, 4)), np.zeros(5))
    with pytest.raises(TypeError, match="positive int fixing that extent"):
        porta.f64[:, 0]
