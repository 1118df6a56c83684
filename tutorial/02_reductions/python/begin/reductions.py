"""Exercise 02 in Python, begin: three reductions in NumPy, to port to Porta kernels.

    build/python-venv/bin/python tutorial/02_reductions/python/begin/reductions.py

This program runs as it is: NumPy computes a dot product, the minimum and the maximum of an
array, and a sum of values from 1e-8 to 1e8. Port each reduction to a Porta kernel launched
with porta.parallel_reduce (the TODO(tutorial) comments), then make the last sum
reproducible with Porta's deterministic mode. The finished program is
../solution/reductions.py.
Answers: dot = 4000002, min = -500000, max = 500002, and the deterministic sum of w is
bitwise the same on Serial, OpenMP x1 and OpenMP x2 (2709699759649.3574).
"""
import math
import sys

import numpy as np

import porta

# TODO(tutorial): the dot product as a reduction kernel. The accumulator is a parameter
# annotated with a reducer, used as a local variable:
#   @porta.kernel
#   def dot(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:], y: porta.f64[:]):
#       acc += x[i] * y[i]

# TODO(tutorial): the minimum and the maximum in one pass need a custom reducer: a class
# decorated with @porta.reducer with annotated fields (lo: float, hi: float), an init(self)
# that sets the identity (lo = math.inf, hi = -math.inf: the min of nothing is +inf, not 0)
# and a join(self, other) that combines two partial results. Then a kernel
#   def minmax(i: int, acc: MinMax, z: porta.f64[:]): ...   (updates acc.lo and acc.hi)

# TODO(tutorial): a plain sum kernel, total(i, acc, w), for the deterministic part.


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


def main():
    porta.init()
    n = 1_000_003
    i = np.arange(n, dtype=np.int64)
    # TODO(tutorial): keep x, y and z in views (porta.View(n, porta.f64)) filled through host
    # mirrors (porta.create_mirror_view, numpy.asarray, porta.deep_copy), so that the kernels
    # also run on a GPU.
    x = (1 + i % 3).astype(np.float64)
    y = (i % 5).astype(np.float64)
    z = ((i * 7919) % n - 500000).astype(np.float64)

    # TODO(tutorial): d = porta.parallel_reduce(n, dot, x, y) (a Python float).
    d = float(np.dot(x, y))

    # TODO(tutorial): mm = porta.parallel_reduce(n, minmax, z) (a MinMax: mm.lo, mm.hi).
    lo, hi = float(z.min()), float(z.max())

    # TODO(tutorial): sum w with the kernel `total` on porta.RangePolicy(0, n, space="serial"),
    # then on space="openmp" after porta.set_num_threads(1) and (2), all three after
    # porta.set_deterministic(True), and check that the three sums have the same bits.
    # w stays a NumPy array: the host back ends read host memory.
    w = 10.0 ** (-8.0 + 16.0 * lcg_u01(n, 0x853c49e6748fea9b))
    s = float(w.sum())

    print("02_reductions begin: backend=%s (NumPy, not ported yet) dot=%.0f min=%.0f max=%.0f "
          "sum=%.4f fsum=%.4f" % (porta.backend(), d, lo, hi, s, math.fsum(w)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
