"""porta.subview and the padded layouts (docs/python.md, "Arrays" and "Layouts"): subviews
share their view's memory in every space, with Python's slice semantics and clear errors; an
array whose lines are padded (the interior of a field with ghost cells) is compiled with its
unit stride known (layouts R and L), not as an arbitrarily strided array, and computes the same
values as NumPy on every back end; the layout signature tells apart the arguments after the
16th."""
import gc

import numpy as np
import pytest

import porta
from porta import _core
from device_arrays import device_view


@porta.kernel
def lap5(i: int, j: int, u: porta.f64[:, :], out: porta.f64[:, :]):
    """The 5-point Laplacian at (i, j), one cell inside u: the launch covers the interior."""
    out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@porta.kernel
def weighted3(i: int, j: int, k: int, acc: porta.Sum[porta.f64], a: porta.f64[:, :, :]):
    acc += a[i, j, k] * (1 + i + 3 * j + 7 * k)


@porta.kernel
def many(i: int, j: int, s0: float, s1: float, s2: float, s3: float, s4: float, s5: float,
         s6: float, s7: float, s8: float, s9: float, s10: float, s11: float, s12: float,
         s13: float, s14: float, s15: float, s16: float, s17: float, s18: float, s19: float,
         a: porta.f64[:, :], b: porta.f64[:, :]):
    """Arrays in the signature's second word (arguments 20 and 21)."""
    b[i, j] = 1000.0 * a[i, j] + (s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9) \
        + (s10 + s11 + s12 + s13 + s14 + s15 + s16 + s17 + s18 + s19)


def layout_code(a):
    return _core.array_info(a)[3]


def specs(kern):
    """The layout letters of the specialisations loaded for kern (any compiler)."""
    return {spec for (name, spec, _) in kern._unit.loaded if name == kern.__name__}


# ---- the layouts the launch sees ----

def test_layout_codes_of_numpy_arrays():
    a = np.zeros((8, 10))
    assert layout_code(a) == 0 and layout_code(np.asfortranarray(a)) == 1
    assert layout_code(a[1:-1, 2:-3]) == 3  # R: rows padded
    assert layout_code(np.asfortranarray(a)[1:-1, 2:-3]) == 4  # L: columns padded
    assert layout_code(a[::2, ::2]) == 2 and layout_code(a.T[::2]) == 2  # S
    assert layout_code(a[1:-1, :]) == 0  # whole rows: still contiguous
    assert layout_code(a[:, 3:4]) == 3  # one column: unit stride on an extent of 1
    assert layout_code(np.zeros((4, 5, 6))[1:3, 1:4, 2:5]) == 3
    assert layout_code(np.zeros(10)[2:7]) == 0 and layout_code(np.zeros(10)[::2]) == 2
    f3 = np.zeros((6, 5, 2), order="F")[1:5, :, :1]  # F, padded, last extent 1: L, not R
    assert f3.strides == (8, 48, 240) and layout_code(f3) == 4
    assert layout_code(np.zeros((5, 1, 6))[::2, :, 1:5]) == 3
    assert layout_code(np.zeros((6, 4))[::-1, 1:3]) == 3  # negative outer stride: still R


# ---- porta.subview ----

@pytest.mark.parametrize("layout", ["C", "F"])
def test_subview_shares_memory_with_python_slices(layout):
    v = porta.View((6, 9), porta.f64, space="host", layout=layout, label="field")
    a = np.asarray(v)
    a[...] = np.arange(54.0).reshape(6, 9)
    s = porta.subview(v, (1, 5), slice(2, -1))
    assert s.shape == (4, 6) and s.label == "field" and s.space == "host"
    np.testing.assert_array_equal(np.asarray(s), a[1:5, 2:8])
    assert layout_code(s) == (3 if layout == "C" else 4)
    np.asarray(s)[0, 0] = -1.0  # the same memory
    assert a[1, 2] == -1.0
    col = porta.subview(v, porta.ALL, -2)  # an index drops its dimension
    assert col.shape == (6,)
    np.testing.assert_array_equal(np.asarray(col), a[:, 7])
    row = porta.subview(v, 5, slice(None, 3))
    np.testing.assert_array_equal(np.asarray(row), a[5, :3])
    assert porta.subview(v, 0, 0).shape == () and float(np.asarray(porta.subview(v, 2, 3))) == \
        a[2, 3]
    assert porta.subview(v, slice(4, 2), porta.ALL).shape == (0, 9)  # empty, as in Python
    del a, col, row
    want = np.asarray(s).copy()
    del v
    gc.collect()
    np.testing.assert_array_equal(np.asarray(s), want)  # the subview keeps the memory alive


