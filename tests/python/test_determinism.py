"""Deterministic mode: a Python dot product is bitwise the same on Serial, OpenMP x1 and
OpenMP x2, and the same bits as the kernel written in C with Porta (compiled here against the
package's installed headers and libporta, the flags of the generated modules). On CUDA the
Python dot is the same bits as the C kernel compiled by nvcc (the modules' flags), and as the
host back ends' with a reproducible build (no FMA contraction)."""
import ctypes
import struct

import numpy as np
import pytest

import porta
from porta import _core, cache
import kernels_basic as K

C_DOT = r"""
#include "porta/porta.h"
typedef struct { const double *x, *y; } cdot_args;
PORTA_REDUCE(cdot, cdot_args, a, i, porta_sum_f64, acc) { *acc += a->x[i] * a->y[i]; }
#ifdef __cplusplus
extern "C" /* nvcc compiles this as CUDA C++ for the CUDA back end */
#endif
__attribute__((visibility("default"))) int c_dot(int backend, const double *x, const double *y,
                                                 int64_t n, double *out) {
  cdot_args a = {x, y};
  return PORTA_PARALLEL_REDUCE(cdot, porta_exec_backend((porta_backend)backend),
                               porta_range(0, n), &a, out);
}
"""


def bits(v):
    return struct.pack("<d", v)


def test_deterministic_dot_bitwise_across_backends_and_equal_to_c():
    rng = np.random.default_rng(29)
    n = 100003  # not a multiple of the deterministic chunk
    x = 10.0 ** rng.uniform(-8, 8, n)
    y = rng.standard_normal(n)
    lib = ctypes.CDLL(cache.build(C_DOT, "c_dot"))
    lib.c_dot.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                          ctypes.POINTER(ctypes.c_double)]
    was = porta.deterministic()
    porta.set_deterministic(True)
    try:
        py, c = {}, {}
        for name, threads in (("serial", 1), ("openmp", 1), ("openmp", 2)):
            porta.set_num_threads(threads)
            py[name, threads] = porta.parallel_reduce(porta.RangePolicy(0, n, space=name), K.dot,
                                                      x, y)
            out = ctypes.c_double(-1.0)
            rc = lib.c_dot(_core.backend_id(name), x.ctypes.data, y.ctypes.data, n,
                           ctypes.byref(out))
            assert rc == 0
            c[name, threads] = out.value
    finally:
        porta.set_deterministic(was)
        porta.set_num_threads(2)
    ref = bits(py["serial", 1])
    assert all(bits(v) == ref for v in py.values()), py
    assert all(bits(v) == ref for v in c.values()), (py, c)
    np.testing.assert_allclose(py["serial", 1], float(np.dot(x, y)), rtol=1e-10)


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
def test_deterministic_dot_on_cuda_equal_to_c():
    rng = np.random.default_rng(29)
    n = 100003
    x = 10.0 ** rng.uniform(-8, 8, n)
    y = rng.standard_normal(n)
    dx, dy = porta.View(n, space="cuda"), porta.View(n, space="cuda")
    porta.deep_copy(dx, x)
    porta.deep_copy(dy, y)
    lib = ctypes.CDLL(cache.build(C_DOT, "c_dot_cuda", cuda=True))
    lib.c_dot.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                          ctypes.POINTER(ctypes.c_double)]
    was = porta.deterministic()
    porta.set_deterministic(True)
    try:
        pol = porta.RangePolicy(0, n, space="cuda")
        py = [_core.parallel_reduce(pol, K.dot, dx, dy) for _ in range(3)]
        out = ctypes.c_double(-1.0)
        assert lib.c_dot(_core.CUDA_BACKEND, dx.data_ptr, dy.data_ptr, n, ctypes.byref(out)) == 0
        host = _core.parallel_reduce(porta.RangePolicy(0, n, space="serial"), K.dot, x, y)
    finally:
        porta.set_deterministic(was)
    assert len({bits(v) for v in py}) == 1, py  # run to run
    assert bits(py[0]) == bits(out.value), (py[0], out.value)  # Python == C on CUDA
    np.testing.assert_allclose(py[0], float(np.dot(x, y)), rtol=1e-10)
    np.testing.assert_allclose(py[0], host, rtol=1e-12)
    from porta import _buildinfo
    if "-DPORTA_ENABLE_REPRODUCIBLE=ON" in getattr(_buildinfo, "CMAKE_ARGS", ()):
        assert bits(py[0]) == bits(host)
