"""Launches from several Python threads at once (issue 53): each thread gets its own, right
answer, on Serial, OpenMP x1 and OpenMP x2 (and on CUDA under PORTA_BACKEND=cuda). The launches
are large enough (32768 iterations and more) to release the GIL, so their C parts overlap.
Before launch scratch was per thread, the reductions of OpenMP (and of the deterministic mode)
shared one workspace: 2 threads on OpenMP x2 got each other's dot products (kernels in
kernels_threads.py)."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import porta
import kernels_threads as K

HERE = os.path.dirname(os.path.abspath(__file__))
THREADS = 4


def on(space, a):
    """`a` where the space's kernels read it: itself on the host, a device copy on CUDA."""
    if space.name != "cuda":
        return a
    v = porta.View(a.shape, a.dtype, space="cuda", layout="C")
    porta.deep_copy(v, np.ascontiguousarray(a))
    return v


def back(space, a):
    """An array of values a kernel wrote (copied back from the device on CUDA)."""
    return np.asarray(porta.create_mirror_view_and_copy(a)) if space.name == "cuda" else a


def run_threads(work):
    """work(t) on THREADS threads started together; re-raises the first failure."""
    errors = []
    start = threading.Barrier(THREADS)

    def body(t):
        try:
            start.wait()
            work(t)
        except BaseException as e:  # noqa: B902 - reported below, with its traceback
            errors.append(e)

    ts = [threading.Thread(target=body, args=(t,)) for t in range(THREADS)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    if errors:
        raise errors[0]


@pytest.fixture(params=[False, True], ids=["default", "deterministic"])
def mode(request):
    """The default mode, then the deterministic one (whose reductions use the workspace on
    every host back end)."""
    old = porta.deterministic()
    porta.set_deterministic(request.param)
    yield request.param
    porta.set_deterministic(old)


def test_threads_reduce_their_own_arrays(space, mode):
    """4 threads x 500 dot products, each of the thread's own arrays and its own factor."""
    n, reps = 40000, 500
    i = np.arange(n)
    xs = [on(space, (i % 7 + t).astype(np.float64)) for t in range(THREADS)]
    y = on(space, (1 + i % 3).astype(np.float64))
    base = [float(((i % 7 + t) * (1 + i % 3)).sum()) for t in range(THREADS)]
    policy = space.range(n)
    porta.parallel_reduce(policy, K.dot, 1.0, xs[0], y)  # compiled before the threads start
    wrong = [[] for _ in range(THREADS)]

    def work(t):
        for r in range(reps):
            c = float(1 + (r + 131 * t) % 97)
            got = porta.parallel_reduce(policy, K.dot, c, xs[t], y)
            if got != c * base[t]:
                wrong[t].append((r, got, c * base[t]))

    run_threads(work)
    assert wrong == [[]] * THREADS, "wrong dot products: %s" % [w[:3] for w in wrong]


def test_threads_every_pattern(space, mode):
    """Each thread runs a range for, reduce and scan, a box's reduction, a team's reduction and
    a team's for, 60 times, with its own arrays and factors; every value is checked."""
    n, rows, cols, reps = 40000, 200, 200, 60
    league, width = 600, 64  # 600 x 64 >= 32768: the team launches release the GIL too
    rng = np.random.default_rng(53)
    team = porta.TeamPolicy(league, space=space.name)
    data = []
    for t in range(THREADS):
        x = rng.integers(0, 9, n).astype(np.float64)
        xi = rng.integers(-5, 9, n).astype(np.int64)
        a = rng.integers(0, 9, (rows, cols)).astype(np.float64)
        m = rng.integers(0, 9, (league, width)).astype(np.float64)
        data.append(dict(x=x, xi=xi, a=a, m=m, dx=on(space, x), dxi=on(space, xi),
                         da=on(space, a), dm=on(space, m)))
    ones = on(space, np.ones(n))
    # compile everything before the threads start
    d0 = data[0]
    porta.parallel_reduce(space.range(n), K.dot, 1.0, d0["dx"], ones)
    porta.parallel_for(space.range(n), K.scale, 1.0, d0["dx"], on(space, np.zeros(n)))
    porta.parallel_scan(space.range(n), K.prefix, d0["dxi"], on(space, np.zeros(n, np.int64)))
    porta.parallel_reduce(space.md((0, 0), (rows, cols)), K.box_sum, 1.0, d0["da"])
    porta.parallel_reduce(team, K.team_sum, 1.0, d0["dm"])
    porta.parallel_for(team, K.team_rows, 1.0, d0["dm"], on(space, np.zeros(league)))

    def work(t):
        d = data[t]
        out = on(space, np.zeros(n))
        pre = on(space, np.zeros(n, np.int64))
        rsum = on(space, np.zeros(league))
        excl = np.concatenate([[0], np.cumsum(d["xi"])[:-1]])
        for r in range(reps):
            c = float(1 + (r + 17 * t) % 11)
            assert porta.parallel_reduce(space.range(n), K.dot, c, d["dx"], ones) == \
                c * d["x"].sum()
            porta.parallel_for(space.range(n), K.scale, c, d["dx"], out)
            np.testing.assert_array_equal(back(space, out), c * d["x"])
            total = porta.parallel_scan(space.range(n), K.prefix, d["dxi"], pre)
            assert total == int(d["xi"].sum())
            np.testing.assert_array_equal(back(space, pre), excl)
            assert porta.parallel_reduce(space.md((0, 0), (rows, cols)), K.box_sum, c,
                                         d["da"]) == c * d["a"].sum()
            assert porta.parallel_reduce(team, K.team_sum, c, d["dm"]) == c * d["m"].sum()
            porta.parallel_for(team, K.team_rows, c, d["dm"], rsum)
            np.testing.assert_array_equal(back(space, rsum), c * d["m"].sum(axis=1))

    run_threads(work)


FIRST_LAUNCH = r"""
import sys, threading
import numpy as np
sys.path.insert(0, sys.argv[1])
import porta
import kernels_threads as K
porta.init(backend=sys.argv[2], args=[])
n = 40000
x, y = porta.View(n), porta.View(n)  # in the back end's memory
porta.deep_copy(x, np.arange(n, dtype=np.float64))
porta.deep_copy(y, np.ones(n))
got, errors = [None] * 4, []
start = threading.Barrier(4)
def body(t):
    try:
        start.wait()
        got[t] = porta.parallel_reduce(n, K.dot_first, float(t + 1), x, y)
    except BaseException as e:
        errors.append(repr(e))
ts = [threading.Thread(target=body, args=(t,)) for t in range(4)]
[th.start() for th in ts]
[th.join() for th in ts]
print(errors or got)
"""


@pytest.mark.parametrize("backend", ["serial", "openmp"])
def test_first_launch_from_threads_at_once(backend, tmp_path, request):
    """The first launch of a kernel, from 4 threads at once, in a process with an empty cache:
    the threads compile (or wait for) the same module, and each gets its value."""
    from conftest import cuda_run

    if cuda_run(request.config):
        backend = "cuda"
    env = dict(os.environ, PORTA_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", FIRST_LAUNCH, HERE, backend], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    s = float(np.arange(40000).sum())
    assert r.stdout.strip() == str([s, 2 * s, 3 * s, 4 * s]), r.stdout + r.stderr
