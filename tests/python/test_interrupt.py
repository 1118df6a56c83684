"""Ctrl-C during a kernel (issue 53): a SIGINT sent while a long launch runs raises
KeyboardInterrupt within a second, for every pattern (range for, reduce and scan, a box's
reduction, a team's reduction and for), on Serial, OpenMP x1 and OpenMP x2, and the process
stays usable (the kernels run again and give the right values). The host back ends run a long
launch in pieces and look for signals between them; in the deterministic mode only a
parallel_for is cut. On CUDA (PORTA_BACKEND=cuda) the waits for a reduction and for a fence poll
and return at Ctrl-C, the kernel still running. Before this, a launch ran to its end: the
SIGINT was seen 20 s later. The launches run in a child program (interrupt_child.py), each
calibrated to last about 20 s (3 s on a GPU) if not interrupted."""
import os
import signal
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "interrupt_child.py")
HOST_PATTERNS = ["for", "reduce", "scan", "md", "team", "team_for"]


def ignore_sigint():
    """preexec_fn: the child starts with SIGINT ignored, as every process started in the
    background of a non-interactive shell does (sh -c 'scripts/test &', nohup, cron)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def interrupt_each(backend, threads, det, patterns, sigint_ignored=False):
    """Run the child; SIGINT each pattern's long launch 0.3 s after it starts; the seconds from
    each SIGINT to the child's KeyboardInterrupt, by pattern. sigint_ignored: the child starts
    with SIGINT ignored (it sets Python's handler itself, interrupt_child.main)."""
    p = subprocess.Popen([sys.executable, CHILD, backend, str(threads), "1" if det else "0"] +
                         patterns, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONUNBUFFERED="1"),
                         preexec_fn=ignore_sigint if sigint_ignored else None)
    delays, lines = {}, []
    try:
        line = p.stdout.readline()
        lines.append(line)
        assert line.startswith("ready"), (line, p.stderr.read() if not line else "")
        for pattern in patterns:
            line = p.stdout.readline()
            lines.append(line)
            assert line.split() == ["go", pattern], lines
            time.sleep(0.3)
            sent = time.monotonic()
            p.send_signal(signal.SIGINT)
            line = p.stdout.readline()
            delays[pattern] = time.monotonic() - sent
            lines.append(line)
            assert line.split() == ["caught", pattern], lines
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and out.split() == ["ok"], (lines, out, err)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    return delays


@pytest.mark.parametrize("backend, threads", [("serial", 1), ("openmp", 1), ("openmp", 2)],
                         ids=["serial", "openmp1", "openmp2"])
def test_ctrl_c_ends_a_long_launch(backend, threads, request):
    from conftest import cuda_run

    if cuda_run(request.config):
        pytest.skip("the host back ends (test_ctrl_c_on_cuda runs on the GPU)")
    delays = interrupt_each(backend, threads, False, HOST_PATTERNS)
    assert max(delays.values()) < 1.0, delays


def test_ctrl_c_deterministic_for(request):
    """The deterministic mode cuts parallel_for only (a reduction's bits would depend on the
    cuts): a long parallel_for is still interrupted."""
    from conftest import cuda_run

    if cuda_run(request.config):
        pytest.skip("the host back ends")
    delays = interrupt_each("openmp", 2, True, ["for", "team_for"])
    assert max(delays.values()) < 1.0, delays


def test_ctrl_c_with_sigint_ignored_at_start(request):
    """A child that inherited SIGINT ignored (the whole test run started with
    `sh -c 'scripts/test &'`, as cron, nohup and some CI runners do: issue 68) still gets its
    KeyboardInterrupt: it sets the disposition the test relies on. Before, the SIGINT did
    nothing and the launch ran its 20 s."""
    from conftest import cuda_run

    if cuda_run(request.config):
        pytest.skip("the host back ends")
    delays = interrupt_each("serial", 1, False, ["for"], sigint_ignored=True)
    assert max(delays.values()) < 1.0, delays


def test_ctrl_c_on_cuda(request):
    """On a GPU the wait for a reduction's value, and a fence after a parallel_for, poll and
    return at Ctrl-C; the kernel keeps running and the next launch waits for it."""
    from conftest import cuda_run

    if not cuda_run(request.config):
        pytest.skip("CUDA runs only (PORTA_BACKEND=cuda)")
    delays = interrupt_each("cuda", 1, False, ["reduce", "for_fence"])
    assert max(delays.values()) < 1.0, delays


PIECES = r"""
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import porta
import kernels_threads as K
porta.init(backend=sys.argv[2], threads=int(sys.argv[3]), args=["--porta-profile=1"])
sp = sys.argv[2]
n = 1 << 21
i = np.arange(n)
x, y = (i % 7).astype(np.float64), (1 + i % 3).astype(np.float64)
assert porta.parallel_reduce(porta.RangePolicy(0, n, sp), K.dot, 2.0, x, y) == 2.0 * (x @ y)
out = np.zeros(n)
porta.parallel_for(porta.RangePolicy(0, n, sp), K.scale, 3.0, x, out)
assert (out == 3.0 * x).all()
xi = (i % 5 - 2).astype(np.int64)
pre = np.zeros(n, np.int64)
assert porta.parallel_scan(porta.RangePolicy(0, n, sp), K.prefix, xi, pre) == xi.sum()
assert (pre == np.concatenate([[0], np.cumsum(xi)[:-1]])).all()
a = x.reshape(2048, 1024)
assert porta.parallel_reduce(porta.MDRangePolicy((0, 0), (2048, 1024), sp), K.box_sum, 0.5,
                             a) == 0.5 * a.sum()
m = x.reshape(n // 2, 2)
team = porta.TeamPolicy(n // 2, space=sp)
assert porta.parallel_reduce(team, K.team_sum, 1.0, m) == m.sum()
rows = np.zeros(n // 2)
porta.parallel_for(team, K.team_rows, 1.0, m, rows)
assert (rows == m.sum(axis=1)).all()
print("ok", flush=True)
"""


@pytest.mark.parametrize("backend, threads", [("serial", 1), ("openmp", 1), ("openmp", 2)],
                         ids=["serial", "openmp1", "openmp2"])
def test_long_launch_in_pieces_gives_the_whole_answer(backend, threads, request):
    """The first launch of a kernel over 2^21 units (indices, points of a box, league ranks)
    runs in pieces (a kernel not yet measured is probed): a reduction or scan continues from
    the pieces before it, a team launch runs its block of league ranks. Every value is checked
    (integers in float64: exact in any order), and the profile table shows several launches of
    each kernel (1 for a launch run whole)."""
    from conftest import cuda_run

    if cuda_run(request.config):
        pytest.skip("the host back ends")
    r = subprocess.run([sys.executable, "-c", PIECES, HERE, backend, str(threads)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("ok"), r.stdout + r.stderr
    calls = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 6 and f[0].startswith("kernels_threads."):
            calls[f[0]] = int(f[2])
    names = ["dot", "scale", "prefix", "box_sum", "team_sum", "team_rows"]
    assert sorted(calls) == sorted("kernels_threads." + k for k in names), r.stdout
    assert min(calls.values()) >= 2, calls
