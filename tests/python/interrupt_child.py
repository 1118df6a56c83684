"""Child program of test_interrupt.py: long launches of each pattern that a SIGINT must end
with KeyboardInterrupt, then the same kernels again, short, checked.

    python interrupt_child.py BACKEND THREADS DETERMINISTIC PATTERN...

It calibrates the long launches to about LONG seconds (20 on the host, 3 on a GPU, whose kernel
keeps running after the interrupt), prints "ready", then for each pattern prints "go NAME",
runs it, and prints "caught NAME" when KeyboardInterrupt arrives (or "finished NAME" if the
launch ran to its end). The test sends SIGINT after "go". Last, every pattern runs again on a
few indices and the values are checked ("ok", or a traceback and exit status 1). It sets
SIGINT's handler (Python's) itself, since it may have inherited SIGINT ignored."""
import signal
import sys
import time

import numpy as np

import porta


@porta.kernel
def spin_for(i: int, out: porta.f64[:], m: int):
    x = float(i % 2)  # from the index, so that no compiler hoists the loop out of the launch
    for k in range(m):
        x = x * 0.5 + 1.0
    out[i] = x + i


@porta.kernel
def spin_reduce(i: int, acc: porta.Sum[porta.f64], m: int):
    x = float(i % 2)
    for k in range(m):
        x = x * 0.5 + 1.0
    acc += x + i


@porta.kernel
def spin_scan(i: int, update: porta.Sum[porta.f64], final: bool, m: int, out: porta.f64[:]):
    x = float(i % 2)
    for k in range(m):
        x = x * 0.5 + 1.0
    update += x
    if final:
        out[i] = update


@porta.kernel
def spin_md(i: int, j: int, acc: porta.Sum[porta.f64], m: int):
    x = float(j % 2)
    for k in range(m):
        x = x * 0.5 + 1.0
    acc += x + j


@porta.kernel
def spin_team(t: porta.TeamMember, acc: porta.Sum[porta.f64], m: int):
    for j in porta.team_thread_range(t, 1):
        x = float(t.league_rank % 2)
        for k in range(m):
            x = x * 0.5 + 1.0
        acc += x + t.league_rank


@porta.kernel
def spin_team_for(t: porta.TeamMember, out: porta.f64[:], m: int):
    for j in porta.team_thread_range(t, 1):
        x = float(t.league_rank % 2)
        for k in range(m):
            x = x * 0.5 + 1.0
        out[t.league_rank] = x


def x_of(m, n):
    """The values the kernels' loop reaches after m steps from index 0 .. n-1 (i % 2)."""
    x = (np.arange(n) % 2).astype(np.float64)
    for _ in range(m):
        x = x * 0.5 + 1.0
    return x


def array(n, backend):
    return porta.View(n, space="cuda" if backend == "cuda" else "host")


def launch(pattern, n, m, out, space):
    """One launch of `pattern` over n units of m steps each (its value, or None)."""
    if pattern == "for":
        return porta.parallel_for(porta.RangePolicy(0, n, space), spin_for, out, m)
    if pattern == "for_fence":  # CUDA: the launch is queued, the fence waits
        porta.parallel_for(porta.RangePolicy(0, n, space), spin_for, out, m)
        return porta.fence()
    if pattern == "reduce":
        return porta.parallel_reduce(porta.RangePolicy(0, n, space), spin_reduce, m)
    if pattern == "scan":
        return porta.parallel_scan(porta.RangePolicy(0, n, space), spin_scan, m, out)
    if pattern == "md":
        return porta.parallel_reduce(porta.MDRangePolicy((0, 0), (n // 64, 64), space), spin_md,
                                     m)
    if pattern == "team":
        return porta.parallel_reduce(porta.TeamPolicy(n, 1, space=space), spin_team, m)
    if pattern == "team_for":
        return porta.parallel_for(porta.TeamPolicy(n, 1, space=space), spin_team_for, out, m)
    raise ValueError(pattern)


def check(pattern, space, backend):
    """The pattern again on a few units: its value and array are right."""
    n, m = 256, 5
    out = array(n, backend)
    got = launch(pattern, n, m, out, space)
    porta.fence()
    host = np.asarray(porta.create_mirror_view_and_copy(out))
    x, i = x_of(m, n), np.arange(n, dtype=np.float64)  # values of 6 bits: sums are exact
    if pattern in ("for", "for_fence"):
        np.testing.assert_array_equal(host, x + i)
    elif pattern == "reduce":
        assert got == (x + i).sum(), got
    elif pattern == "scan":
        assert got == x.sum(), got
        np.testing.assert_array_equal(host, np.cumsum(x))
    elif pattern == "md":
        assert got == (n // 64) * (x_of(m, 64) + np.arange(64.0)).sum(), got
    elif pattern == "team":
        assert got == (x + i).sum(), got
    elif pattern == "team_for":
        np.testing.assert_array_equal(host, x)


def calibrate(backend, space, long_s):
    """(n, m): n indices of m steps that make a launch last about long_s."""
    if backend == "cuda":  # a GPU runs its indices at once: n fixed, m doubled until it shows
        n, m = 1 << 24, 250
        out = array(n, backend)
        launch("for", 64, 1, out, space)  # compiled first
        porta.fence()
        while True:
            t = time.perf_counter()
            launch("for", n, m, out, space)
            porta.fence()
            t = time.perf_counter() - t
            if t >= 0.2:
                return n, int(m * long_s / t)
            m *= 2
    # the host: the time of an index, then the n of long_s (at least 2^21, so that the first
    # launch of a kernel not yet measured is probed)
    m, n0 = 4000, 1 << 12
    out = array(n0, backend)
    launch("for", n0, m, out, space)
    t = time.perf_counter()
    launch("for", n0, m, out, space)
    t = time.perf_counter() - t
    return max(int(long_s * n0 / max(t, 1e-6)) // 64 * 64, 1 << 21), m


def main():
    # The SIGINT this program relies on: a process started in the background of a
    # non-interactive shell (sh -c 'scripts/test &', nohup, cron, some CI runners) inherits
    # SIGINT ignored, and Python then installs no handler, so the test's SIGINT would do nothing.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    backend, threads, det = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
    patterns = sys.argv[4:]
    porta.init(backend=backend, threads=threads, deterministic=det, args=[])
    space = backend
    n, m = calibrate(backend, space, 3.0 if backend == "cuda" else 20.0)
    out = array(n, backend)
    for p in patterns:  # compile (and load) every kernel before the timed part
        launch(p, 64, 1, out, space)
    porta.fence()
    print("ready n=%d m=%d" % (n, m), flush=True)
    for p in patterns:
        try:
            print("go", p, flush=True)
            t = time.perf_counter()
            launch(p, n, m, out, space)
            print("finished %s %.1f s" % (p, time.perf_counter() - t), flush=True)
        except KeyboardInterrupt:
            print("caught", p, flush=True)
    for p in patterns:
        check(p, space, backend)
    print("ok", flush=True)


if __name__ == "__main__":
    main()
