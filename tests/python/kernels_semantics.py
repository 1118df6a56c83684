"""Kernels of tests/python/test_semantics.py: Python's meaning of negative constant indices,
integer arithmetic (int64 wrap-around, `**`, shifts, constants that no int64 holds, constant
zero divisors), Python names that are C keywords, typedefs or libm names, print, and NumPy
calls. Lines marked `# ERR tag` are where a TranslationError must point."""
import math
import sys

import numpy as np

import porta

LAST = -1
SECOND_LAST = -2
BIG = 2**70
ZERO = 0
GREETING = "hello %d"
GREETING_F = 0.25


# ---- negative constant indices ----

@porta.kernel
def neg_index(i: int, x: porta.f64[:], y: porta.f64[:]):
    y[i] = x[-1] + 10.0 * x[-2] + 100.0 * x[LAST] + 1000.0 * x[- 3]


@porta.kernel
def neg_index_2d(i: int, a: porta.f64[:, :], out: porta.f64[:]):
    out[i] = a[-1, -1] + 10.0 * a[-2, 0] + 100.0 * a[0, SECOND_LAST] + 1000.0 * a[i, -1]


@porta.kernel
def neg_index_fixed(i: int, p: porta.f64[:, 3], out: porta.f64[:]):
    out[i] = p[i, -1] - p[i, -3] + float(p.shape[-1])


@porta.kernel
def neg_store(i: int, y: porta.f64[:], c: porta.i64[:]):
    if i == 0:
        y[-1] = 7.0
        y[-2] += 1.0
    porta.atomic_add(c, -1, 1)


@porta.kernel
def neg_scratch(t: porta.TeamMember, out: porta.f64[:]):
    tile = porta.scratch(t, porta.f64, 4)
    if porta.single(t):
        for k in range(4):
            tile[k] = float(k)
        out[t.league_rank] = tile[-1] + 10.0 * tile[-4]


# ---- integer arithmetic ----

@porta.kernel
def pow_int(i: int, f: porta.f64[:], n: porta.i64[:]):
    f[i] = 2 ** (i - 2)
    n[i] = (i + 1) ** 3 + i ** 0 + (-2) ** 2


@porta.kernel
def wrap(i: int, a: porta.i64[:], out: porta.i64[:]):
    v = a[i]
    out[i * 8 + 0] = v * 4 // 4
    out[i * 8 + 1] = v + 1
    out[i * 8 + 2] = -v
    out[i * 8 + 3] = v - 1
    out[i * 8 + 4] = 1 if v + 1 > v else 0
    out[i * 8 + 5] = abs(v)
    out[i * 8 + 6] = v ** 2
    w = v
    w *= 3
    out[i * 8 + 7] = w


@porta.kernel
def wrap32(i: int, a: porta.i32[:], out: porta.i64[:]):
    out[i] = a[i] + a[i] + 1


@porta.kernel
def shifts(i: int, a: porta.i64[:], s: porta.i64[:], left: porta.i64[:], right: porta.i64[:]):
    left[i] = a[i] << s[i]
    right[i] = a[i] >> s[i]


@porta.kernel
def int_constants(i: int, out: porta.i64[:]):
    out[0] = 9223372036854775807
    out[1] = -9223372036854775808
    out[2] = 2**62 + (2**62 - 1)
    out[3] = 1 << 62
    out[4] = -(1 << 62) * 2
    out[5] = 7 // -2 + 7 % -2 * 100
    out[6] = ~5 ^ 3
    out[7] = True + True


@porta.kernel
def int64_extremes(i: int, out: porta.i64[:]):
    out[0] = -2**63
    out[1] = 2**63 - 1
    out[2] = -(2**63)
    out[3] = (2**64 - 1) // 2
    out[4] = BIG // 2**10 - 2**60
    out[5] = -2**63 + i
    out[6] = i + (2**63 - 1)
    out[7] = 2**200 // 2**190 + (1 << 63) // 2


@porta.kernel
def int64_past_max(i: int, out: porta.i64[:]):
    out[i] = 2**63 - 1 + 1  # ERR pastmax


@porta.kernel
def int64_past_min(i: int, out: porta.i64[:]):
    out[i] = -2**63 - 1  # ERR pastmin


@porta.kernel
def int64_part_not_const(i: int, out: porta.i64[:]):
    out[i] = i + 2**63 - 1  # ERR partnotconst


@porta.kernel
def int64_fold_too_big(i: int, out: porta.i64[:]):
    out[i] = 2**5000 // 2**4990  # ERR foldtoobig


@porta.kernel
def big_literal(i: int, out: porta.f64[:]):
    out[i] = 123456789012345678901234567890  # ERR bigliteral


@porta.kernel
def big_shift(i: int, out: porta.f64[:]):
    out[i] = float(1 << 70)  # ERR bigshift


@porta.kernel
def shift_100(i: int, out: porta.i64[:]):
    out[i] = 1 << 100  # ERR shift100


@porta.kernel
def folded_overflow(i: int, out: porta.i64[:]):
    out[i] = 2**62 * 4  # ERR foldmul


@porta.kernel
def var_shift_64(i: int, out: porta.i64[:]):
    out[i] = i << 64  # ERR varshift


@porta.kernel
def var_shift_negative(i: int, out: porta.i64[:]):
    out[i] = i >> -1  # ERR negshift


@porta.kernel
def big_global(i: int, out: porta.f64[:]):
    out[i] = i + BIG  # ERR bigglobal


