"""Python's meaning in kernels (issue 53): negative constant indices count from the end, integer
arithmetic is int64 with NumPy's wrap-around (`**` by a non-constant exponent gives a float,
constants no int64 holds and constant zero divisors are TranslationErrors), every Python name
gets a C name of its own, print works, and np.xxx points to math.xxx. Kernels:
kernels_semantics.py."""
import contextlib
import io
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import porta
import kernels_semantics as K
from conftest import cuda_run

HERE = os.path.dirname(os.path.abspath(__file__))
I64_MIN, I64_MAX = -2**63, 2**63 - 1


def marker(tag, token):
    """(line, 1-based column) of `token` on the line marked `# ERR tag` in kernels_semantics."""
    with open(os.path.join(HERE, "kernels_semantics.py"), encoding="utf-8") as fh:
        for n, text in enumerate(fh, 1):
            if text.rstrip().endswith("# ERR " + tag):
                return n, text.index(token) + 1
    raise AssertionError("no marker " + tag)


def check_error(kernel, tag, token, construct, hint):
    with pytest.raises(porta.TranslationError) as ei:
        kernel.check()
    e = ei.value
    line, col = marker(tag, token)
    assert e.file.endswith("kernels_semantics.py")
    assert (e.line, e.col) == (line, col), str(e)
    assert str(e).startswith("%s:%d:%d: " % (e.file, line, col)), str(e)
    assert construct in e.construct, str(e)
    assert hint in e.hint, str(e)
    with pytest.raises(porta.TranslationError):  # a launch raises it too, never a crash
        porta.parallel_for(2, kernel, np.zeros(2))


# ---- negative constant indices ----

def test_negative_constant_index(space):
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    y = np.zeros(3)
    porta.parallel_for(space.range(3), K.neg_index, x, y)
    assert y.tolist() == [5.0 + 40.0 + 500.0 + 3000.0] * 3


def test_negative_constant_index_2d(space):
    a = np.arange(12.0).reshape(3, 4)
    for arr in (a, np.asfortranarray(a), np.arange(24.0).reshape(3, 8)[:, ::2]):
        out = np.zeros(3)
        porta.parallel_for(space.range(3), K.neg_index_2d, arr, out)
        want = [arr[-1, -1] + 10 * arr[-2, 0] + 100 * arr[0, -2] + 1000 * arr[i, -1]
                for i in range(3)]
        assert out.tolist() == want


def test_negative_index_fixed_extent(space):
    p = np.arange(12.0).reshape(4, 3)
    out = np.zeros(4)
    porta.parallel_for(space.range(4), K.neg_index_fixed, p, out)
    assert out.tolist() == [p[i, -1] - p[i, -3] + 3.0 for i in range(4)]


def test_negative_index_store_and_atomic(space):
    y = np.zeros(5)
    c = np.zeros(3, dtype=np.int64)
    porta.parallel_for(space.range(6), K.neg_store, y, c)
    assert y.tolist() == [0.0, 0.0, 0.0, 1.0, 7.0]
    assert c.tolist() == [0, 0, 6]


def test_negative_index_scratch(space):
    out = np.zeros(3)
    porta.parallel_for(porta.TeamPolicy(3, team_size=1, space=space.name), K.neg_scratch, out)
    assert out.tolist() == [3.0] * 3


# ---- integer arithmetic ----

def test_pow_by_negative_exponent_is_float(space):
    f = np.zeros(5)
    n = np.zeros(5, dtype=np.int64)
    porta.parallel_for(space.range(5), K.pow_int, f, n)
    assert f.tolist() == [2.0 ** (i - 2) for i in range(5)]  # 0.25, 0.5, 1, 2, 4
    assert n.tolist() == [(i + 1) ** 3 + 1 + 4 for i in range(5)]


