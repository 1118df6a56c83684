#!/usr/bin/env python3
"""The exact sum (porta/xsum.h) against Python's math.fsum on hostile inputs.

    test_xsum_fsum.py XSUM_TERMS XSUM_TERMS_FULL

XSUM_TERMS (the default window, [2^-304, 2^336)) and XSUM_TERMS_FULL (PORTA_XSUM_MIN_EXP -1074,
66 limbs: every finite double) print the exact sum of a file of doubles, correctly rounded,
and its status bits, after checking that every order and split they try agrees. Each case here:
- the whole range: the result is math.fsum's bits (the correctly rounded exact sum; the exact
  rational sum rounded by Fraction where fsum's own intermediate overflows), status 0;
- the default window: math.fsum of the terms with their bits below 2^-304 dropped (toward
  zero), flagged INEXACT where any was; NaN flagged OVERFLOW where a term reaches 2^336;
- Inf and NaN terms: NaN flagged NONFINITE in both, as the accumulator always reported them.
The programs also sum each case by the double-double sum (porta/ddsum.h), which must give the
same bits wherever its error bound decides the rounding: it must decide the random sums and
ten 0.1s, and never an exact tie, an Inf or a NaN.
Cases: cancellation (1e300 + 1 - 1e300, pairs +-x around a small rest, alternating series),
terms from 1e-300 to 1e300 of both signs, subnormals alone and beside normal numbers, ties to
even, sums that pass 2^1023 on the way, and random sums of 1 to 100000 terms.
"""
import math
import os
import random
import subprocess
import sys
import tempfile
from fractions import Fraction

INEXACT, OVERFLOW, NONFINITE = 1, 2, 4
MIN_EXP, MAX_EXP = -304, -304 + 32 * 20


def exact_round(terms):
    """The correctly rounded exact sum: math.fsum, or Fraction where fsum overflows."""
    try:
        return math.fsum(terms)
    except OverflowError:
        return float(sum((Fraction(t) for t in terms), Fraction(0)))


def run(tool, terms, tmp):
    path = os.path.join(tmp, "terms.txt")
    with open(path, "w") as f:
        f.write("".join(float.hex(t) + "\n" if math.isfinite(t) else repr(t) + "\n"
                        for t in terms))
    p = subprocess.run([tool, path], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError(f"{tool} failed ({p.returncode}): {p.stdout}{p.stderr}")
    value, status, certified = p.stdout.split()
    CERTIFIED[0] = int(certified)
    return float.fromhex(value) if "nan" not in value else math.nan, int(status)


CERTIFIED = [0]  # of the last run: how many double-double ways decided the rounding


def truncated(t):
    """t with its bits below 2^MIN_EXP dropped, toward zero (the default window's rule)."""
    if t == 0.0 or abs(t) >= 2.0 ** (MIN_EXP + 52):
        return t
    return math.ldexp(math.trunc(math.ldexp(t, -MIN_EXP)), MIN_EXP)


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) ==
                                                 math.copysign(1, b))


def check(name, terms, default_tool, full_tool, tmp, failures):
    finite = all(math.isfinite(t) for t in terms)
    got, status = run(full_tool, terms, tmp)
    if finite:
        want, want_status = exact_round(terms), 0
        if want == 0.0:
            want = 0.0  # an exact zero is +0.0
    else:
        want, want_status = math.nan, NONFINITE
    if not same(got, want) or status != want_status:
        failures.append(f"{name} (whole range): got {got!r} status {status}, "
                        f"want {want!r} status {want_status}")
    got, status = run(default_tool, terms, tmp)
    must = name.startswith("random") or name == "ten 0.1s"
    never = "tie to even" in name or not finite
    if (must and CERTIFIED[0] != 5) or (never and CERTIFIED[0] != 0):
        failures.append(f"{name}: the double-double sum decided {CERTIFIED[0]} of 5 ways")
    if not finite:
        want, flags = math.nan, NONFINITE
    elif any(abs(t) >= 2.0 ** MAX_EXP for t in terms):
        want, flags = math.nan, OVERFLOW
    else:
        cut = [truncated(t) for t in terms]
        want = exact_round(cut)
        if want == 0.0:
            want = 0.0
        flags = INEXACT if cut != terms else 0
    if not same(got, want) or (status & flags) != flags or (finite and status != flags and
                                                             flags != OVERFLOW):
        failures.append(f"{name} (default window): got {got!r} status {status}, "
                        f"want {want!r} status {flags}")


