"""porta.ExactSum, Porta's exact sum (porta_xsum_f64, core/include/porta/xsum.h) as the
accumulator of a Python kernel: parallel_reduce returns the exact sum of the terms rounded once
to the nearest double, so math.fsum's bits, whatever the order of the terms, the back end, the
thread count or the deterministic mode; the same bits as the C kernel that reduces with
porta_xsum_f64; NaN where the C reducer reports an overflow or a non-finite term; and a
TranslationError naming the line where it cannot be used (kernels in kernels_exact.py)."""
import ctypes
import functools
import math
import os
import random
import struct
from fractions import Fraction

import numpy as np
import pytest

import porta
from porta import _core, cache
import kernels_exact as K

HERE = os.path.dirname(os.path.abspath(__file__))

# The default window of the C reducer: addends in [2^-304, 2^336) are summed exactly.
WINDOW_LO, WINDOW_HI = 2.0 ** -304, 2.0 ** 336


def bits(v):
    return struct.pack("<d", v)


def same_bits(got, want):
    return isinstance(got, float) and bits(got) == bits(want)


def hidden(rng, core, pairs=3000, scale=(20, 80)):
    """`core` among `pairs` pairs +x, -x of large random magnitude, shuffled: the pairs cancel
    exactly, so the exact sum is core's, but every partial sum a thread makes is huge."""
    big = [rng.uniform(1.0, 10.0) * 10.0 ** rng.randint(*scale) for _ in range(pairs)]
    terms = list(core) + big + [-b for b in big]
    rng.shuffle(terms)
    return terms


def hostile_cases():
    """Inputs on which a plain double sum goes wrong, each within the reducer's window."""
    rng = random.Random(66)
    cases = {}
    # 1e16 + 1 is 1e16: a left-to-right sum loses every 1.0
    cases["cancel_1e16"] = [1e16, 1.0, -1e16] * 4000 + [0.5]
    # huge pairs that cancel around a rest of small terms of both signs
    cases["pairs_around_rest"] = hidden(rng, [rng.uniform(-1, 1) * 10.0 ** rng.randint(-80, 0)
                                              for _ in range(64)])
    # terms spread from 1e-80 to 1e80, both signs
    cases["spread_1e-80_1e80"] = [rng.choice((-1.0, 1.0)) * rng.random() *
                                  10.0 ** rng.uniform(-80.0, 80.0) for _ in range(20000)]
    # an alternating series
    cases["alternating"] = [(-1.0) ** k / k for k in range(1, 30001)]
    # ties: exact sums halfway between two doubles round to the even one, and a term 2^-300
    # far below them decides the rounding
    cases["tie_to_even_down"] = hidden(rng, [1.0, 2.0 ** -53])                  # -> 1.0
    cases["tie_to_even_up"] = hidden(rng, [1.0 + 2.0 ** -52, 2.0 ** -53])       # -> 1 + 2^-51
    cases["tie_2p53_plus_3"] = hidden(rng, [2.0 ** 53 + 2.0, 1.0])              # -> 2^53 + 4
    cases["above_tie_by_2^-300"] = hidden(rng, [1.0, 2.0 ** -53, 2.0 ** -300])  # -> 1 + 2^-52
    cases["below_tie_by_2^-300"] = hidden(rng, [1.0, 2.0 ** -53, -2.0 ** -300])  # -> 1.0
    # the exact sum is one subnormal-free tiny value under terms of 1e80
    cases["tiny_under_1e80"] = hidden(rng, [3.0 * 2.0 ** -290], scale=(70, 80))
    for name, terms in cases.items():
        assert all(t == 0.0 or WINDOW_LO <= abs(t) < WINDOW_HI for t in terms), name
    return cases


CASES = hostile_cases()


def exact(terms):
    """The exact sum rounded to the nearest double, ties to even, by Fraction."""
    return float(sum(map(Fraction, terms), Fraction(0)))