def test_int64_wraps_around(space):
    """+, -, *, unary -, abs and ** wrap around as NumPy's int64 (no undefined behaviour: a C
    compiler may not fold (v * 4) // 4 into v nor v + 1 > v into true)."""
    a = np.array([2**62, I64_MAX, I64_MIN, 3, -5, 2**32 + 1], dtype=np.int64)
    out = np.zeros(8 * len(a), dtype=np.int64)
    porta.parallel_for(space.range(len(a)), K.wrap, a, out)
    with np.errstate(over="ignore"):
        for k, v in enumerate(a):
            v = np.int64(v)
            w = [(v * np.int64(4)) // np.int64(4), v + np.int64(1), -v, v - np.int64(1),
                 int(v + np.int64(1) > v), abs(v), v * v, v * np.int64(3)]
            assert out[8 * k:8 * k + 8].tolist() == [int(x) for x in w], (k, int(v))


def test_int32_arithmetic_is_int64(space):
    """int32 elements compute as Python ints (int64), not as C ints that overflow."""
    a = np.array([2**31 - 1, -2**31, 5], dtype=np.int32)
    out = np.zeros(3, dtype=np.int64)
    porta.parallel_for(space.range(3), K.wrap32, a, out)
    assert out.tolist() == [2 * int(v) + 1 for v in a]


def test_shift_counts(space):
    """A shift count outside 0..63 at run time: << gives 0, >> gives 0 or -1 (the sign), as
    NumPy's int64 shifts do."""
    a = np.array([1, 1, 3, -8, -8, 8, 5, -1, 12345], dtype=np.int64)
    s = np.array([0, 63, 64, 1, 64, 100, -1, -70, 2**40], dtype=np.int64)
    left = np.zeros(len(a), dtype=np.int64)
    right = np.zeros(len(a), dtype=np.int64)
    porta.parallel_for(space.range(len(a)), K.shifts, a, s, left, right)
    assert left.tolist() == [1, I64_MIN, 0, -16, 0, 0, 0, 0, 0]
    assert right.tolist() == [1, 0, 0, -4, -1, 0, 0, -1, 0]
    assert left.tolist() == np.left_shift(a, s).tolist()
    assert right.tolist() == np.right_shift(a, s).tolist()


