"""Issue 53: integer // and % by zero in a kernel raise ZeroDivisionError after the launch,
naming the Python file and line, as Python and Numba do (before the fix the process died of
SIGFPE), on Serial, OpenMP x1 and x2 (the `space` fixture) and on CUDA (PORTA_BACKEND=cuda), in
the default mode. INT64_MIN // -1 wraps (as NumPy's int64), a constant zero divisor is a
TranslationError, float division keeps IEEE results, and each launch has its own error record
(two Python threads launching at once each get their own error or none)."""
import os
import threading

import numpy as np
import pytest

import porta
from markers import marked_line
import kernels_div as K

HERE = os.path.dirname(os.path.abspath(__file__))
FILE = os.path.join(HERE, "kernels_div.py")
I64_MIN = np.iinfo(np.int64).min


def line(tag):
    return marked_line(FILE, "# DIV " + tag)


def test_floordiv_by_zero(space):
    x, y = np.arange(10, dtype=np.int64), np.zeros(10, np.int64)
    with pytest.raises(ZeroDivisionError) as e:
        porta.parallel_for(space.range(10), K.floordiv, 0, x, y)
    msg = str(e.value)
    assert msg.startswith("integer division or modulo by zero ("), msg
    assert "// 0) in kernel kernels_div.floordiv at %s:%d" % (FILE, line("floordiv")) in msg, msg
    porta.parallel_for(space.range(10), K.floordiv, -3, x, y)  # the process goes on
    np.testing.assert_array_equal(y, x // -3)


def test_mod_by_zero_computed(space):
    """A zero divisor read from an array at one index only."""
    x = np.arange(-8, 8, dtype=np.int64)
    d = np.array([3, -5, 7, 2] * 4, np.int64)
    y = np.zeros(16, np.int64)
    porta.parallel_for(space.range(16), K.mod, d, x, y)
    np.testing.assert_array_equal(y, x % d)  # Python's (and NumPy's) sign of the divisor
    d[11] = 0
    with pytest.raises(ZeroDivisionError, match=r"\(3 %% 0\) in kernel kernels_div.mod at %s:%d$"
                       % (FILE, line("mod"))):
        porta.parallel_for(space.range(16), K.mod, d, x, y)


def test_augmented_mod_by_zero(space):
    y = np.arange(4, dtype=np.int64)
    with pytest.raises(ZeroDivisionError, match=":%d$" % line("mod-aug")):
        porta.parallel_for(space.range(4), K.mod_aug, 0, y)


def test_in_device_function(space):
    """The line named is the device function's."""
    x, y = np.arange(6, dtype=np.int64), np.zeros(6, np.int64)
    porta.parallel_for(space.range(6), K.via_function, 4, x, y)
    np.testing.assert_array_equal(y, x // 4)
    with pytest.raises(ZeroDivisionError, match="kernels_div.via_function at %s:%d"
                       % (FILE, line("function"))):
        porta.parallel_for(space.range(6), K.via_function, 0, x, y)


def test_in_reduction(space):
    x = np.arange(1000, dtype=np.int64)
    d = np.full(1000, 7, np.int64)
    assert porta.parallel_reduce(space.range(1000), K.sum_quotients, d, x) == (x // 7).sum()
    d[999] = 0
    with pytest.raises(ZeroDivisionError, match=":%d$" % line("reduce")):
        porta.parallel_reduce(space.range(1000), K.sum_quotients, d, x)


def test_int64_min_by_minus_one(space):
    """INT64_MIN // -1 wraps to INT64_MIN and INT64_MIN % -1 is 0, as NumPy's int64 (C's
    division traps), with the divisor known at run time or constant."""
    x = np.array([I64_MIN, -7, 7, 0], np.int64)
    q, r = np.zeros(4, np.int64), np.ones(4, np.int64)
    porta.parallel_for(space.range(4), K.by_minus_one, -1, x, q, r)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(q, x // np.int64(-1))
    np.testing.assert_array_equal(q, [I64_MIN, 7, -7, 0])
    np.testing.assert_array_equal(r, [0, 0, 0, 0])
    q, r = np.zeros(4, np.int64), np.ones(4, np.int64)
    porta.parallel_for(space.range(4), K.by_constant_minus_one, x, q, r)
    np.testing.assert_array_equal(q, [I64_MIN, 7, -7, 0])
    np.testing.assert_array_equal(r, [0, 0, 0, 0])


def test_float_division_is_ieee(space):
    """Float //, % and / by zero give IEEE's inf and nan, without an exception."""
    x = np.array([1.0, -2.0, 0.0])
    q, r, t = np.zeros(3), np.zeros(3), np.zeros(3)
    porta.parallel_for(space.range(3), K.float_div, 0.0, x, q, r, t)
    np.testing.assert_array_equal(q[:2], [np.inf, -np.inf])
    assert np.isnan(q[2]) and np.isnan(r).all()
    np.testing.assert_array_equal(t[:2], [np.inf, -np.inf])
    assert np.isnan(t[2])
    t = np.zeros(3)
    porta.parallel_for(space.range(3), K.int_true_div, 0, np.array([1, -1, 0]), t)
    np.testing.assert_array_equal(t[:2], [np.inf, -np.inf])
    assert np.isnan(t[2])


def test_constant_zero_divisor_is_a_translation_error():
    with pytest.raises(porta.TranslationError) as e:
        K.constant_zero.check()
    assert e.value.line == line("constant") and "x[i] % 0" in str(e.value), str(e.value)


def test_errors_per_launch(space):
    """Two Python threads launch at once (launches this long release the GIL): the one dividing
    by zero gets ZeroDivisionError every time, the other never, with right answers."""
    n = 1 << 16
    x = np.arange(n, dtype=np.int64)
    results = {}

    def run(d, key):
        y = np.zeros(n, np.int64)
        errors = ok = 0
        for _ in range(30):
            try:
                porta.parallel_for(space.range(n), K.floordiv, d, x, y)
                ok += np.array_equal(y, x // d)
            except ZeroDivisionError:
                errors += 1
        results[key] = (errors, ok)

    threads = [threading.Thread(target=run, args=(0, "zero")),
               threading.Thread(target=run, args=(3, "three"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"zero": (30, 0), "three": (0, 30)}, results


def test_team_kernels(space):
    """In a team kernel's body, and in a scratch extent (computed on the host at the launch:
    the launch raises before the kernel runs)."""
    out = np.zeros(3)
    porta.parallel_for(porta.TeamPolicy(3, space=space.name), K.team_tiles, 8, 2, out)
    np.testing.assert_array_equal(out, [3.0, 3.0, 3.0])
    with pytest.raises(ZeroDivisionError, match=r"\(8 // 0\) in kernel kernels_div.team_tiles "
                                                 r"at .*:%d$" % line("scratch")):
        porta.parallel_for(porta.TeamPolicy(3, space=space.name), K.team_tiles, 8, 0, out)
    q = np.zeros(4, np.int64)
    porta.parallel_for(porta.TeamPolicy(4, space=space.name), K.team_div, 2, q)
    np.testing.assert_array_equal(q, [0, 0, 1, 1])
    with pytest.raises(ZeroDivisionError, match=":%d$" % line("team")):
        porta.parallel_for(porta.TeamPolicy(4, space=space.name), K.team_div, 0, q)