def log_uniform(rng, lo, hi):
    return rng.choice((-1.0, 1.0)) * 10.0 ** rng.uniform(lo, hi)


def cases(rng):
    sub = 5e-324
    yield "1e300 + 1 - 1e300", [1e300, 1.0, -1e300]
    yield "1e100 + 1 - 1e100", [1e100, 1.0, -1e100]
    pairs = [log_uniform(rng, -300, 300) for _ in range(5000)]
    mixed = pairs + [-t for t in pairs] + [0.1, 1e-200, -3e-310]
    rng.shuffle(mixed)
    yield "+-x pairs from 1e-300 to 1e300 around 0.1 + 1e-200 - 3e-310", mixed
    near = [log_uniform(rng, 0, 40) for _ in range(4000)]
    mixed = near + [-t for t in near] + [math.pi * 1e-30]
    rng.shuffle(mixed)
    yield "+-x pairs near 1e20 around pi 1e-30", mixed
    yield "alternating harmonic series, 20000 terms", [(-1.0) ** k / (k + 1) for k in range(20000)]
    yield "1e-300 to 1e300, both signs", [log_uniform(rng, -300, 300) for _ in range(20000)]
    yield "1e-300 to 1e300, positive", [10.0 ** rng.uniform(-300, 300) for _ in range(20000)]
    yield "subnormals alone", [sub * rng.randint(1, 1 << 40) * rng.choice((-1, 1))
                               for _ in range(3000)]
    yield "subnormals beside 2^-1022 and 1", [sub] * 1001 + [2.0 ** -1022, -2.0 ** -1022, 1.0,
                                                            -1.0, 3 * sub]
    yield "a subnormal result from normal terms", [2.0 ** -1021, -(2.0 ** -1021) + 7 * sub]
    yield "sum of 2^-1074 and 2^1023", [sub, 2.0 ** 1023, -(2.0 ** 1023), sub]
    e = 2.0 ** -53
    yield "a tie to even (down)", [1.0, e]
    yield "a tie to even (up)", [1.0 + 2 * e, e]
    yield "just above a tie", [1.0, e, 2.0 ** -1000]
    yield "just below a tie", [1.0, e, -(2.0 ** -1074)]
    yield "past 2^1023 on the way", [1.5e308, 1.5e308, -1.4e308, -1.5e308]
    yield "ten 0.1s", [0.1] * 10
    yield "Inf", [1.0, math.inf, 2.0]
    yield "Inf - Inf", [math.inf, -math.inf]
    yield "NaN", [1.0, math.nan]
    yield "empty", []
    yield "zeros of both signs", [0.0, -0.0, -0.0]
    for n in (1, 2, 3, 17, 1000, 100000):
        yield f"random {n} terms, 1e-20 to 1e20", [log_uniform(rng, -20, 20) for _ in range(n)]
    yield "window edges: 2^-304, 2^-252, 2^335", [2.0 ** -304, -(2.0 ** -252) * 1.5,
                                                  2.0 ** 335, 2.0 ** 335, -(2.0 ** 335)]
    yield "just below the window", [3 * 2.0 ** -305, 1.0, -1.0, -(2.0 ** -305)]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    rng = random.Random(20261127)
    failures, count = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, terms in cases(rng):
            check(name, terms, sys.argv[1], sys.argv[2], tmp, failures)
            count += 1
    for f in failures:
        print("FAIL", f)
    print(f"{count - len(failures)} of {count} cases agree with math.fsum")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