@porta.kernel
def min_minus_one(i: int, out: porta.i64[:]):
    out[i] = -9223372036854775808 - 1  # ERR minminus


# ---- constant zero divisors ----

@porta.kernel
def floordiv_zero(i: int, out: porta.i64[:]):
    out[i] = 1 // 0  # ERR div0


@porta.kernel
def mod_zero(i: int, out: porta.i64[:]):
    out[i] = i % 0  # ERR mod0


@porta.kernel
def mod_zero_folded(i: int, out: porta.i64[:]):
    out[i] = i // (3 - 3)  # ERR div33


@porta.kernel
def augmod_zero(i: int, out: porta.i64[:]):
    k = i
    k %= ZERO  # ERR augmod
    out[i] = k


@porta.kernel
def float_div_zero(i: int, out: porta.f64[:]):
    out[i] = (i + 1.0) // 0.0 + (i + 1) / 0


# ---- Python names that are C names ----

@porta.kernel
def c_names(i: int, int64_t: porta.f64[:], double: float, out: porta.f64[:]):
    _Atomic = int64_t[i]
    _Generic = 2.0
    sqrt = _Atomic * _Generic
    printf = math.sqrt(sqrt)
    NULL = 1
    errno = NULL + 1
    INT64_C = 3
    for _Bool in range(errno):
        printf += double
    porta_py_floordiv_i64 = INT64_C
    pk_a = porta_py_floordiv_i64
    out[i] = printf + pk_a


@porta.function
def restrict(static: float, switch: float) -> float:
    register = static * switch
    return register


@porta.kernel
def c_names_call(i: int, out: porta.f64[:]):
    inline = float(i)
    out[i] = restrict(inline, 2.0)


@porta.reducer
class Extremes:
    double: float
    int: float

    def init(self):
        self.double = -math.inf
        self.int = math.inf

    def join(self, other):
        self.double = max(self.double, other.double)
        self.int = min(self.int, other.int)


@porta.kernel
def c_names_reduce(i: int, acc: Extremes, char: porta.f64[:]):
    acc.double = max(acc.double, char[i])
    acc.int = min(acc.int, char[i])


@porta.kernel
def unicode_names(i: int, λ: porta.f64[:], out: porta.f64[:]):
    µ = λ[i] * 2.0
    x_u00b5_ = 1.0
    out[i] = µ + x_u00b5_


@porta.kernel
def x_n(i: int, x: porta.f64[:], x_n: float, x_s: porta.f64[:]):
    x[i] = x_n + x_s[i] + float(x.shape[0])


# ---- print ----

@porta.kernel
def say(i: int, x: porta.f64[:], f: porta.f32[:], n: porta.i64[:]):
    print("i =", i, "x:", x[i], "f:", f[i], n[i], i < 2, sep=" ")
    print("100% \"quoted\" \\ é ??=", x[i] * 2.0, sep="|", end="!\n")
    print()
    print("", i, n[i] - 7, -x[i], sep=",")


@porta.kernel
def say_f32(i: int, f: porta.f32[:]):
    print(f[i], f"<{f[i]}>")


@porta.kernel
def say_formatted(i: int, x: porta.f64[:], n: porta.i64[:]):
    print(f"i={i:3d} x={x[i]:.3f} e={x[i]:10.2e} g={x[i]:g} n={n[i]:>5} h={i:x} <{i:<4}>",
          f"{n[i]:+d} r={x[i]} {i < 1} {i < 1:3} [{x[i]:>12}] {i:05.1f}")
    print(end="")  # writes nothing (a line of its own would mix with other threads' lines)


@porta.function
def say_value(v: float) -> float:
    print("value", v, end=" ")
    print("and", v * 2.0, end="\n", flush=True)
    return v


@porta.kernel
def say_from_function(i: int, x: porta.f64[:]):
    x[i] = say_value(x[i])


@porta.kernel
def print_file(i: int, x: porta.f64[:]):
    print(x[i], file=sys.stderr)  # ERR printfile


@porta.kernel
def print_value(i: int, x: porta.f64[:]):
    x[i] = print(x[i])  # ERR printvalue


@porta.kernel
def print_sep(i: int, x: porta.f64[:], s: porta.f64[:]):
    print(x[i], sep=s[i])  # ERR printsep


@porta.kernel
def print_bad_format(i: int, x: porta.f64[:]):
    print("x:", f"{x[i]:,}")  # ERR printformat


@porta.kernel
def print_precision_no_type(i: int, x: porta.f64[:]):
    print(f"{x[i]:.3}")  # ERR printprec


@porta.kernel
def print_constant(i: int, x: porta.f64[:]):
    if i == 0:
        print(GREETING, GREETING_F, x[i], sep="")


# ---- NumPy calls ----

@porta.kernel
def uses_np_sqrt(i: int, x: porta.f64[:]):
    x[i] = np.sqrt(x[i])  # ERR npsqrt


@porta.kernel
def uses_np_arctan2(i: int, x: porta.f64[:]):
    x[i] = np.arctan2(x[i], 1.0)  # ERR nparctan2


@porta.kernel
def uses_np_abs(i: int, x: porta.f64[:]):
    x[i] = np.abs(x[i])  # ERR npabs


@porta.kernel
def uses_np_sum(i: int, x: porta.f64[:]):
    x[i] = np.sum(x[i])  # ERR npsum


@porta.kernel
def uses_np_pi(i: int, x: porta.f64[:]):
    x[i] = np.pi * x[i] + np.e
