"""Bounds checks in debug builds (PORTA_ENABLE_DEBUG: a debug build of Porta's headers, or
-DPORTA_ENABLE_DEBUG=1 in PORTA_CFLAGS / PORTA_NVCCFLAGS): every element access of a Python
kernel goes through Porta's view check, whose failure names the array, the indices, the
extents and the Python file and line (the generated #line directives). The host aborts (as a
C program's check does), so each case runs in a child process; a normal build does not check
the accesses (the same source runs with plain index arithmetic), but every build checks the
launch range against the arrays the kernel indexes with the launch's indices
(test_launch_checks.py). The checked mode that raises IndexError instead of aborting is
test_checked_mode.py."""
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import porta
from markers import marked_line
import kernels_oob as K

HERE = os.path.dirname(os.path.abspath(__file__))


def marker(tag):
    return marked_line(os.path.join(HERE, "kernels_oob.py"), "# OOB " + tag)


CHILD = textwrap.dedent('''
    import sys, numpy as np
    sys.path.insert(0, {here!r})
    import porta, kernels_oob as K
    porta.init(backend={backend!r}, args=[])
    space = "cuda" if {backend!r} == "cuda" else "host"
    def arr(a):
        v = porta.View(a.shape, a.dtype, space=space, layout="C")
        porta.deep_copy(v, a)
        return v
    if {case!r} == "1d":
        x, y = arr(np.arange(10.0)), arr(np.zeros(10))
        porta.parallel_for(10, K.shift_right, x, y)  # reads x[10]
    elif {case!r} == "2d":
        a, b = arr(np.ones((4, 6))), arr(np.zeros((4, 6)))
        porta.parallel_for(porta.MDRangePolicy((0, 0), (4, 6)), K.shift_down, a, b)  # a[4, 0]
    else:  # b[j, i] with j in [0, 6): b has 4 rows, refused at the launch
        a, b = arr(np.ones((4, 6))), arr(np.zeros((4, 6)))
        try:
            porta.parallel_for(porta.MDRangePolicy((0, 0), (4, 6)), K.transpose_add, a, b)
        except IndexError as e:
            print("IndexError:", e)
    porta.fence()
    print("no failure")
''')


def run_child(tmp_path, case, backend, debug):
    env = dict(os.environ, PORTA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("PORTA_BACKEND", None)
    if debug:
        env["PORTA_CFLAGS"] = "-DPORTA_ENABLE_DEBUG=1"
        env["PORTA_NVCCFLAGS"] = "-DPORTA_ENABLE_DEBUG=1"
    code = CHILD.format(here=HERE, backend=backend, case=case)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("case,array,index,extents", [
    ("1d", "x", "(10)", "(10)"),
    ("2d", "a", "(4, 0)", "(4, 6)"),  # a[i + 1, j]: i + 1 = 4 is past a's 4 rows
])
def test_bounds_failure_names_python_line(tmp_path, case, array, index, extents):
    r = run_child(tmp_path, case, "serial", debug=True)
    out = r.stdout + r.stderr
    assert r.returncode == -signal.SIGABRT, out
    assert "no failure" not in out
    path = os.path.join(HERE, "kernels_oob.py")
    assert "index out of bounds at %s:%d" % (path, marker(case)) in out, out
    assert "'%s'" % array in out and "index %s" % index in out, out
    assert "view extents %s" % extents in out, out


def test_debug_checks_pass_in_bounds(tmp_path, monkeypatch):
    """A debug build's checked accesses give the same answers when every index is in range."""
    monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PORTA_CFLAGS", "-DPORTA_ENABLE_DEBUG=1")
    monkeypatch.setenv("PORTA_NVCCFLAGS", "-DPORTA_ENABLE_DEBUG=1")
    porta.clear_specialisations()
    try:
        x, y = np.arange(11.0), np.zeros(10)
        porta.parallel_for(porta.RangePolicy(0, 10, space="serial"), K.shift_right, x, y)
        np.testing.assert_array_equal(y, np.arange(1.0, 11.0))
        src = K.shift_right.c_source()
        assert "PORTA_PY_AT1(double, " in src and '"x", %d,' % marker("1d") in src
    finally:
        porta.clear_specialisations()


def test_launch_range_checked_in_debug_build_too(tmp_path):
    """b[j, i] over j in [0, 6) with b of 4 rows: the launch raises IndexError before the kernel
    runs (so before the debug build's abort), naming the array, the dimension and the extent."""
    r = run_child(tmp_path, "transpose", "serial", debug=True)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "IndexError: kernels_oob.transpose_add: the launch range [0, 6) of index 'j'" in out, out
    assert "argument 'b'" in out and "dimension 0" in out and "extent is 4" in out, out
    assert "no failure" in out


def test_normal_build_does_not_check(tmp_path):
    """Without the checks the read one past x's end goes unnoticed (a write past an end
    would corrupt the heap: that is what the debug build is for)."""
    r = run_child(tmp_path, "1d", "serial", debug=False)
    assert r.returncode == 0 and "no failure" in r.stdout, r.stdout + r.stderr


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
def test_bounds_failure_on_cuda_names_python_line(tmp_path):
    """On the GPU the failing thread records the check for the host and traps: the launch
    raises porta.PortaError (PORTA_ERROR_BOUNDS) naming the Python file and line."""
    r = run_child(tmp_path, "1d", "cuda", debug=True)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "no failure" not in out, out
    assert "kernels_oob.py:%d" % marker("1d") in out, out
