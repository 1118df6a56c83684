"""porta.View from Python (docs/python.md, "Arrays"): creation over dtypes, ranks 0-8, layouts
and labels; numpy.asarray(view) without a copy; deep_copy between views and NumPy arrays both
ways and its mismatch errors; mirrors; DLPack both ways; views as kernel arguments in C and F
layouts on every back end (the `space` fixture), against NumPy; bad input raising clear
exceptions."""
import gc

import numpy as np
import pytest

import porta
import kernels_basic as K
from device_arrays import device_view

DTYPES = [(porta.f64, np.float64), (porta.f32, np.float32), (porta.i64, np.int64),
          (porta.i32, np.int32), (porta.u8, np.uint8), (porta.boolean, np.bool_),
          (np.uint64, np.uint64), (np.uint32, np.uint32), ("float64", np.float64),
          (float, np.float64), (int, np.int64), (np.dtype("int32"), np.int32)]
EXTENTS = (2, 3, 4, 1, 3, 2, 2, 3)  # rank r takes the first r


def values(shape, dtype, seed=0):
    """Distinct values of `dtype` (bool: a pattern) for a NumPy array of `shape`."""
    n = int(np.prod(shape, dtype=np.int64))
    v = np.arange(1, n + 1) * 7 + seed
    if np.dtype(dtype) == np.bool_:
        return (v % 3 == 0).reshape(shape)
    return (v % 251).astype(dtype).reshape(shape)


def c_strides(shape, itemsize):
    s, out = itemsize, []
    for n in reversed(shape):
        out.append(s)
        s *= n
    return tuple(reversed(out))


def f_strides(shape, itemsize):
    s, out = itemsize, []
    for n in shape:
        out.append(s)
        s *= n
    return tuple(out)


# ---- creation ----

@pytest.mark.parametrize("dtype,want", DTYPES, ids=[str(d[1].__name__) + "-" + str(i)
                                                     for i, d in enumerate(DTYPES)])
def test_create_dtypes(dtype, want):
    v = porta.View((5, 3), dtype, label="d", space="host")
    a = np.asarray(v)
    assert v.dtype == np.dtype(want) and a.dtype == np.dtype(want)
    assert v.itemsize == np.dtype(want).itemsize and v.nbytes == 15 * v.itemsize
    assert a.shape == (5, 3) and v.size == 15 and v.ndim == 2 and len(v) == 5
    assert not a.any()  # zero-filled (initialize=True)
    a[...] = values((5, 3), want)
    np.testing.assert_array_equal(np.asarray(v), values((5, 3), want))


@pytest.mark.parametrize("rank", range(9))
@pytest.mark.parametrize("layout", ["C", "F", None])
def test_create_ranks_layouts(rank, layout):
    shape = EXTENTS[:rank]
    v = porta.View(shape, porta.f64, space="host", layout=layout, label="r%d" % rank)
    assert v.shape == shape and v.ndim == rank and v.space == "host"
    assert v.layout == ("F" if layout == "F" else "C")  # None: the host's default, LayoutRight
    want = (f_strides if layout == "F" else c_strides)(shape, 8)
    a = np.asarray(v)
    assert v.strides == want and a.strides == want and a.shape == shape
    ref = values(shape, np.float64, seed=rank)
    a[...] = ref
    np.testing.assert_array_equal(np.asarray(v), ref)  # a second export sees the first's writes
    assert v.label == "r%d" % rank
    if rank >= 2 and layout == "F":
        assert a.flags.f_contiguous and not a.flags.c_contiguous
    elif rank >= 2:
        assert a.flags.c_contiguous and not a.flags.f_contiguous


def test_rank0_and_empty():
    v = porta.View((), porta.i64, space="host")
    a = np.asarray(v)
    assert a.shape == () and v.size == 1
    a[()] = 42
    assert int(np.asarray(v)) == 42
    with pytest.raises(TypeError, match="rank-0"):
        len(v)
    e = porta.View((0, 4), space="host")
    assert np.asarray(e).shape == (0, 4) and e.size == 0 and e.nbytes == 0


def test_labels_and_repr():
    v = porta.View(4, label="temperature", space="host")
    assert v.label == "temperature"
    assert "temperature" in repr(v) and "float64" in repr(v) and "(4,)" in repr(v)
    assert porta.View(2, label=None).label == ""
    assert porta.View(2).label == ""
    assert porta.create_mirror(v).label == "temperature_mirror"


