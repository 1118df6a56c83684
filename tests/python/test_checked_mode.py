"""Issue 53: the checked mode (porta.init(bounds_check=True), porta.set_bounds_check(True),
@porta.kernel(bounds_check=True), PORTA_BOUNDS_CHECK=1) compiles checked variants of the
kernels (a module and a cache entry of their own) whose first bad array access raises
IndexError after the launch, naming the array, the indices, the extents and the kernel's Python
file and line, on the host back ends (the `space` fixture: Serial, OpenMP x1 and x2) and on CUDA
(PORTA_BACKEND=cuda): the process goes on, a bad read gives 0 and a bad write is dropped.
Before, an access out of bounds was silent, or aborted the process in a debug build."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import porta
from markers import marked_line
import kernels_oob as K

HERE = os.path.dirname(os.path.abspath(__file__))
FILE = os.path.join(HERE, "kernels_oob.py")


def line(tag):
    return marked_line(FILE, "# OOB " + tag)


def where(kernel, tag):
    return "in kernel kernels_oob.%s at %s:%d" % (kernel, FILE, line(tag))


def test_read_past_the_end(space):
    x, y = np.arange(10.0), np.full(10, -1.0)
    with pytest.raises(IndexError) as e:
        porta.parallel_for(space.range(10), K.shift_checked, x, y)
    assert str(e.value) == ("index 10 is out of bounds for axis 0 with size 10: x[10] (shape "
                            "(10,)) " + where("shift_checked", "checked-read")), str(e.value)
    np.testing.assert_array_equal(y, list(range(1, 10)) + [0.0])  # the bad read gave 0
    porta.parallel_for(space.range(9), K.shift_checked, x, y)  # the process goes on
    np.testing.assert_array_equal(y[:9], np.arange(1.0, 10.0))


def test_negative_index(space):
    """x[i - 1] at i = 0: a negative index computed at run time is an IndexError here."""
    x, y = np.arange(5.0), np.zeros(5)
    with pytest.raises(IndexError, match=r"^index -1 is out of bounds for axis 0 with size 5: "
                       r"x\[-1\] \(shape \(5,\)\) " + where("back_checked", "checked-negative")):
        porta.parallel_for(space.range(5), K.back_checked, x, y)
    np.testing.assert_array_equal(y, [0.0, 0.0, 1.0, 2.0, 3.0])


def test_write_past_the_end_is_dropped(space):
    """y is the first 6 elements of a larger array: the bad write of y[6] does not reach it."""
    base = np.zeros(8)
    y = base[:6]
    with pytest.raises(IndexError, match=r"y\[6\] \(shape \(6,\)\) " +
                       where("write_checked", "checked-write")):
        porta.parallel_for(space.range(6), K.write_checked, y)
    np.testing.assert_array_equal(base, [0.0] + [7.0] * 5 + [0.0, 0.0])


def test_two_dimensions(space):
    """a[i, j + 1] at j = 5, a of 6 columns: the first bad access is in dimension 1 (of any row:
    with threads, any of them may come first)."""
    a, b = np.ones((4, 6)), np.zeros((4, 6))
    with pytest.raises(IndexError) as e:
        porta.parallel_for(space.md((0, 0), (4, 6)), K.left_checked, a, b)
    msg = str(e.value)
    assert msg.startswith("index 6 is out of bounds for axis 1 with size 6: a["), msg
    assert ", 6] (shape (4, 6)) " + where("left_checked", "checked-2d") in msg, msg
    expect = np.full((4, 6), 2.0)
    expect[:, 5] = 1.0  # the bad reads gave 0
    np.testing.assert_array_equal(b, expect)


def test_reduction_and_atomics(space):
    x = np.arange(4.0)
    idx = np.array([0, 1, 2, 3, 4, 1], np.int64)
    assert porta.parallel_reduce(space.range(4), K.sum_checked, x, idx) == 6.0
    with pytest.raises(IndexError, match=r"x\[4\] .*" + where("sum_checked", "checked-reduce")):
        porta.parallel_reduce(space.range(6), K.sum_checked, x, idx)
    h = np.zeros(4, np.int64)
    with pytest.raises(IndexError, match=r"h\[4\] .*" + where("scatter_checked",
                                                             "checked-atomic")):
        porta.parallel_for(space.range(6), K.scatter_checked, h, idx)
    np.testing.assert_array_equal(h, [1, 2, 1, 1])  # the bad update was dropped


def test_global_switch_and_kernel_option(space):
    """porta.set_bounds_check(True) checks the kernels without an option of their own;
    bounds_check=False keeps a kernel unchecked. Each mode has its own module (its C starts
    with a #define, so its cache key differs)."""
    assert not K.guarded.checked and K.shift_checked.checked
    assert "#define PORTA_PY_CHECKED 1" in K.guarded.c_source(checked=True)
    assert "#define PORTA_PY_CHECKED" not in K.guarded.c_source()
    x, y = np.arange(11.0), np.zeros(10)
    try:
        porta.set_bounds_check(True)
        assert porta.bounds_check() and K.guarded.checked and not K.shift_never_checked.checked
        with pytest.raises(IndexError, match=r"y\[10\] .* kernels_oob.guarded at"):
            porta.parallel_for(space.range(11), K.guarded, 11, y)
        np.testing.assert_array_equal(y, np.arange(1.0, 11.0))
        porta.parallel_for(space.range(10), K.shift_never_checked, x, y)  # in range
        np.testing.assert_array_equal(y, np.arange(1.0, 11.0))
    finally:
        porta.set_bounds_check(None)
    assert not porta.bounds_check() and not K.guarded.checked


def test_environment_variable(space, monkeypatch):
    monkeypatch.setenv("PORTA_BOUNDS_CHECK", "1")
    porta.clear_specialisations()
    try:
        assert porta.bounds_check() and K.guarded.checked
        y = np.zeros(4)
        with pytest.raises(IndexError, match=r"y\[4\] \(shape \(4,\)\) in kernel "
                                             r"kernels_oob.guarded"):
            porta.parallel_for(space.range(5), K.guarded, 5, y)
        np.testing.assert_array_equal(y, [1.0, 2.0, 3.0, 4.0])
    finally:
        monkeypatch.delenv("PORTA_BOUNDS_CHECK")
        porta.clear_specialisations()
    assert not K.guarded.checked


def test_init_switch(tmp_path):
    """porta.init(bounds_check=True) in a fresh process."""
    code = textwrap.dedent('''
        import sys, numpy as np
        sys.path.insert(0, %r)
        import porta, kernels_oob as K
        porta.init(backend="serial", args=[], bounds_check=True)
        y = np.zeros(3)
        try:
            porta.parallel_for(4, K.guarded, 4, y)
        except IndexError as e:
            print("IndexError:", e)
        print(y.tolist())
    ''' % HERE)
    env = dict(os.environ, PORTA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("PORTA_BACKEND", None)
    env.pop("PORTA_BOUNDS_CHECK", None)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "IndexError: index 3 is out of bounds for axis 0 with size 3: y[3]" in r.stdout
    assert "[1.0, 2.0, 3.0]" in r.stdout
