"""Kernels that index past their arrays' ends (tests/python/test_bounds.py): in a debug build
Porta's bounds check must name this file and the line of the access."""
import porta


@porta.kernel
def shift_right(i: int, x: porta.f64[:], y: porta.f64[:]):
    y[i] = x[i + 1]  # OOB 1d


@porta.kernel
def transpose_add(i: int, j: int, a: porta.f64[:, :], b: porta.f64[:, :]):
    t = a[i, j]
    b[j, i] = t + 1.0  # OOB 2d
