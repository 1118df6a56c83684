"""Device views and device arrays on the CUDA back end (docs/python.md, "Arrays", "CUDA"):
__cuda_array_interface__ v3 and DLPack exports read back by real consumers (CuPy, Numba,
PyTorch where installed) without a copy, their arrays accepted as kernel arguments in C, F and
strided layouts, deep_copy and mirrors between host and device, and memory-space mismatches
raising TypeError naming the argument. Skipped where Porta has no CUDA back end or no GPU."""
import gc

import numpy as np
import pytest

import porta
import kernels_basic as K

pytestmark = pytest.mark.skipif(not porta.backend_available("cuda"),
                                reason="no CUDA back end (a CUDA build of porta and a GPU)")

# The launch entry points themselves: the CUDA test run's conftest stages NumPy arguments of
# porta.parallel_for through device memory, these tests pass host arrays on purpose.
launch_for = porta._core.parallel_for
launch_reduce = porta._core.parallel_reduce


def cuda_range(n):
    return porta.RangePolicy(0, n, space="cuda")


def cuda_md(upper):
    return porta.MDRangePolicy((0,) * len(upper), upper, space="cuda")


def device(a, layout=None, label="d"):
    v = porta.View(a.shape, a.dtype, space="cuda", layout=layout, label=label)
    porta.deep_copy(v, np.asarray(a, order="F" if v.layout == "F" else "C"))
    return v


def stencil_ref(u):
    ref = np.zeros_like(u)
    ref[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                       - 4.0 * u[1:-1, 1:-1])
    return ref


# ---- device views ----

@pytest.mark.parametrize("layout", ["C", "F", None])
def test_device_view_exports(layout):
    v = porta.View((6, 5), porta.f32, space="cuda", layout=layout, label="dv")
    assert v.space == "cuda" and v.layout == ("C" if layout == "C" else "F")  # GPU: Left
    cai = v.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (6, 5) and cai["typestr"] == "<f4"
    assert cai["data"] == (v.data_ptr, False) and cai["stream"] == 1
    if v.layout == "C":
        assert cai["strides"] is None
    else:
        assert cai["strides"] == (4, 24)
    assert v.strides == ((20, 4) if v.layout == "C" else (4, 24))
    dev_type, dev_id = v.__dlpack_device__()
    assert dev_type == 2 and dev_id >= 0  # kDLCUDA, the GPU Porta runs on
    with pytest.raises((TypeError, BufferError), match="host cannot read"):
        np.asarray(v)


def test_device_deep_copy_and_mirrors():
    a = np.arange(24.0).reshape(4, 6)
    v = porta.View((4, 6), space="cuda", layout="C", label="v")
    porta.deep_copy(v, a)  # host -> device
    w = porta.View((4, 6), space="cuda", layout="C", label="w")
    porta.deep_copy(w, v)  # device -> device
    b = np.zeros((4, 6))
    porta.deep_copy(b, w)  # device -> host
    np.testing.assert_array_equal(b, a)
    m = porta.create_mirror_view(v)  # the host cannot read v: a new host view
    assert m is not v and m.space == "host" and m.layout == "C" and m.shape == (4, 6)
    porta.deep_copy(m, v)
    np.testing.assert_array_equal(np.asarray(m), a)
    h = porta.create_mirror_view_and_copy(w)
    assert h.space == "host"
    np.testing.assert_array_equal(np.asarray(h), a)
    np.testing.assert_array_equal(v.to_numpy(), a)
    f = porta.View((4, 6), space="cuda")  # LayoutLeft, the GPU's default
    with pytest.raises(ValueError, match=r"layouts differ \(Left vs Right\)"):
        porta.deep_copy(f, v)
    porta.deep_copy(f, np.asfortranarray(a))
    np.testing.assert_array_equal(f.to_numpy(), a)
    assert f.to_numpy().flags.f_contiguous


def test_managed_and_pinned_views():
    u = porta.View(100, space="cuda_uvm", label="uvm")
    np.asarray(u)[:] = np.arange(100.0)  # the host reads managed memory
    y = porta.View(100, space="cuda_uvm")
    launch_for(cuda_range(100), K.axpy, 2.0, u, y)
    porta.fence()
    np.testing.assert_array_equal(np.asarray(y), 2.0 * np.arange(100.0))
    assert u.__dlpack_device__()[0] == 13  # kDLCUDAManaged
    p = porta.View(10, space="cuda_host_pinned")
    np.asarray(p)[:] = 1.0
    assert p.__dlpack_device__() == (3, 0)  # kDLCUDAHost
    q = porta.View(10, space="cuda_host_pinned")
    if porta._core.space_accessible(porta._core.CUDA_BACKEND, porta._core.CUDA_HOST_PINNED_SPACE):
        launch_for(cuda_range(10), K.axpy, 3.0, p, q)
        porta.fence()
        np.testing.assert_array_equal(np.asarray(q), 3.0)


