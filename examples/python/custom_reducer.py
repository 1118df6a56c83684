"""A custom reducer and minloc / maxloc, written in Python, run by Porta on the back end
chosen at run time, and checked against NumPy.

    build/python-venv/bin/python examples/python/custom_reducer.py [--porta-backend=serial]

One pass over the data gives the count, mean, variance, minimum and maximum at once: the
reducer's value has several fields, its init gives the identity and its join combines two
partial results (Chan et al.'s pairwise update of mean and variance). Porta C's custom
reducer is this triple (Moments_value, Moments_init, Moments_join).
"""
import math
import sys

import numpy as np

import porta


@porta.reducer
class Moments:
    n: float      # the value's fields, annotated: a C struct of them
    mean: float
    m2: float     # sum of squared deviations from the mean
    lo: float
    hi: float

    def init(self):  # the identity: joining it changes nothing
        self.n = 0.0
        self.mean = 0.0
        self.m2 = 0.0
        self.lo = math.inf
        self.hi = -math.inf

    def join(self, other):  # self := self combined with other (other is read-only)
        n = self.n + other.n
        if n > 0.0:
            d = other.mean - self.mean
            self.m2 = self.m2 + other.m2 + d * d * self.n * other.n / n
            self.mean = self.mean + d * other.n / n
            self.n = n
        self.lo = min(self.lo, other.lo)
        self.hi = max(self.hi, other.hi)


# A kernel takes the reducer as its accumulator and updates its fields: adding one value is
# joining the one-value moments (n = 1, mean = v, m2 = 0).
@porta.kernel
def moments(i: int, acc: Moments, x: porta.f64[:]):
    v = x[i]
    acc.n += 1.0
    d = v - acc.mean
    acc.mean += d / acc.n
    acc.m2 += d * (v - acc.mean)
    acc.lo = min(acc.lo, v)
    acc.hi = max(acc.hi, v)


# A built-in location reducer: the value and the (smallest) index where it occurs.
@porta.kernel
def argmax(i: int, acc: porta.MaxLoc[porta.f64], x: porta.f64[:]):
    if x[i] > acc.val:
        acc.val = x[i]
        acc.loc = i


def main():
    porta.init()
    x = np.random.default_rng(3).normal(5.0, 2.0, 1_000_000)
    m = porta.parallel_reduce(len(x), moments, x)  # a Moments instance
    var = m.m2 / m.n
    ok = (m.n == len(x) and abs(m.mean - x.mean()) < 1e-10 and
          abs(var - x.var()) < 1e-9 and m.lo == x.min() and m.hi == x.max())
    val, loc = porta.parallel_reduce(len(x), argmax, x)  # a tuple
    ok = ok and val == x.max() and loc == int(np.argmax(x))
    print("custom_reducer: backend=%s threads=%d mean=%.4f var=%.4f argmax=%d %s"
          % (porta.backend(), porta.num_threads(), m.mean, var, loc, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
