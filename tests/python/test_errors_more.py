"""Errors of the team, scan, atomic, reducer, device-function and kernel-method constructs, in
Python terms (file, line, column, construct, hint), and #line: a C compiler error in generated
code names the Python file and line."""
import os

import numpy as np
import pytest

import porta
import kernels_bad_more as B

HERE = os.path.dirname(os.path.abspath(__file__))


def marker(fname, tag, token):
    """(line, 1-based column) of `token` on the line marked `# ERR tag` in `fname`."""
    with open(os.path.join(HERE, fname)) as fh:
        for n, text in enumerate(fh, 1):
            if "# ERR " in text and text.rstrip().split("# ERR ")[-1].split()[0:1] == [tag]:
                return n, text.index(token) + 1
    raise AssertionError("no marker " + tag)


CASES = [
    # (kernel, marker, token at the column, construct, hint)
    ("scratch_in_loop", "scratchloop", "porta.scratch", "inside a loop", "top level"),
    ("scratch_from_local", "scratchlocal", "n + 1", "extent 'n + 1'", "scalar arguments"),
    ("range_without_team", "noteam", "n, 4", "without the team member", "team member first"),
    ("acc_with_value", "accvalue", "s: porta", "an initial value", "identity"),
    ("two_accs_one_loop", "twoaccs", "for k", "accumulators a, b", "@porta.reducer"),
    ("acc_in_range_kernel", "accrange", "s: porta", "the accumulator 's", "team kernels"),
    ("atomic_u8", "atomicu8", "x, i", "on an array of uint8", "int32 arrays"),
    ("atomic_value", "atomicvalue", "porta.atomic_add", "the value of porta.atomic_add",
     "as a statement"),
    ("calls_array_fn", "fnarray", "x: porta", "the argument 'x'", "device functions take numbers"),
    ("calls_recursive", "recursive", "def loops", "a recursive call", "write a loop"),
    ("calls_noret", "noret", "return", "return with a value", "-> float"),
    ("scan_md", "scanmd", "def scan_md", "a scan", "scans run over a range"),
    ("team_not_first", "teamindex", "t: porta", "the team member 't' after", "first argument"),
    ("barrier_value", "barriervalue", "t.team_barrier", "the value of t.team_barrier()",
     "as a statement"),
    ("team_bad_attr", "teamattr", "t.thread_rank", "attribute 't.thread_rank'", "team_rank"),
    ("uses_bad_reducer", "joinother", "other.v", "assignment to 'other.v'", "updates self"),
    ("simd_reads_sum", "simdread", "s  # ERR", "'s' read inside the porta.simd_range loop",
     "after the loop"),
    ("simd_step", "simdstep", "porta.simd_range", "porta.simd_range with 3 arguments",
     "no step"),
    ("simd_max_update", "simdop", "s /=", "'s' updated with Div in porta.simd_range",
     "+="),
    # acc = value without reading acc: the result depended on the number of partial values
    # (32.0 on 1 thread, 64.0 on 2 for 100 indices)
    ("acc_set_to_constant", "accset", "s = 1.0", "the accumulator 's' a value", "s += ..."),
    ("acc_max_unguarded", "accmax", "m = x[i]", "the accumulator 'm' a value", "max(m, ...)"),
]


@pytest.mark.parametrize("name,tag,token,construct,hint", CASES, ids=[c[0] for c in CASES])
def test_unsupported_construct(name, tag, token, construct, hint):
    k = getattr(B, name)
    with pytest.raises(porta.TranslationError) as ei:
        k.check()
    e = ei.value
    line, col = marker("kernels_bad_more.py", tag, token)
    assert e.file.endswith("kernels_bad_more.py")
    assert (e.line, e.col) == (line, col), str(e)
    assert construct in e.construct, str(e)
    assert hint in e.hint, str(e)
    s = str(e)
    assert s.startswith("%s:%d:%d: " % (e.file, line, col)) and "not supported" in s
    # A launch raises the same error (never a crash).
    with pytest.raises(porta.TranslationError):
        porta.parallel_for(4, k, np.zeros(4))


@pytest.mark.parametrize("name", ["acc_max_by_call", "acc_max_guarded", "acc_sum_reassigned"])
def test_assignments_to_accumulators_that_read_them(space, name):
    x = np.cos(np.arange(1000.0))
    got = porta.parallel_reduce(space.range(len(x)), getattr(B, name), x)
    want = x.max() if "max" in name else x.sum()
    assert got == pytest.approx(want, rel=1e-12)


def test_kernel_method_field_error():
    with pytest.raises(porta.TranslationError) as ei:
        porta.parallel_for(4, B.BadMethod(np.zeros(4)).run)
    line, col = marker("kernels_bad_more.py", "selfy", "self.y")
    assert (ei.value.line, ei.value.col) == (line, col)
    assert "'self.y'" in ei.value.construct and "annotate 'y'" in ei.value.hint


def test_intrinsics_outside_kernels():
    with pytest.raises(TypeError, match="inside a Porta kernel"):
        porta.atomic_add(np.zeros(2), 0, 1.0)
    with pytest.raises(TypeError, match="inside a Porta kernel"):
        porta.team_thread_range(None, 3)


def test_compiler_error_names_python_line(monkeypatch):
    """#line: with warnings as errors the compiler rejects the float comparison with ==, and
    its message names the Python file and line of the statement (nvcc's own front end warns
    of the unsigned byte compared with 0 there)."""
    monkeypatch.setenv("PORTA_CFLAGS", "-Werror=float-equal")
    # on the CUDA back end nvcc compiles the module: its host compiler gets the same flag
    monkeypatch.setenv("PORTA_NVCCFLAGS", "-Xcompiler=-Werror=float-equal")
    import kernels_cerr as C

    line, _ = marker("kernels_cerr.py", "dubious", "==")
    x, f, y = np.zeros(4, np.uint8), np.array([0.5, 1, 0.5, 1]), np.zeros(4, np.int64)
    with pytest.raises(porta.CompileError) as ei:
        porta.parallel_for(4, C.dubious, x, f, y)
    msg = str(ei.value)
    assert "kernels_cerr.py:%d:" % line in msg, msg
    assert "floating" in msg
    if porta.backend() == "cuda":  # nvcc's own front end names the Python line too
        assert "kernels_cerr.py(%d): warning" % line in msg, msg
    # Without the flag the same kernel compiles and runs (the message was the warning's).
    monkeypatch.delenv("PORTA_CFLAGS")
    monkeypatch.delenv("PORTA_NVCCFLAGS")
    porta.parallel_for(4, C.dubious, x, f, y)
    assert y.tolist() == [1, 0, 1, 0]
