"""A histogram with atomics, written in Python, run by Porta on the back end chosen at run
time, and checked against NumPy.

    build/python-venv/bin/python examples/python/histogram.py [--porta-backend=serial]

Many indices add to the same bin at once: porta.atomic_add makes each addition whole
(porta_atomic_add_i64 in the generated C). A device function computes the bin.
"""
import math
import sys

import numpy as np

import porta


# A device function: called from kernels (and from other device functions), emitted as an
# inline C function. Its parameters and its result are numbers, annotated.
@porta.function
def bin_of(v: float, lo: float, hi: float, nbins: int) -> int:
    b = int(math.floor((v - lo) / (hi - lo) * nbins))
    return min(max(b, 0), nbins - 1)  # values outside [lo, hi) go to the end bins


@porta.kernel
def histogram(i: int, x: porta.f64[:], lo: float, hi: float, counts: porta.i64[:]):
    porta.atomic_add(counts, bin_of(x[i], lo, hi, counts.shape[0]), 1)


# The fetch form returns the old value: each index gets its own slot in `order`.
@porta.kernel
def collect_outliers(i: int, x: porta.f64[:], limit: float, n: porta.i64[:],
                     out: porta.i64[:]):
    if abs(x[i]) > limit:
        out[porta.atomic_fetch_add(n, 0, 1)] = i


def main():
    porta.init()
    x = np.random.default_rng(2).standard_normal(1_000_000)
    counts = np.zeros(40, dtype=np.int64)
    porta.parallel_for(len(x), histogram, x, -4.0, 4.0, counts)
    want = np.bincount(np.clip(np.floor((x + 4.0) / 8.0 * 40).astype(np.int64), 0, 39),
                       minlength=40)
    ok = np.array_equal(counts, want)

    n = np.zeros(1, dtype=np.int64)
    out = np.zeros(len(x), dtype=np.int64)
    porta.parallel_for(len(x), collect_outliers, x, 3.5, n, out)
    ok = ok and np.array_equal(np.sort(out[:n[0]]), np.flatnonzero(np.abs(x) > 3.5))
    print("histogram: backend=%s threads=%d outliers=%d %s"
          % (porta.backend(), porta.num_threads(), n[0], "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