def test_default_space_is_the_default_back_ends():
    v = porta.View(3)
    want = "cuda" if porta.backend() == "cuda" else "host"
    assert v.space == want


def test_fill():
    v = porta.View((3, 2), porta.i32, space="host")
    v.fill(-7)
    np.testing.assert_array_equal(np.asarray(v), np.full((3, 2), -7, np.int32))
    w = porta.View(5, porta.f32, layout="F", space="host")
    w.fill(2.5)
    np.testing.assert_array_equal(np.asarray(w), np.full(5, 2.5, np.float32))
    with pytest.raises(TypeError):
        w.fill("x")


# ---- numpy.asarray(view): the same memory ----

@pytest.mark.parametrize("layout", ["C", "F"])
def test_asarray_shares_memory(layout):
    v = porta.View((6, 5, 4), porta.f64, layout=layout, space="host")
    a = np.asarray(v)
    b = np.asarray(v)
    assert a.ctypes.data == v.data_ptr and np.shares_memory(a, b)
    a[2, 3, 1] = 9.5
    assert b[2, 3, 1] == 9.5
    m = memoryview(v)
    assert m.format == "d" and m.shape == (6, 5, 4) and m.strides == v.strides
    assert m[2, 3, 1] == 9.5
    np.testing.assert_array_equal(v.to_numpy(), a)
    assert v.to_numpy().ctypes.data == v.data_ptr  # host views: no copy
    assert np.array(v, dtype=np.float32)[2, 3, 1] == np.float32(9.5)  # __array__ with a dtype


@pytest.mark.parametrize("n", [1, 33, 4097, 1 << 20])
def test_data_is_256_byte_aligned(n):
    """Every allocation starts on 256 bytes in every space (PORTA_ALLOC_ALIGN_BYTES), so a
    field with 32 ghost layers of doubles has 256-byte aligned interiors (tealeaf_cg.py)."""
    for dtype in (porta.f64, porta.u8):
        for space in ("host", None):
            v = porta.View((n,), dtype, space=space)
            assert v.data_ptr % 256 == 0, (n, dtype, space, v.data_ptr % 256)


def test_asarray_keeps_the_view_alive():
    v = porta.View(1000, porta.i64, space="host")
    a = np.asarray(v)
    a[:] = np.arange(1000)
    ptr = v.data_ptr
    del v
    gc.collect()
    porta.View(1000, porta.i64, space="host").fill(5)  # reuse of freed memory shows here
    assert a.ctypes.data == ptr and int(a.sum()) == 999 * 1000 // 2


def test_no_cuda_array_interface_on_the_host():
    v = porta.View(3, space="host")
    assert not hasattr(v, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="numpy.asarray"):
        v.__cuda_array_interface__  # noqa: B018


# ---- deep_copy ----

@pytest.mark.parametrize("layout", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8,
                                   np.uint64, np.bool_])
def test_deep_copy_view_view(layout, dtype):
    shape = (4, 3, 5)
    src = porta.View(shape, dtype, layout=layout, label="src", space="host")
    dst = porta.View(shape, dtype, layout=layout, label="dst", space="host")
    np.asarray(src)[...] = values(shape, dtype)
    porta.deep_copy(dst, src)
    np.testing.assert_array_equal(np.asarray(dst), values(shape, dtype))
    assert dst.data_ptr != src.data_ptr


@pytest.mark.parametrize("order", ["C", "F"])
def test_deep_copy_view_numpy_both_ways(order):
    shape = (7, 6)
    v = porta.View(shape, porta.f64, layout=order, space="host")
    a = np.asarray(values(shape, np.float64, seed=3), order=order)
    porta.deep_copy(v, a)  # NumPy -> view
    np.testing.assert_array_equal(np.asarray(v), a)
    np.asarray(v)[...] *= 2.0
    b = np.zeros(shape, order=order)
    porta.deep_copy(b, v)  # view -> NumPy
    np.testing.assert_array_equal(b, 2.0 * a)
    c = np.zeros(shape, order=order)
    porta.deep_copy(c, a)  # NumPy -> NumPy
    np.testing.assert_array_equal(c, a)
    one = np.arange(10.0)  # rank 1: C and F at once, either layout of view takes it
    w = porta.View(10, layout="F" if order == "C" else "C", space="host")
    porta.deep_copy(w, one)
    np.testing.assert_array_equal(np.asarray(w), one)


