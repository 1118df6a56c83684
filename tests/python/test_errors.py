"""Errors in Python terms: unsupported constructs (message, line, column), argument
mismatches naming the argument, and one bad kernel not breaking the others of its module."""
import os

import numpy as np
import pytest

import porta
import kernels_bad as B
import kernels_basic as K


def marker(tag, token):
    """(line, 1-based column) of `token` on the line marked `# ERR tag` in kernels_bad.py."""
    path = os.path.join(os.path.dirname(__file__), "kernels_bad.py")
    with open(path) as fh:
        for n, text in enumerate(fh, 1):
            if text.rstrip().split("# ERR ")[-1].split()[0:1] == [tag] and "# ERR " in text:
                return n, text.index(token) + 1
    raise AssertionError("no marker " + tag)


CASES = [
    ("bad_listcomp", "listcomp", "[k for", "'[k for k in range(3)]'", "for loop over range"),
    ("bad_string", "string", '"hello"', "a string", "no strings"),
    ("bad_call", "call", "helper(i)", "a call to 'helper'", "math functions"),
    ("bad_try", "try", "try:", "'try:", "cannot raise or catch"),
    ("bad_name", "name", "undefined_thing", "the name 'undefined_thing'", "as an argument"),
    ("bad_index_count", "indexcount", "a[i]", "1 index(es) into 'a'", "a[i0, i1]"),
    ("bad_return", "return", "return", "return with a value", "kernels return nothing"),
    ("bad_annotation", "annotation", "x)", "without annotation ('x')", "porta.f64[:]"),
]


@pytest.mark.parametrize("name,tag,token,construct,hint", CASES, ids=[c[0] for c in CASES])
def test_unsupported_construct(name, tag, token, construct, hint):
    k = getattr(B, name)
    with pytest.raises(porta.TranslationError) as ei:
        porta.parallel_for(4, k, np.zeros(4))
    e = ei.value
    line, col = marker(tag, token)
    assert e.file.endswith("kernels_bad.py")
    assert (e.line, e.col) == (line, col), str(e)
    assert construct in e.construct, str(e)
    assert hint in e.hint, str(e)
    assert e.kernel == name
    s = str(e)
    assert s.startswith("%s:%d:%d: " % (e.file, line, col)) and "not supported" in s
    with pytest.raises(porta.TranslationError):
        k.check()


def test_bad_kernels_do_not_break_good_one():
    x = np.zeros(8)
    porta.parallel_for(8, B.good, x)
    np.testing.assert_array_equal(x, 2.0 * np.arange(8))


def test_dtype_mismatch_names_argument():
    x32 = np.zeros(10, dtype=np.float32)
    with pytest.raises(TypeError, match=r"axpy: argument 'y' has dtype float32.*expected float64"):
        porta.parallel_for(10, K.axpy, 1.0, np.zeros(10), x32)
    with pytest.raises(TypeError, match=r"argument 'x' has dtype int64"):
        porta.parallel_for(10, K.axpy, 1.0, np.zeros(10, dtype=np.int64), np.zeros(10))


def test_rank_mismatch_names_argument():
    with pytest.raises(TypeError, match=r"argument 'x' has 2 dimension\(s\), expected 1"):
        porta.parallel_for(10, K.axpy, 1.0, np.zeros((10, 2)), np.zeros(10))
    # the same on the fast path (the kernel is already specialised for C-ordered arrays)
    porta.parallel_for(10, K.axpy, 1.0, np.zeros(10), np.zeros(10))
    with pytest.raises(TypeError, match=r"argument 'y' has 2 dimension"):
        porta.parallel_for(10, K.axpy, 1.0, np.zeros(10), np.zeros((5, 2)))


def test_kind_mismatch_names_argument():
    with pytest.raises(TypeError, match=r"argument 'x' must be an array"):
        porta.parallel_for(10, K.axpy, 1.0, 3.0, np.zeros(10))
    with pytest.raises(TypeError, match=r"argument 'a' must be a scalar"):
        porta.parallel_for(10, K.axpy, np.zeros(10), np.zeros(10), np.zeros(10))
    with pytest.raises(TypeError, match=r"argument 'n' is an integer"):
        porta.parallel_for(10, K.control, 2.5, np.zeros(10))
    with pytest.raises(TypeError, match=r"no argument named 'z'"):
        porta.parallel_for(10, K.axpy, a=1.0, x=np.zeros(10), z=np.zeros(10))
    with pytest.raises(TypeError, match=r"missing argument 'y'"):
        porta.parallel_for(10, K.axpy, a=1.0, x=np.zeros(10))


def test_read_only_array_written():
    y = np.zeros(10)
    y.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 'y' is read-only"):
        porta.parallel_for(10, K.axpy, 1.0, np.zeros(10), y)
    x = np.zeros(10)
    x.flags.writeable = False  # read-only inputs are fine
    porta.parallel_for(10, K.axpy, 1.0, x, np.zeros(10))


def test_wrong_launch_kind_and_policy():
    x = np.zeros(10)
    with pytest.raises(TypeError, match="parallel_reduce"):
        porta.parallel_for(10, K.dot, x, x)
    with pytest.raises(TypeError, match="parallel_for"):
        porta.parallel_reduce(10, K.axpy, 1.0, x, x)
    with pytest.raises(TypeError, match="MDRangePolicy"):
        porta.parallel_for(10, K.stencil2d, np.zeros((3, 3)), np.zeros((3, 3)))
    with pytest.raises(TypeError, match="porta.kernel"):
        porta.parallel_for(10, print, x)
    with pytest.raises(TypeError, match="launched with porta.parallel_for"):
        K.axpy(0, 1.0, x, x)


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown back end 'nope'"):
        porta.RangePolicy(0, 4, space="nope")
