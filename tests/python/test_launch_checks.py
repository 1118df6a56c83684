"""Issue 53: every launch checks its range against the arrays the kernel indexes with the launch's
indices directly (y[i], a[i, j], in statements every index runs): a range past an array's end,
or one starting below 0, raises IndexError naming the kernel, the array, the dimension, the
extent and the range before the kernel runs (before the fix: parallel_for(9, axpy, ...) on
8-element arrays wrote y[8] and returned, n = 10**7 crashed the interpreter, RangePolicy(-3, 4)
wrote y[-3] and MDRangePolicy((-1, -1), (3, 4)) corrupted the heap). Accesses that not every
index makes (under an if, after an early return, with a reassigned index) are left to the
kernel. Runs on Serial, OpenMP x1 and x2 (the `space` fixture), and on CUDA under
PORTA_BACKEND=cuda."""
import numpy as np
import pytest

import porta
import kernels_oob as K


def test_range_past_the_end(space):
    x, y = np.ones(8), np.zeros(8)
    with pytest.raises(IndexError) as e:
        porta.parallel_for(space.range(9), K.axpy, 2.0, x, y)
    msg = str(e.value)
    assert msg.startswith("kernels_oob.axpy: the launch range [0, 9) of index 'i'"), msg
    assert "argument 'x'" in msg and "dimension 0" in msg and "extent is 8" in msg, msg
    assert "x[i]" in msg, msg
    np.testing.assert_array_equal(y, np.zeros(8))  # nothing ran
    porta.parallel_for(space.range(8), K.axpy, 2.0, x, y)  # the same kernel, in range
    np.testing.assert_array_equal(y, np.full(8, 2.0))


def test_huge_range(space):
    """n = 10**7 on 8 elements: an IndexError, not a crash."""
    x, y = np.ones(8), np.zeros(8)
    with pytest.raises(IndexError, match=r"\[0, 10000000\) of index 'i'.*extent is 8"):
        porta.parallel_for(space.range(10**7), K.axpy, 1.0, x, y)
    np.testing.assert_array_equal(y, np.zeros(8))


def test_range_starting_below_zero(space):
    x, y = np.ones(8), np.zeros(8)
    with pytest.raises(IndexError) as e:
        porta.parallel_for(space.range(4, begin=-3), K.axpy, 1.0, x, y)
    msg = str(e.value)
    assert "the launch range [-3, 4) of index 'i' starts below 0" in msg, msg
    assert "dimension 0 of argument 'x' (extent 8)" in msg, msg
    np.testing.assert_array_equal(y, np.zeros(8))


def test_reduction_range(space):
    x, y = np.ones(8), np.ones(8)
    with pytest.raises(IndexError, match=r"kernels_oob\.dot: the launch range \[0, 9\)"):
        porta.parallel_reduce(space.range(9), K.dot, x, y)
    assert porta.parallel_reduce(space.range(8), K.dot, x, y) == 8.0


def test_mdrange_below_zero(space):
    a = np.zeros((3, 4))
    with pytest.raises(IndexError) as e:
        porta.parallel_for(space.md((-1, -1), (3, 4)), K.fill2d, 1.0, a)
    assert "[-1, 3) of index 'i' starts below 0" in str(e.value), str(e.value)
    assert "a[i, :]" in str(e.value)
    np.testing.assert_array_equal(a, np.zeros((3, 4)))


def test_mdrange_past_the_end(space):
    a = np.zeros((3, 4))
    with pytest.raises(IndexError) as e:
        porta.parallel_for(space.md((0, 0), (3, 5)), K.fill2d, 1.0, a)
    msg = str(e.value)
    assert "[0, 5) of index 'j' does not fit argument 'a'" in msg, msg
    assert "dimension 1 with it directly (a[:, j])" in msg and "extent is 4" in msg, msg
    porta.parallel_for(space.md((1, 2), (3, 4)), K.fill2d, 1.0, a)
    expect = np.zeros((3, 4))
    expect[1:, 2:] = [[13.0, 14.0], [23.0, 24.0]]
    np.testing.assert_array_equal(a, expect)


def test_transposed_access(space):
    """b[j, i]: b's dimension 0 is checked against j's range, dimension 1 against i's."""
    a = np.arange(12.0).reshape(3, 4)
    b = np.zeros((4, 3))
    porta.parallel_for(space.md((0, 0), (3, 4)), K.transpose, a, b)
    np.testing.assert_array_equal(b, a.T)
    with pytest.raises(IndexError, match=r"index 'j' does not fit argument 'b'.*b\[j, :\]"):
        porta.parallel_for(space.md((0, 0), (3, 4)), K.transpose, a, np.zeros((3, 4)))


def test_accesses_not_every_index_makes(space):
    """A guarded access, one after an early return, one with a reassigned index and one on the
    untaken side of a conditional expression are the kernel's business: these launches run."""
    y = np.zeros(8)
    porta.parallel_for(space.range(12), K.guarded, 8, y)
    np.testing.assert_array_equal(y, np.arange(1.0, 9.0))
    y = np.zeros(8)
    porta.parallel_for(space.range(12), K.early_return, y)
    np.testing.assert_array_equal(y, 2.0 * np.arange(8))
    y = np.zeros(8)
    porta.parallel_for(space.range(9, begin=1), K.shifted, y)
    np.testing.assert_array_equal(y, np.full(8, 3.0))
    x, y = np.arange(8.0), np.zeros(12)
    porta.parallel_for(space.range(12), K.conditional_expr, 8, x, y)
    np.testing.assert_array_equal(y, np.concatenate([np.arange(8.0), -np.ones(4)]))
    with pytest.raises(IndexError, match="argument 'y'"):  # y[i] is always made
        porta.parallel_for(space.range(13), K.conditional_expr, 8, x, y)


def test_atomic_index(space):
    h, w = np.zeros(6, np.int64), np.arange(6, dtype=np.int64)
    porta.parallel_for(space.range(6), K.histogram, h, w)
    np.testing.assert_array_equal(h, w)
    with pytest.raises(IndexError, match="argument 'h'"):
        porta.parallel_for(space.range(6), K.histogram, np.zeros(5, np.int64), w)


def test_empty_ranges_run_nothing(space):
    """An empty range touches nothing: its bounds are not checked."""
    x, y = np.ones(2), np.zeros(2)
    porta.parallel_for(space.range(5, begin=5), K.axpy, 1.0, x, y)
    porta.parallel_for(space.range(-3, begin=-3), K.axpy, 1.0, x, y)
    porta.parallel_for(space.md((0, 7), (3, 7)), K.fill2d, 1.0, np.zeros((1, 1)))
    np.testing.assert_array_equal(y, np.zeros(2))


def test_direct_indices_exported():
    """The generated C describes, per array and dimension, the launch indices that index it
    directly (bit r: index r), and nothing for accesses that not every index makes."""
    src = K.transpose.c_source()
    assert "_direct[] = {1, 2};" in src and "_direct[] = {2, 1};" in src, src
    assert "_direct[]" not in K.guarded.c_source()
    assert "_direct[]" not in K.shifted.c_source()


def test_numpy_integer_range():
    """A NumPy integer is a range like an int (numbers.Integral); a float is refused."""
    x, y = np.ones(8), np.zeros(8)
    porta.parallel_for(np.int64(8), K.axpy, 1.0, x, y)
    np.testing.assert_array_equal(y, np.ones(8))
    with pytest.raises(TypeError):
        porta.parallel_for(8.0, K.axpy, 1.0, x, y)