def test_deep_copy_mismatches():
    v = porta.View((3, 4), porta.f64, label="v", space="host")
    with pytest.raises(ValueError, match=r"extent 0 differs \(3 vs 4\)"):
        porta.deep_copy(v, np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"extent 1 differs"):
        porta.deep_copy(np.zeros((3, 5)), v)
    with pytest.raises(ValueError, match=r"ranks differ \(2 vs 3\)"):
        porta.deep_copy(v, np.zeros((3, 4, 1)))
    with pytest.raises(ValueError, match="dst has dtype float64, src has dtype float32"):
        porta.deep_copy(v, np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="dst has dtype int32, src has dtype float64"):
        porta.deep_copy(porta.View((3, 4), porta.i32, space="host"), v)
    with pytest.raises(ValueError, match=r"layouts differ \(Right vs Left\)"):
        porta.deep_copy(v, np.zeros((3, 4), order="F"))
    with pytest.raises(ValueError, match=r"layouts differ \(Left vs Right\)"):
        porta.deep_copy(porta.View((3, 4), layout="F", space="host"), v)
    with pytest.raises(ValueError, match=r"layouts differ \(Stride vs Right\)"):
        porta.deep_copy(np.zeros((3, 8))[:, ::2], v)
    ro = np.zeros((3, 4))
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="const"):
        porta.deep_copy(ro, v)
    with pytest.raises(TypeError, match="src must be a porta.View or an array, not float"):
        porta.deep_copy(v, 3.0)
    with pytest.raises(TypeError, match="dst must be a porta.View or an array, not str"):
        porta.deep_copy("x", v)
    with pytest.raises(TypeError, match=r"deep_copy\(dst, src\)"):
        porta._core.deep_copy(v)
    np.testing.assert_array_equal(np.asarray(v), 0.0)  # nothing was written


# ---- mirrors ----

@pytest.mark.parametrize("layout", ["C", "F"])
def test_mirrors_of_host_views(layout):
    v = porta.View((4, 5), porta.i32, layout=layout, label="h", space="host")
    np.asarray(v)[...] = values((4, 5), np.int32)
    m = porta.create_mirror(v)  # always a new host view
    assert isinstance(m, porta.View) and m is not v and m.data_ptr != v.data_ptr
    assert (m.shape, m.dtype, m.layout, m.space) == ((4, 5), np.dtype(np.int32), layout, "host")
    porta.deep_copy(m, v)
    np.testing.assert_array_equal(np.asarray(m), values((4, 5), np.int32))
    assert porta.create_mirror_view(v) is v  # the host reads v: v itself
    assert porta.create_mirror_view_and_copy(v) is v


def test_mirrors_of_numpy_arrays():
    a = np.asfortranarray(values((3, 7), np.float64))
    m = porta.create_mirror(a)
    assert isinstance(m, porta.View) and m.layout == "F" and m.shape == (3, 7)
    assert m.label == "src_mirror"
    porta.deep_copy(m, a)
    np.testing.assert_array_equal(np.asarray(m), a)
    assert porta.create_mirror_view(a) is a
    assert porta.create_mirror_view_and_copy(a) is a
    with pytest.raises(TypeError, match="src must be a porta.View or an array, not int"):
        porta.create_mirror(3)


# ---- DLPack ----

@pytest.mark.parametrize("layout", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8])
def test_dlpack_to_numpy(layout, dtype):
    v = porta.View((5, 4), dtype, layout=layout, space="host")
    np.asarray(v)[...] = values((5, 4), dtype)
    assert v.__dlpack_device__() == (1, 0)  # kDLCPU
    d = np.from_dlpack(v)
    assert d.ctypes.data == v.data_ptr and d.strides == v.strides and d.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(d, values((5, 4), dtype))
    np.asarray(v)[0, 0] = 99
    assert d[0, 0] == 99  # the same memory
    del v
    gc.collect()
    np.testing.assert_array_equal(d[1:], values((5, 4), dtype)[1:])  # the tensor holds the view


