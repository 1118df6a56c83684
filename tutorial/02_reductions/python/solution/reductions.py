"""Exercise 02 in Python, solution: reductions. A dot product with a built-in reducer, the
minimum and the maximum together with a custom reducer, and deterministic sums.

    build/python-venv/bin/python tutorial/02_reductions/python/solution/reductions.py
    build/python-venv/bin/python tutorial/02_reductions/python/solution/reductions.py \\
        --porta-backend=serial

The NumPy original (../begin/reductions.py):

    dot = np.dot(x, y)
    lo, hi = z.min(), z.max()
    s = w.sum()                 (w: magnitudes 1e-8 .. 1e8)

Answers: dot = 4000002 (x[i] = 1 + i % 3, y[i] = i % 5: integers, so exact in any order);
min = -500000, max = 500002 (z[i] = (7919 i mod n) - 500000 with n = 1000003, a prime, so
7919 i mod n takes every value 0 .. n-1 once); and the sum of w is bitwise the same on the
Serial back end and on OpenMP with 1 and 2 threads when reductions are deterministic, and
within 1e-12 (relative) of the correctly rounded sum (math.fsum).
"""
import math
import sys

import numpy as np

import porta


# 1. A built-in reducer: the accumulator parameter porta.Sum[porta.f64] is the thread's
#    private partial sum, added to as a local variable; Porta joins the partials and
#    parallel_reduce returns the total as a Python float.
@porta.kernel
def dot(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:], y: porta.f64[:]):
    acc += x[i] * y[i]


# 2. A custom reducer: a class of annotated fields (a C struct), init (the identity: the min
#    of nothing is +inf, the max of nothing -inf) and join (combine two partial results).
#    Porta C's reducer is the same triple (MinMax_value, MinMax_init, MinMax_join).
@porta.reducer
class MinMax:
    lo: float
    hi: float

    def init(self):
        self.lo = math.inf
        self.hi = -math.inf

    def join(self, other):
        self.lo = min(self.lo, other.lo)
        self.hi = max(self.hi, other.hi)


@porta.kernel
def minmax(i: int, acc: MinMax, z: porta.f64[:]):
    v = z[i]
    if v < acc.lo:
        acc.lo = v
    if v > acc.hi:
        acc.hi = v


# 3. A plain sum, for the deterministic mode.
@porta.kernel
def total(i: int, acc: porta.Sum[porta.f64], w: porta.f64[:]):
    acc += w[i]


def lcg_u01(n, seed):
    """n values in [0, 1) of the fixed-seed LCG of the C exercise (state = state * A + C mod
    2^64, value = (state >> 11) / 2^53), computed as a prefix scan of affine maps."""
    mul = np.full(n, 6364136223846793005, dtype=np.uint64)
    add = np.full(n, 1442695040888963407, dtype=np.uint64)
    shift = 1
    while shift < n:  # compose each map with the one `shift` places before it
        m = mul[shift:] * mul[:-shift]
        a = mul[shift:] * add[:-shift] + add[shift:]
        mul[shift:], add[shift:] = m, a
        shift *= 2
    state = mul * np.uint64(seed) + add
    return (state >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def to_view(values, label):
    """A view in the default memory space holding `values` (copied through a host mirror)."""
    v = porta.View(values.shape, porta.f64, label=label)
    h = porta.create_mirror_view(v)
    np.asarray(h)[...] = values
    porta.deep_copy(v, h)
    return v


def main():
    porta.init()
    n = 1_000_003
    ok = True
    i = np.arange(n, dtype=np.int64)
    x = to_view((1 + i % 3).astype(np.float64), "x")
    y = to_view((i % 5).astype(np.float64), "y")
    z = to_view(((i * 7919) % n - 500000).astype(np.float64), "z")

    # 1. The dot product: blocking, the result is a Python float.
    d = porta.parallel_reduce(n, dot, x, y)
    want = float(np.dot((1 + i % 3).astype(np.float64), (i % 5).astype(np.float64)))
    if d != want:  # exact: every term and partial sum is an integer below 2^53
        print("dot = %.17g, want %.17g" % (d, want), file=sys.stderr)
        ok = False

    # 2. The minimum and the maximum in one pass: parallel_reduce returns a MinMax.
    mm = porta.parallel_reduce(n, minmax, z)
    if mm.lo != -500000.0 or mm.hi != 500002.0:
        print("min = %.17g, max = %.17g, want -500000 and 500002" % (mm.lo, mm.hi),
              file=sys.stderr)
        ok = False
    # The init must be the identity of the join: over z[0:1] alone (one value, -500000) the
    # minimum and the maximum are both that value, whatever the back end (a thread with no
    # element contributes init alone). An init of 0 passes the full range but not this one.
    one = porta.parallel_reduce(porta.RangePolicy(0, 1), minmax, z)
    if one.lo != -500000.0 or one.hi != -500000.0:
        print("over z[0:1]: min = %.17g, max = %.17g, want -500000 and -500000 (is init the "
              "identity?)" % (one.lo, one.hi), file=sys.stderr)
        ok = False

    # 3. Deterministic reductions. A floating-point sum depends on its order, and the order on
    #    the thread count. In deterministic mode (porta.set_deterministic(True),
    #    --porta-deterministic, PORTA_DETERMINISTIC=1) Porta sums fixed chunks in a fixed tree,
    #    so the bits are the same for any thread count. The host back ends read host memory:
    #    w is a NumPy array, launched on named spaces (on a CUDA run too).
    w = 10.0 ** (-8.0 + 16.0 * lcg_u01(n, 0x853c49e6748fea9b))
    was, threads = porta.deterministic(), porta.num_threads()
    porta.set_deterministic(True)
    runs = [("serial", porta.parallel_reduce(porta.RangePolicy(0, n, space="serial"), total, w))]
    if porta.backend_available("openmp"):
        for t in (1, 2):
            porta.set_num_threads(t)
            s = porta.parallel_reduce(porta.RangePolicy(0, n, space="openmp"), total, w)
            runs.append(("openmp x%d" % t, s))
        porta.set_num_threads(threads)
    porta.set_deterministic(was)
    same = all(s == runs[0][1] for _, s in runs)  # == on floats: the same bits (no NaN here)
    for name, s in runs[1:]:
        if s != runs[0][1]:
            print("sum on %s = %.17g differs from serial %.17g" % (name, s, runs[0][1]),
                  file=sys.stderr)
    exact = math.fsum(w)
    close = abs(runs[0][1] - exact) <= 1e-12 * exact
    if not close:
        print("deterministic sum %.17g, fsum %.17g" % (runs[0][1], exact), file=sys.stderr)
    ok = ok and same and close

    print("02_reductions: backend=%s threads=%d dot=%.0f min=%.0f max=%.0f "
          "deterministic_sum=%.4f bitwise_equal=%s (%d runs) %s"
          % (porta.backend(), porta.num_threads(), d, mm.lo, mm.hi, runs[0][1],
             "yes" if same else "no", len(runs), "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