def test_references_agree():
    """math.fsum, the reference of the tests below, is the correctly rounded exact sum of each
    case (Fraction's), and the cases' sums are what their comments say."""
    for case, terms in CASES.items():
        assert bits(math.fsum(terms)) == bits(exact(terms)), case
    assert math.fsum(CASES["tie_to_even_down"]) == 1.0
    assert math.fsum(CASES["tie_to_even_up"]) == 1.0 + 2.0 ** -51
    assert math.fsum(CASES["tie_2p53_plus_3"]) == 2.0 ** 53 + 4.0
    assert math.fsum(CASES["above_tie_by_2^-300"]) == 1.0 + 2.0 ** -52
    assert math.fsum(CASES["below_tie_by_2^-300"]) == 1.0


@pytest.mark.parametrize("case", sorted(CASES))
def test_exact_sum_is_fsum_bits(space, case):
    x = np.array(CASES[case])
    got = porta.parallel_reduce(space.range(len(x)), K.xsum, x)
    want = math.fsum(CASES[case])
    assert same_bits(got, want), (case, got, want)


def test_plain_sum_fails_where_the_exact_sum_does_not(space):
    """The inputs are hostile: the plain porta.Sum misses fsum on them (so the exact sum's
    agreement with fsum is no accident of the data)."""
    missed = []
    for case in ("cancel_1e16", "pairs_around_rest", "tie_to_even_up", "above_tie_by_2^-300"):
        x = np.array(CASES[case])
        if porta.parallel_reduce(space.range(len(x)), K.plain_sum, x) != math.fsum(x):
            missed.append(case)
    assert len(missed) >= 3, missed
    x = np.array(CASES["cancel_1e16"])
    assert porta.parallel_reduce(space.range(len(x)), K.xsum, x) == 4000.5


def test_exact_sum_does_not_depend_on_the_order(space):
    rng = np.random.default_rng(66)
    for case in ("spread_1e-80_1e80", "pairs_around_rest", "tie_2p53_plus_3"):
        x = np.array(CASES[case])
        want = bits(math.fsum(x))
        for order in [np.arange(len(x))[::-1]] + [rng.permutation(len(x)) for _ in range(4)]:
            xs = np.ascontiguousarray(x[order])
            got = porta.parallel_reduce(space.range(len(xs)), K.xsum, xs)
            assert bits(got) == want, (case, got, math.fsum(x))


def test_exact_sum_does_not_depend_on_threads_or_deterministic_mode(request):
    from conftest import cuda_run

    if cuda_run(request.config):
        pytest.skip("host thread counts")
    if not porta.backend_available("openmp"):
        pytest.skip("no OpenMP back end")
    x = np.array(CASES["spread_1e-80_1e80"] * 5)
    want = bits(math.fsum(x))
    was = porta.deterministic()
    got = {}
    try:
        for det in (False, True):
            porta.set_deterministic(det)
            got["serial", 1, det] = porta.parallel_reduce(
                porta.RangePolicy(0, len(x), space="serial"), K.xsum, x)
            for nt in (1, 2, 3, 4):
                porta.set_num_threads(nt)
                got["openmp", nt, det] = porta.parallel_reduce(
                    porta.RangePolicy(0, len(x), space="openmp"), K.xsum, x)
    finally:
        porta.set_deterministic(was)
        porta.set_num_threads(2)
    assert all(bits(v) == want for v in got.values()), got


def test_long_launch_in_pieces(space):
    """A host launch of 2^20 indices or more goes in pieces (Ctrl-C gets in between them), each
    continuing from the value before it: the exact sum still has fsum's bits."""
    rng = random.Random(7)
    terms = hidden(rng, [1.0, 2.0 ** -53, 2.0 ** -300], pairs=(1 << 19) + 777)
    x = np.array(terms)
    got = porta.parallel_reduce(space.range(len(x)), K.xsum_big, x)
    assert same_bits(got, 1.0 + 2.0 ** -52), got
    assert same_bits(got, math.fsum(terms))