# ---- memory-space mismatches: TypeError naming the argument, never a crash ----

def test_host_arrays_on_cuda_raise():
    x, y = np.arange(10.0), np.zeros(10)
    dx = device(x)
    with pytest.raises(TypeError, match=r"axpy: argument 'y' \(ndarray, read through the buffer "
                                        r"protocol\) is in host memory, which the cuda back end "
                                        r"cannot read"):
        launch_for(cuda_range(10), K.axpy, 1.0, dx, y)
    with pytest.raises(TypeError, match=r"argument 'x' \(ndarray"):
        launch_reduce(cuda_range(10), K.dot, x, dx)
    hv = porta.View(10, space="host")
    with pytest.raises(TypeError, match=r"argument 'x' \(View, read through porta.View\) is in "
                                        r"host memory"):
        launch_for(cuda_range(10), K.axpy, 1.0, hv, dx)
    assert not y.any()


def test_device_arrays_on_host_raise():
    dx, dy = device(np.ones(10)), device(np.zeros(10))
    with pytest.raises(TypeError, match=r"argument 'x' \(View, read through porta.View\) is in "
                                        r"CUDA device memory, which the serial back end cannot "
                                        r"read"):
        launch_for(porta.RangePolicy(0, 10, space="serial"), K.axpy, 1.0, dx, dy)
    np.testing.assert_array_equal(dy.to_numpy(), 0.0)


# ---- C-ordered and other layouts on the GPU ----

@pytest.mark.parametrize("lu,lo", [("C", "C"), ("F", "F"), ("C", "F")])
def test_layouts_indexed_right_on_cuda(lu, lo):
    rng = np.random.default_rng(11)
    u0 = rng.random((40, 27))
    u, out = device(u0, lu), device(np.zeros((40, 27)), lo)
    launch_for(cuda_md((40, 27)), K.stencil2d, u, out)
    np.testing.assert_allclose(out.to_numpy(), stencil_ref(u0), rtol=1e-15, atol=1e-15)


# ---- CuPy: __cuda_array_interface__ and DLPack both ways ----

def test_cupy_round_trip():
    cp = pytest.importorskip("cupy")
    v = device(np.arange(12.0).reshape(3, 4), "C")
    c = cp.asarray(v)  # __cuda_array_interface__: no copy
    assert c.data.ptr == v.data_ptr and c.shape == (3, 4) and c.strides == (32, 8)
    np.testing.assert_array_equal(cp.asnumpy(c), np.arange(12.0).reshape(3, 4))
    c *= 2.0  # CuPy writes, Porta reads
    cp.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(v.to_numpy(), 2.0 * np.arange(12.0).reshape(3, 4))
    d = cp.from_dlpack(v)  # DLPack: no copy
    assert d.data.ptr == v.data_ptr
    f = device(np.arange(12.0).reshape(3, 4), "F")
    cf = cp.asarray(f)
    assert cf.strides == (8, 24) and cf.flags.f_contiguous
    np.testing.assert_array_equal(cp.asnumpy(cf), np.arange(12.0).reshape(3, 4))
    df = cp.from_dlpack(f)
    assert df.strides == (8, 24)
    np.testing.assert_array_equal(cp.asnumpy(df), np.arange(12.0).reshape(3, 4))
    del v, c, d
    gc.collect()
    np.testing.assert_array_equal(cp.asnumpy(df), np.arange(12.0).reshape(3, 4))  # held
    # CuPy arrays in deep_copy and mirrors (CuPy's buffer refuses the host: its interface is
    # read instead)
    a = cp.arange(20.0).reshape(4, 5)
    w = porta.View((4, 5), space="cuda", layout="C")
    porta.deep_copy(w, a)
    np.testing.assert_array_equal(w.to_numpy(), np.arange(20.0).reshape(4, 5))
    b = cp.zeros((4, 5))
    porta.deep_copy(b, w)
    np.testing.assert_array_equal(cp.asnumpy(b), np.arange(20.0).reshape(4, 5))
    m = porta.create_mirror_view_and_copy(a)
    assert isinstance(m, porta.View) and m.space == "host"
    np.testing.assert_array_equal(np.asarray(m), np.arange(20.0).reshape(4, 5))


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_cupy_arrays_as_kernel_arguments(order):
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(12)
    u0 = rng.random((50, 34))
    if order == "strided":
        big = cp.asarray(rng.random((100, 68)))
        u = big[::2, 1::2]
        u0 = cp.asnumpy(u)
    else:
        u = cp.asarray(u0, order=order)
    out = cp.zeros((50, 34), order="F" if order == "F" else "C")
    assert porta._core.array_info(u)[4] == "__cuda_array_interface__"
    launch_for(cuda_md((50, 34)), K.stencil2d, u, out)
    np.testing.assert_allclose(cp.asnumpy(out), stencil_ref(u0), rtol=1e-15, atol=1e-15)
    x, y = cp.arange(1000, dtype=cp.float64), cp.ones(1000)
    launch_for(cuda_range(1000), K.axpy, 0.5, x, y)
    np.testing.assert_array_equal(cp.asnumpy(y), 1.0 + 0.5 * np.arange(1000.0))
    got = launch_reduce(cuda_range(1000), K.dot, x, y)
    assert got == float(np.arange(1000.0) @ (1.0 + 0.5 * np.arange(1000.0)))
    with pytest.raises(TypeError, match=r"argument 'x' \(ndarray, read through "
                                        r"__cuda_array_interface__\) is in CUDA device memory, "
                                        r"which the openmp back end cannot read"):
        launch_for(porta.RangePolicy(0, 1000, space="openmp"), K.axpy, 0.5, x, y)