def test_dlpack_capsules_hold_a_reference():
    v = porta.View(8, space="host")
    assert v.use_count == 1
    c = v.__dlpack__()
    assert "dltensor" in repr(c) and v.use_count == 2
    del c  # an unconsumed capsule gives its reference back
    gc.collect()
    assert v.use_count == 1
    c = v.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(c) and v.use_count == 2
    del c
    gc.collect()
    assert v.use_count == 1
    with pytest.raises(BufferError, match="copy=True"):
        v.__dlpack__(copy=True)
    with pytest.raises(BufferError, match=r"on device \(1, 0\), not \(2, 0\)"):
        v.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="host view takes no stream"):
        v.__dlpack__(stream=1)
    assert v.use_count == 1


class DLPackOnly:
    """An array offering DLPack alone (no buffer protocol), as a GPU library's would."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class CAIOnly:
    """An array offering __cuda_array_interface__ alone (a device array, by the protocol)."""

    def __init__(self, a):
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str,
                                         "data": (a.ctypes.data, False), "strides": None,
                                         "version": 3}


def host_space_only(space):
    if space.name == "cuda":
        pytest.skip("NumPy host arrays as kernel arguments: the host back ends' test")


def test_dlpack_numpy_as_kernel_arguments(space):
    host_space_only(space)
    x, y = np.arange(50.0), np.ones(50)
    assert porta._core.array_info(DLPackOnly(x))[4] == "DLPack"
    porta.parallel_for(space.range(50), K.axpy, 3.0, DLPackOnly(x), DLPackOnly(y))
    np.testing.assert_array_equal(y, 1.0 + 3.0 * np.arange(50.0))
    assert porta.parallel_reduce(space.range(50), K.dot, DLPackOnly(x), y) == float(x @ y)
    # a view through its own DLPack export, too
    v = porta.View(50, space="host")
    np.asarray(v)[:] = x
    got = porta.parallel_reduce(space.range(50), K.dot, DLPackOnly(v), x)
    assert got == float(x @ x)
    assert v.use_count == 1  # the consumed tensor was given back


def test_cuda_array_interface_rejected_on_the_host(space):
    host_space_only(space)
    x, y = np.arange(10.0), np.zeros(10)
    info = porta._core.array_info(CAIOnly(y))
    assert info[4] == "__cuda_array_interface__" and info[2] == porta._core.CUDA_SPACE
    with pytest.raises(TypeError, match=r"axpy: argument 'y' \(CAIOnly, read through "
                                        r"__cuda_array_interface__\) is in CUDA device memory"):
        porta.parallel_for(space.range(10), K.axpy, 2.0, x, CAIOnly(y))
    assert not y.any()


# ---- views as kernel arguments, on each back end ----

def to_numpy(v):
    return np.array(porta.create_mirror_view_and_copy(v))


def stencil_ref(u):
    ref = np.zeros_like(u)
    ref[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                       - 4.0 * u[1:-1, 1:-1])
    return ref


@pytest.mark.parametrize("lu,lo", [("C", "C"), ("F", "F"), ("C", "F"), ("F", "C")])
def test_views_stencil_layouts(space, lu, lo):
    rng = np.random.default_rng(5)
    u0 = rng.random((33, 21))
    u = device_view(space, u0, lu, "u")
    out = device_view(space, np.zeros((33, 21)), lo, "out")
    porta.parallel_for(space.md((0, 0), (33, 21)), K.stencil2d, u, out)
    np.testing.assert_allclose(to_numpy(out), stencil_ref(u0), rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("layout", ["C", "F"])
def test_views_rank3_for_and_reduce(space, layout):
    rng = np.random.default_rng(6)
    a0 = rng.random((5, 6, 7))
    a = device_view(space, a0, layout, "a")
    b = device_view(space, np.zeros(a0.shape), layout, "b")
    porta.parallel_for(space.md((0, 0, 0), a0.shape), K.scale3d, a, b)
    ii, jj, kk = np.meshgrid(*(np.arange(s) for s in a0.shape), indexing="ij")
    np.testing.assert_allclose(to_numpy(b), 2.0 * a0 + ii - jj * kk, rtol=1e-15)
    got = porta.parallel_reduce(space.md((0, 0, 0), a0.shape), K.sum3d, a)
    np.testing.assert_allclose(got, np.sum(a0 * (ii + 2 * jj + 3 * kk)), rtol=1e-13)


def test_views_axpy_dot_and_dtypes(space):
    x0 = np.arange(1000.0) % 7
    x, y = device_view(space, x0, None), device_view(space, np.ones(1000), None)
    porta.parallel_for(space.range(1000), K.axpy, 0.5, x, y)
    np.testing.assert_array_equal(to_numpy(y), 1.0 + 0.5 * x0)
    assert porta.parallel_reduce(space.range(1000), K.dot, x, y) == float(x0 @ (1.0 + 0.5 * x0))
    xf = device_view(space, np.arange(64, dtype=np.float32), None)
    yf = device_view(space, np.ones(64, dtype=np.float32), None)
    porta.parallel_for(space.range(64), K.f32_axpy, 2.0, xf, yf)
    np.testing.assert_array_equal(to_numpy(yf), np.float32(2.0) * np.arange(64) + 1)
    xi = device_view(space, np.arange(64, dtype=np.int32), None)
    yi = device_view(space, np.zeros(64, dtype=np.int64), None)
    porta.parallel_for(space.range(64), K.i32_copy, xi, yi)
    np.testing.assert_array_equal(to_numpy(yi), 2 * np.arange(64) + 1)


def test_views_as_kernel_arguments_mismatches(space):
    x = porta.View(10, porta.f32, space=space.mem)
    y = porta.View(10, space=space.mem)
    with pytest.raises(TypeError, match=r"axpy: argument 'x' has dtype float32 \(itemsize 4\), "
                                        r"expected float64"):
        porta.parallel_for(space.range(10), K.axpy, 1.0, x, y)
    with pytest.raises(TypeError, match=r"argument 'x' has 2 dimension\(s\), expected 1"):
        porta.parallel_for(space.range(10), K.axpy, 1.0, porta.View((10, 1), space=space.mem), y)
    with pytest.raises(TypeError, match=r"argument 'y' has dtype uint64"):
        porta.parallel_for(space.range(10), K.axpy, 1.0, y, porta.View(10, np.uint64,
                                                                       space=space.mem))
    with pytest.raises(TypeError, match=r"argument 'a' must be a scalar \(float64\), got an "
                                        r"array"):
        porta.parallel_for(space.range(10), K.axpy, porta.View((), space=space.mem), y, y)
    np.testing.assert_array_equal(to_numpy(y), 0.0)


# ---- bad input ----

def test_bad_input():
    with pytest.raises(ValueError, match="unknown memory space 'nowhere'"):
        porta.View(3, space="nowhere")
    with pytest.raises(ValueError, match="unknown memory space 7"):
        porta.View(3, space=7)
    with pytest.raises(TypeError, match="not complex128"):
        porta.View(3, np.complex128)
    with pytest.raises(TypeError, match="not int16"):
        porta.View(3, np.int16)
    with pytest.raises(TypeError, match="not float16"):
        porta.View(3, "float16")
    with pytest.raises(TypeError, match="byte-swapped"):
        porta.View(3, ">f8")
    with pytest.raises(TypeError, match="porta.View: data type"):
        porta.View(3, "no-such-type")
    with pytest.raises(ValueError, match=r"extent 1 of shape \(3, -2\) is negative"):
        porta.View((3, -2))
    with pytest.raises(ValueError, match="at most 8 dimensions, not 9"):
        porta.View((1,) * 9)
    with pytest.raises(ValueError, match="layout must be 'C'"):
        porta.View(3, layout="K")
    with pytest.raises(TypeError, match="shape is an int or a tuple of ints, not str"):
        porta.View("abc")
    with pytest.raises(TypeError):
        porta.View((2.5,))
    with pytest.raises(ValueError, match="extents overflow"):
        porta.View((2 ** 40, 2 ** 40))
    with pytest.raises(OverflowError):
        porta.View((2 ** 70,))
    with pytest.raises(TypeError, match=r"views are made by porta.View\(shape"):
        porta._core.View()
    if not porta.backend_available("cuda"):
        with pytest.raises(porta.PortaError, match="memory space Cuda is not available"):
            porta.View(3, space="cuda")