def test_subtracting_and_integer_terms(space):
    x = np.array(CASES["pairs_around_rest"])
    neg = (np.arange(len(x)) % 3 == 0).astype(np.int64)
    got = porta.parallel_reduce(space.range(len(x)), K.xsum_signed, x, neg)
    assert same_bits(got, math.fsum(np.where(neg != 0, -x, x)))
    # int64 terms become doubles first (2^62 + 1 is 2^62, 2^53 + 1 is 2^53), then sum exactly
    n = np.array([2 ** 62 + 1, 3, -(2 ** 62), 2 ** 53 + 1, -(2 ** 53), 1], dtype=np.int64)
    got = porta.parallel_reduce(space.range(len(n)), K.xsum_ints, n)
    assert same_bits(got, math.fsum(float(v) for v in n)) and got == 4.0


def test_mdrange_and_loops(space):
    rng = random.Random(3)
    a = np.array(hidden(rng, [0.1, 0.2, 0.3, 1e-80], pairs=4998)).reshape(100, 100)
    want = math.fsum(a.ravel())
    got = porta.parallel_reduce(space.md((0, 0), a.shape), K.xsum2, a)
    assert same_bits(got, -want), (got, want)
    got = porta.parallel_reduce(space.range(a.shape[0]), K.xrows, a)
    assert same_bits(got, want), (got, want)
    b = np.ascontiguousarray(a.reshape(20, 25, 20).transpose(2, 0, 1))
    got = porta.parallel_reduce(space.md((0, 0, 0), b.shape), K.xsum3, b)
    assert same_bits(got, want), (got, want)
    # a box that is part of the array: the exact sum of those terms only
    got = porta.parallel_reduce(space.md((10, 20), (60, 90)), K.xsum2, a)
    assert same_bits(got, -math.fsum(a[10:60, 20:90].ravel()))


def exact_product_operands(rng, n):
    """x[i], y[i] of at most 21 significant bits each, so every product is exact (at most 42
    bits): products from about 2^-120 to 2^120, and every 50th pair of indices two products of
    about 2^201 that cancel, under which a plain sum loses the rest."""
    x = [rng.randint(-(1 << 20), 1 << 20) * 2.0 ** rng.randint(-80, 40) for _ in range(n)]
    y = [rng.randint(-(1 << 20), 1 << 20) * 2.0 ** rng.randint(-80, 40) for _ in range(n)]
    for k in range(0, n - 1, 50):
        x[k] = x[k + 1] = 3.0 * 2.0 ** 90
        y[k], y[k + 1] = 2.0 ** 110 + 2.0 ** 90, -(2.0 ** 110 + 2.0 ** 90)
    return x, y


@functools.lru_cache(maxsize=None)
def exact_dot_case():
    x, y = exact_product_operands(random.Random(29), 20000)
    products = [a * b for a, b in zip(x, y)]
    assert all(Fraction(a) * Fraction(b) == Fraction(p) for a, b, p in zip(x, y, products))
    want = math.fsum(products)
    assert bits(want) == bits(exact(products))
    return np.array(x), np.array(y), want


def test_exact_dot_is_fsum_of_exact_products(space):
    x, y, want = exact_dot_case()
    got = porta.parallel_reduce(space.range(len(x)), K.xdot, x, y)
    assert same_bits(got, want), (got, want)
    assert float(np.dot(x, y)) != want  # NumPy's dot misses it: the data can tell