def test_subview_bad_input():
    v = porta.View((4, 5), space="host")
    with pytest.raises(ValueError, match="a view of rank 2 takes 2 slices, got 1"):
        porta.subview(v, porta.ALL)
    with pytest.raises(ValueError, match="slice 1 has step 2: subviews take step 1"):
        porta.subview(v, porta.ALL, slice(0, 5, 2))
    with pytest.raises(IndexError, match=r"index 4 of dimension 0 is outside \[0, 4\)"):
        porta.subview(v, 4, 0)
    with pytest.raises(IndexError, match=r"index -6 of dimension 1 is outside \[0, 5\)"):
        porta.subview(v, 0, -6)
    with pytest.raises(IndexError, match=r"range 1 \(2, 6\) is outside \[0, 5\]"):
        porta.subview(v, porta.ALL, (2, 6))
    with pytest.raises(IndexError, match=r"range 0 \(3, 2\)"):
        porta.subview(v, (3, 2), porta.ALL)
    with pytest.raises(TypeError, match="slice 0 is 'a': give an int, a slice, a pair"):
        porta.subview(v, "a", 0)
    with pytest.raises(TypeError, match="must be a porta.View, not ndarray"):
        porta.subview(np.zeros((4, 5)), 0, 0)


# ---- padded layouts in kernels, on every back end ----

@pytest.mark.parametrize("layout", ["C", "F"])
def test_padded_fields_in_kernels(space, layout):
    rng = np.random.default_rng(11)
    n, m = 37, 29  # the interior, one ghost layer around it, 3 lines of padding before it
    u0 = rng.random((n + 5, m + 5))
    u = device_view(space, u0, layout)
    out = device_view(space, np.full(u0.shape, 7.0), layout)
    uf = porta.subview(u, (3, n + 5), (3, m + 5))  # the field: interior and ghost layer
    of = porta.subview(out, (3, n + 5), (3, m + 5))
    porta.parallel_for(space.md((1, 1), (n + 1, m + 1)), lap5, uf, of)
    letter = "R" if layout == "C" else "L"
    assert letter * 2 in specs(lap5)
    want = np.full(u0.shape, 7.0)
    f = u0[3:, 3:]
    want[4:n + 4, 4:m + 4] = (f[:n, 1:m + 1] + f[2:, 1:m + 1] + f[1:n + 1, :m]
                              + f[1:n + 1, 2:m + 2] - 4.0 * f[1:n + 1, 1:m + 1])
    np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("layout", ["C", "F"])
def test_padded_rank3_reduction(space, layout):
    rng = np.random.default_rng(12)
    a0 = rng.random((6, 9, 8))
    a = device_view(space, a0, layout)
    s = porta.subview(a, (1, 5), (2, 8), (1, 6))
    got = porta.parallel_reduce(space.md((0, 0, 0), s.shape), weighted3, s)
    i, j, k = np.meshgrid(*(np.arange(e) for e in s.shape), indexing="ij")
    np.testing.assert_allclose(got, np.sum(a0[1:5, 2:8, 1:6] * (1 + i + 3 * j + 7 * k)),
                               rtol=1e-13)
    assert ("R" if layout == "C" else "L") in specs(weighted3)


def padded(shape, letter, values=None):
    """A NumPy array of `shape` in layout `letter` (C, F, or R, L: padded lines)."""
    n, m = shape
    if letter == "C":
        a = np.zeros(shape)
    elif letter == "F":
        a = np.zeros(shape, order="F")
    elif letter == "R":
        a = np.zeros((n, m + 3))[:, 1:m + 1]
    else:
        a = np.zeros((n + 3, m), order="F")[1:n + 1, :]
    assert layout_code(a) == "CFSRL".index(letter)
    if values is not None:
        a[...] = values
    return a


def test_signature_beyond_16_arguments(space):
    rng = np.random.default_rng(13)
    s = [float(k) for k in range(20)]
    a0 = rng.random((7, 8))
    for la in "CRFL":
        a = padded(a0.shape, la, a0)
        for lb in "CRFL":
            b = padded(a0.shape, lb)
            porta.parallel_for(space.md((0, 0), a0.shape), many, *s, a, b)
            np.testing.assert_allclose(b, 1000.0 * a0 + sum(s), rtol=1e-15)
            assert la + lb in specs(many), (la, lb, sorted(specs(many)))