def test_cupy_on_another_stream():
    cp = pytest.importorskip("cupy")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.arange(1 << 20, dtype=cp.float64)
        y = cp.zeros(1 << 20)
        # the interface names this stream: Porta waits for it before its own launch
        launch_for(cuda_range(1 << 20), K.axpy, 1.0, x, y)
    porta.fence()
    assert float(cp.asnumpy(y)[-1]) == float((1 << 20) - 1)


class DLPackOnly:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_dlpack_device_arrays_as_kernel_arguments():
    cp = pytest.importorskip("cupy")
    x, y = cp.arange(100, dtype=cp.float64), cp.zeros(100)
    assert porta._core.array_info(DLPackOnly(y))[2] == porta._core.CUDA_SPACE
    launch_for(cuda_range(100), K.axpy, 3.0, DLPackOnly(x), DLPackOnly(y))
    np.testing.assert_array_equal(cp.asnumpy(y), 3.0 * np.arange(100.0))
    with pytest.raises(TypeError, match=r"argument 'y' \(DLPackOnly, read through DLPack\) is in "
                                        r"CUDA device memory, which the serial back end"):
        launch_for(porta.RangePolicy(0, 100, space="serial"), K.axpy, 1.0, np.zeros(100),
                   DLPackOnly(y))


# ---- Numba and PyTorch, where installed ----

def test_numba_round_trip():
    try:
        from numba import cuda
    except ImportError:
        pytest.skip("numba is not installed")
    if not cuda.is_available():
        pytest.skip("numba sees no GPU")
    v = device(np.arange(10.0), "C")
    d = cuda.as_cuda_array(v)  # __cuda_array_interface__: no copy
    assert d.device_ctypes_pointer.value == v.data_ptr
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10.0))
    y = cuda.to_device(np.zeros(10))
    launch_for(cuda_range(10), K.axpy, 2.0, d, y)  # Numba's array as a kernel argument
    porta.fence()
    np.testing.assert_array_equal(y.copy_to_host(), 2.0 * np.arange(10.0))


def test_torch_dlpack_round_trip():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    v = device(np.arange(6.0).reshape(2, 3), "C")
    t = torch.from_dlpack(v)
    assert t.data_ptr() == v.data_ptr and t.is_cuda and t.stride() == (3, 1)
    t += 1.0
    torch.cuda.synchronize()
    np.testing.assert_array_equal(v.to_numpy(), np.arange(6.0).reshape(2, 3) + 1.0)
    u0 = np.random.default_rng(13).random((30, 20))
    u = torch.from_numpy(u0).cuda()
    out = torch.zeros(30, 20, dtype=torch.float64, device="cuda")
    launch_for(cuda_md((30, 20)), K.stencil2d, u, out)  # PyTorch's tensors as arguments
    porta.fence()
    np.testing.assert_allclose(out.cpu().numpy(), stencil_ref(u0), rtol=1e-15, atol=1e-15)