def test_non_finite_and_out_of_window(space):
    """What the C reducer reports: NaN for an Inf or NaN term (NONFINITE) and for a term of
    2^336 or more (OVERFLOW); bits of a term below 2^-304 are dropped (INEXACT), toward 0; an
    exact zero is +0.0."""
    def run(terms):
        x = np.array(terms, dtype=np.float64)
        return porta.parallel_reduce(space.range(len(x)), K.xsum, x)

    assert math.isnan(run([1.0, math.inf, 2.0]))
    assert math.isnan(run([1.0, math.inf, -math.inf]))
    assert math.isnan(run([1.0, math.nan]))
    assert math.isnan(run([1.0, 2.0 ** 336, -(2.0 ** 336)]))
    assert same_bits(run([1.0, 2.0 ** 335, -(2.0 ** 335)]), 1.0)  # inside: exact
    assert same_bits(run([1e-100] * 1000), 0.0)  # below the window: dropped
    assert same_bits(run([1.0, 1e-100]), 1.0)
    assert same_bits(run([2.0 ** -304] * 3), 3 * 2.0 ** -304)  # the window's last step
    assert same_bits(run([-0.0, -0.0]), 0.0)  # fsum gives -0.0 here
    assert same_bits(run([5.0, -5.0]), 0.0)
    assert same_bits(run([]), 0.0)


C_XDOT = r"""
#include "porta/porta.h"
typedef struct { const double *x, *y; } cxdot_args;
PORTA_REDUCE(cxdot, cxdot_args, a, i, porta_xsum_f64, acc) {
  porta_xsum_f64_add(acc, a->x[i] * a->y[i]);
}
#ifdef __cplusplus
extern "C" /* nvcc compiles this as CUDA C++ for the CUDA back end */
#endif
__attribute__((visibility("default"))) int c_xdot(int backend, const double *x, const double *y,
                                                  int64_t n, double *out) {
  cxdot_args a = {x, y};
  porta_xsum_f64_value v;
  int rc = PORTA_PARALLEL_REDUCE(cxdot, porta_exec_backend((porta_backend)backend),
                                 porta_range(0, n), &a, &v);
  *out = porta_xsum_f64_round(&v);
  return rc;
}
"""


def load_c_xdot(cuda):
    lib = ctypes.CDLL(cache.build(C_XDOT, "c_xdot_cuda" if cuda else "c_xdot", cuda=cuda))
    lib.c_xdot.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                           ctypes.POINTER(ctypes.c_double)]
    return lib


def dot_operands(n=100010):
    """Random operands over 1e-60 .. 1e60, every 7th product +-1e80 (as many of each)."""
    rng = np.random.default_rng(66)
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-30, 30, n)
    y = rng.standard_normal(n) * 10.0 ** rng.uniform(-30, 30, n)
    x[::7] = 1e40
    y[0::14], y[7::14] = 1e40, -1e40
    assert len(y[0::14]) == len(y[7::14])
    return x, y


def test_exact_dot_same_bits_as_c(request):
    """Rounded products (not exact): the Python kernel's bits are the C kernel's (reducer
    porta_xsum_f64, compiled here with the flags of the generated modules) on every host back
    end, and fsum's of the same rounded products."""
    from conftest import cuda_run

    if cuda_run(request.config):
        pytest.skip("the host back ends (test_exact_dot_on_cuda_same_bits_as_c runs on the GPU)")
    x, y = dot_operands()
    lib = load_c_xdot(False)
    want = bits(math.fsum(x * y))
    for name, threads in (("serial", 1), ("openmp", 1), ("openmp", 2)):
        if not porta.backend_available(name):
            continue
        porta.set_num_threads(threads)
        try:
            py = porta.parallel_reduce(porta.RangePolicy(0, len(x), space=name), K.xdot, x, y)
            out = ctypes.c_double(-1.0)
            assert lib.c_xdot(_core.backend_id(name), x.ctypes.data, y.ctypes.data, len(x),
                              ctypes.byref(out)) == 0
        finally:
            porta.set_num_threads(2)
        assert bits(py) == bits(out.value) == want, (name, threads, py, out.value)


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
def test_exact_dot_on_cuda_same_bits_as_c():
    x, y = dot_operands()
    dx, dy = porta.View(len(x), space="cuda"), porta.View(len(x), space="cuda")
    porta.deep_copy(dx, x)
    porta.deep_copy(dy, y)
    lib = load_c_xdot(True)
    py = porta.parallel_reduce(porta.RangePolicy(0, len(x), space="cuda"), K.xdot, dx, dy)
    out = ctypes.c_double(-1.0)
    assert lib.c_xdot(_core.backend_id("cuda"), dx.data_ptr, dy.data_ptr, len(x),
                      ctypes.byref(out)) == 0
    assert bits(py) == bits(out.value), (py, out.value)
    # exact products: fsum's bits on the GPU too (nvcc may contract a rounded product into
    # the first addition, so rounded products are compared with the C kernel only)
    xe, ye, want = exact_dot_case()
    ex, ey = porta.View(len(xe), space="cuda"), porta.View(len(xe), space="cuda")
    porta.deep_copy(ex, xe)
    porta.deep_copy(ey, ye)
    got = porta.parallel_reduce(porta.RangePolicy(0, len(xe), space="cuda"), K.xdot, ex, ey)
    assert same_bits(got, want), (got, want)