def test_int_constants(space):
    out = np.zeros(8, dtype=np.int64)
    porta.parallel_for(space.range(1), K.int_constants, out)
    assert out.tolist() == [I64_MAX, I64_MIN, I64_MAX, 2**62, -(2**63),
                            7 // -2 + 7 % -2 * 100, ~5 ^ 3, 2]


def test_int64_extreme_constants(space):
    """Constant expressions whose value fits int64 translate though a part does not (-2**63,
    2**63 - 1: issue 68): the whole expression is folded as Python folds it, then checked."""
    out = np.zeros(8, dtype=np.int64)
    porta.parallel_for(space.range(1), K.int64_extremes, out)
    assert out.tolist() == [I64_MIN, I64_MAX, I64_MIN, I64_MAX, 0, I64_MIN, I64_MAX,
                            2**10 + 2**62]
    assert "9223372036854775808" not in K.int64_extremes.c_source()  # no C literal past int64


@pytest.mark.parametrize("name,tag,token,construct,hint", [
    ("big_literal", "bigliteral", "1234", "123456789012345678901234567890", "int64"),
    ("big_shift", "bigshift", "1 << 70", "1 << 70", "0 to 63"),
    ("shift_100", "shift100", "1 << 100", "1 << 100", "0 to 63"),
    ("folded_overflow", "foldmul", "2**62", "2 ** 62 * 4", "int64"),
    ("var_shift_64", "varshift", "i << 64", "i << 64", "0 to 63"),
    ("var_shift_negative", "negshift", "i >> -1", "i >> -1", "0 to 63"),
    ("big_global", "bigglobal", "BIG", "BIG", "int64"),
    ("min_minus_one", "minminus", "-9223", "-9223372036854775808 - 1", "int64"),
    ("int64_past_max", "pastmax", "2**63", "2 ** 63 - 1 + 1", "int64"),
    ("int64_past_min", "pastmin", "-2**63", "-2 ** 63 - 1", "int64"),
    ("int64_part_not_const", "partnotconst", "2**63", "2 ** 63", "int64"),
    ("int64_fold_too_big", "foldtoobig", "2**5000", "2 ** 5000", "int64"),
])
def test_int64_constant_refused(name, tag, token, construct, hint):
    check_error(getattr(K, name), tag, token, construct, hint)


# ---- constant zero divisors ----

@pytest.mark.parametrize("name,tag,token", [
    ("floordiv_zero", "div0", "1 // 0"),
    ("mod_zero", "mod0", "i % 0"),
    ("mod_zero_folded", "div33", "i // (3 - 3)"),
    ("augmod_zero", "augmod", "k %= ZERO"),
])
def test_constant_zero_divisor_refused(name, tag, token):
    check_error(getattr(K, name), tag, token, "by the constant 0", "ZeroDivisionError")


def test_float_division_by_zero_is_ieee(space):
    out = np.zeros(2)
    porta.parallel_for(space.range(2), K.float_div_zero, out)
    assert out.tolist() == [np.inf, np.inf]


# ---- names ----

def test_c_keyword_typedef_and_libm_names(space):
    src = np.array([2.0, 8.0, 18.0])
    out = np.zeros(3)
    porta.parallel_for(space.range(3), K.c_names, src, 0.5, out)
    assert out.tolist() == [np.sqrt(v * 2.0) + 2 * 0.5 + 3 for v in src]
    assert K.c_names.field_names == ("int64_t", "double", "out")
    out[:] = 0
    porta.parallel_for(space.range(3), K.c_names, int64_t=src, double=0.5, out=out)
    assert out.tolist() == [np.sqrt(v * 2.0) + 2 * 0.5 + 3 for v in src]


def test_c_names_in_functions_and_reducers(space):
    out = np.zeros(4)
    porta.parallel_for(space.range(4), K.c_names_call, out)
    assert out.tolist() == [0.0, 2.0, 4.0, 6.0]
    r = porta.parallel_reduce(space.range(4), K.c_names_reduce, np.array([3.0, -1.0, 7.0, 2.0]))
    assert (r.double, r.int) == (7.0, -1.0)


def test_unicode_and_suffix_names(space):
    out = np.zeros(3)
    porta.parallel_for(space.range(3), K.unicode_names, np.array([1.0, 2.0, 3.0]), out)
    assert out.tolist() == [3.0, 5.0, 7.0]
    x = np.zeros(3)
    porta.parallel_for(space.range(3), K.x_n, x, 10.0, np.array([1.0, 2.0, 3.0]))
    assert x.tolist() == [14.0, 15.0, 16.0]


def test_generated_c_names():
    """Python names appear in the C with a prefix of their own (readable), the argument
    descriptions keep the Python names."""
    c = K.c_names.c_source()
    assert "py_int64_t" in c and "py__Atomic" in c and "py_sqrt" in c
    assert '{"int64_t", PORTA_PY_ARRAY' in c


# ---- print ----

CHILD = textwrap.dedent('''
    import sys, numpy as np
    from math import inf, nan
    sys.path.insert(0, {here!r})
    import porta, kernels_semantics as K
    porta.init(backend={backend!r}, threads={threads}, args=[])
    space = "cuda" if {backend!r} == "cuda" else "host"
    def arr(a):
        if space == "host":
            return a
        v = porta.View(a.shape, a.dtype, space=space)
        porta.deep_copy(v, a)
        return v
    x, f, n = {x!r}, {f!r}, {n!r}
    x = np.array(x); f = np.array(f, dtype=np.float32); n = np.array(n, dtype=np.int64)
    print("before", flush=True)
    porta.parallel_for(porta.RangePolicy(0, len(x), space={backend!r}), K.say, arr(x), arr(f),
                       arr(n))
    porta.parallel_for(porta.RangePolicy(0, len(x), space={backend!r}), K.say_formatted,
                       arr(x), arr(n))
    porta.parallel_for(porta.RangePolicy(0, 1, space={backend!r}), K.say_from_function,
                       arr(np.array([0.5])))
    porta.parallel_for(porta.RangePolicy(0, 1, space={backend!r}), K.print_constant,
                       arr(np.array([-1.5])))
    porta.fence()
    print("after")
''')

X = [0.1, 1.0, 1e20, -0.0, float("nan"), float("inf"), 1e-05, 123.456, 2.0 / 3.0, 1e16,
     1e15, 5e-324]
# (float32 values: the kernel prints them as the installed NumPy does; from NumPy 2.3 on
# 1677721.6 is 1.6777216e+06: test_print_f32_follows_numpy)
F = [0.1, 1.0, 3.4e38, -2.5, 1e-7, 1677721.6, 0.3, 1.0 / 3.0, 7.0, 12345.5, 0.0, -1.0]
N = [0, -7, 2**62, -2**63, 5, 6, 7, 8, 9, 10, 11, 12]


def expected_print_lines():
    """The same prints run by Python itself (the kernel's own function)."""
    buf = io.StringIO()
    x, f, n = np.array(X), np.array(F, dtype=np.float32), np.array(N, dtype=np.int64)
    with contextlib.redirect_stdout(buf), np.errstate(over="ignore"):
        per_index = []
        for i in range(len(X)):
            start = buf.tell()
            K.say.fn(i, x, f, n)
            per_index.append(buf.getvalue()[start:])
        for i in range(len(X)):
            start = buf.tell()
            K.say_formatted.fn(i, x, n)
            per_index.append(buf.getvalue()[start:])
        start = buf.tell()
        K.say_value.fn(0.5)
    return per_index, buf.getvalue()[start:]


def run_child(backend, threads):
    code = CHILD.format(here=HERE, backend=backend, threads=threads, x=X, f=F, n=N)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("backend,threads", [("serial", 1), ("openmp", 2)])
def test_print_host(backend, threads, request):
    if cuda_run(request.config):
        pytest.skip("the host back ends' print (test_print_cuda runs on CUDA)")
    per_index, fn_out = expected_print_lines()
    out = run_child(backend, threads)
    tail = fn_out + "hello %d0.25-1.5\n" + "after\n"
    assert out.startswith("before\n") and out.endswith(tail), out
    body = out[len("before\n"):len(out) - len(tail)]
    if threads == 1:
        for got, want in zip(body.splitlines(), "".join(per_index).splitlines()):
            assert got == want
        assert body == "".join(per_index)
    else:  # each print is one line written at once; the indices' order varies
        assert sorted(body.splitlines()) == sorted("".join(per_index).splitlines())


F32 = [1677721.6, 1e6, 999999.94, 123456.7, 1e-4, 0.00010000001, 9.999e-5, 9.999999e15, 1e16,
       1e15, 3.4e38, 1e-7, 0.0, -0.0, -2.5, 1.0 / 3.0, 16777216.0, -1e6,
       float("nan"), float("inf"), float("-inf")]

F32_CHILD = textwrap.dedent('''
    import sys, numpy as np
    from math import inf, nan
    sys.path.insert(0, {here!r})
    import porta
    from porta import translate_print
    if {exponent}:  # the cutoff another NumPy has (translate_print asks the installed one)
        translate_print.f32_positional_exponent = lambda: {exponent}
    import kernels_semantics as K
    porta.init(backend="serial", args=[])
    porta.parallel_for(porta.RangePolicy(0, {n}, space="serial"), K.say_f32,
                       np.array({values!r}, dtype=np.float32))
''')


def f32_str(v, exponent):
    """NumPy's str of np.float32(v) where it turns scientific at 10**exponent (16 before NumPy
    2.3, 6 from it), built from NumPy's shortest-digit formatters."""
    f = np.float32(v)
    if np.isfinite(f) and f != 0 and not 1e-4 <= float(abs(f)) < 10.0 ** exponent:
        return np.format_float_scientific(f, unique=True, trim="-")
    return np.format_float_positional(f, unique=True, trim="0")


def installed_exponent():
    major, minor = (int(p) for p in np.__version__.split(".")[:2])
    return 6 if (major, minor) >= (2, 3) else 16


def test_f32_str_model_is_numpys():
    """f32_str with the installed NumPy's cutoff writes what its str() does, and the
    translator's probe finds that cutoff (16 with NumPy 1, 6 from NumPy 2.3)."""
    from porta import translate_print

    k = installed_exponent()
    assert translate_print.f32_positional_exponent() == k
    for v in F32:
        assert f32_str(v, k) == str(np.float32(v)), v
    assert f32_str(1677721.6, 16) == "1677721.6" and f32_str(1677721.6, 6) == "1.6777216e+06"
    assert "#define PK_F32_POSITIONAL_MAX 1e6 " in translate_print.c_print_helpers(6)


@pytest.mark.parametrize("exponent", [0, 16, 6], ids=["installed", "numpy1", "numpy2.3"])
def test_print_f32_follows_numpy(exponent, request):
    """print() of a float32 in a kernel writes what print() of np.float32 writes with the
    installed NumPy (issue 68: a NumPy 2.3+ venv printed 1677721.6 from the kernel and
    1.6777216e+06 from Python), and with the other NumPy's cutoff where the translator is
    told it (NumPy 2 is not installed here: its strings come from NumPy's formatters)."""
    if cuda_run(request.config):
        pytest.skip("the host back ends' print")
    code = F32_CHILD.format(here=HERE, exponent=exponent, n=len(F32), values=F32)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    if exponent == 0:
        want = [str(np.float32(v)) for v in F32]  # what Python prints beside the kernel
    else:
        want = [f32_str(v, exponent) for v in F32]
    assert p.stdout.splitlines() == ["%s <%s>" % (w, w) for w in want]


def test_print_cuda(request):
    if not cuda_run(request.config):
        pytest.skip("CUDA runs only (--porta-backend=cuda)")
    per_index, fn_out = expected_print_lines()
    out = run_child("cuda", 1)
    # device printf: floats with 17 significant digits, the lines in the GPU's order
    assert out.startswith("before\n") and out.endswith("after\n"), out
    lines = out.splitlines()[1:-1]
    assert len(lines) == len("".join(per_index).splitlines()) + len(fn_out.splitlines()) + 1
    assert "value 0.5 and 1" in lines and "hello %d0.25-1.5" in lines
    # f-strings with a type (d, f, e, g, x ...) print as Python prints them
    want = sorted(w.split(" r=")[0] for w in "".join(per_index).splitlines()
                  if w.startswith("i="))
    assert sorted(g.split(" r=")[0] for g in lines if g.startswith("i=")) == want


@pytest.mark.parametrize("name,tag,token,construct,hint", [
    ("print_file", "printfile", "print(", "print(..., file=...)", "standard output"),
    ("print_value", "printvalue", "print(", "the value of print()", "as a statement"),
    ("print_sep", "printsep", "print(", "print's sep", "string constant"),
    ("print_bad_format", "printformat", 'f"', "the format '{x[i]:,}'", "[width]"),
    ("print_precision_no_type", "printprec", 'f"', "the format '{x[i]:.3}'", "{x:.3f}"),
])
def test_print_misuse(name, tag, token, construct, hint):
    check_error(getattr(K, name), tag, token, construct, hint)


# ---- NumPy calls ----

@pytest.mark.parametrize("name,tag,token,construct,hint", [
    ("uses_np_sqrt", "npsqrt", "np.sqrt", "np.sqrt", "math.sqrt"),
    ("uses_np_arctan2", "nparctan2", "np.arctan2", "np.arctan2", "math.atan2"),
    ("uses_np_abs", "npabs", "np.abs", "np.abs", "abs("),
    ("uses_np_sum", "npsum", "np.sum", "np.sum", "one element"),
])
def test_numpy_call_points_to_math(name, tag, token, construct, hint):
    check_error(getattr(K, name), tag, token, construct, hint)


def test_numpy_constants(space):
    x = np.array([1.0, 2.0])
    porta.parallel_for(space.range(2), K.uses_np_pi, x)
    assert x.tolist() == [np.pi * 1.0 + np.e, np.pi * 2.0 + np.e]