def test_annotations():
    assert porta.ExactSum[porta.f64] == porta.ExactSum[float]
    assert repr(porta.ExactSum[porta.f64]) == "porta.ExactSum[porta.f64]"
    assert porta.ExactSum[porta.f64].reducer == "porta_xsum_f64"
    for t in (porta.f32, porta.i64, int):
        with pytest.raises(TypeError, match="f64 only"):
            porta.ExactSum[t]
    # both spellings make the same kernel, which returns a Python float
    x = np.array(CASES["alternating"])
    a = porta.parallel_reduce(len(x), K.xsum, x)
    b = porta.parallel_reduce(len(x), K.xsum_signed, x, np.zeros(len(x), np.int64))
    assert type(a) is float and bits(a) == bits(b) == bits(math.fsum(x))


def marker(fname, tag, token):
    """(line, 1-based column) of `token` on the line marked `# ERR tag` in `fname`."""
    with open(os.path.join(HERE, fname)) as fh:
        for n, text in enumerate(fh, 1):
            if text.rstrip().endswith("# ERR " + tag):
                return n, text.index(token) + 1
    raise AssertionError("no marker " + tag)


ERRORS = [
    # (kernel, marker, token at the column, construct, hint)
    ("xsum_read", "xread", "acc", "the exact sum 'acc' read as a value", "acc += term"),
    ("xsum_max", "xmax", "acc, x", "the exact sum 'acc' read as a value", "rounded once"),
    ("xsum_times", "xtimes", "acc *=", "on the exact sum 'acc'", "only added to"),
    ("xsum_assign", "xassign", "acc =", "assignment to the exact sum 'acc'", "starts at 0"),
    ("xsum_team", "xteam", "acc: porta", "the exact sum 'acc: porta.ExactSum[porta.f64]' in a "
     "team kernel", "range and MDRangePolicy kernels"),
    ("xsum_nested", "xnested", "s: porta", "the exact sum 's: porta.ExactSum[porta.f64]' of a "
     "nested reduction", "no team collectives"),
    ("xsum_scan", "xscan", "acc: porta", "in a scan", "porta.Sum[porta.f64]"),
]


@pytest.mark.parametrize("name,tag,token,construct,hint", ERRORS, ids=[c[0] for c in ERRORS])
def test_unsupported_uses_name_the_line(name, tag, token, construct, hint):
    k = getattr(K, name)
    with pytest.raises(porta.TranslationError) as ei:
        k.check()
    e = ei.value
    line, col = marker("kernels_exact.py", tag, token)
    assert e.file.endswith("kernels_exact.py")
    assert (e.line, e.col) == (line, col), str(e)
    assert construct in e.construct, str(e)
    assert hint in e.hint, str(e)
    assert str(e).startswith("%s:%d:%d: " % (e.file, line, col))
    with pytest.raises(porta.TranslationError):  # a launch raises it too
        porta.parallel_reduce(4, k, np.zeros(4))
