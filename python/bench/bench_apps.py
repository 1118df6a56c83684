"""The application rows of scripts/bench-python (issue 30): the Python examples against the C
apps at the same size, on the same back end and threads, each run in turn with the other
(medians). Every run checks its own answer first: a run that does not print PASS (the Python
examples) or whose iteration count differs from the other's is an error, not a time.

  - LJ: examples/python/lj_md.py against minimd (in.lj.miniMD), atom-steps/s;
  - TeaLeaf: examples/python/tealeaf_cg.py against tealeaf, ms per CG iteration, on one rank
    and (host back ends) on two ranks of one thread each, whose ratio to the one-rank time is
    compared with the C app's own.

The C apps come from PORTA_APPS_BIN (default build/release/bin, as scripts/test builds them);
a row says "not run" when they are missing."""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "examples", "python")


def apps_bin():
    return os.environ.get("PORTA_APPS_BIN", os.path.join(ROOT, "build", "release", "bin"))


def mpirun(np_):
    cmd = [shutil.which("mpirun") or "mpirun", "--bind-to", "none", "-np", str(np_)]
    if os.geteuid() == 0:
        cmd[1:1] = ["--allow-run-as-root", "--oversubscribe"]
    return cmd


def run(cmd, threads, what):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), PORTA_NUM_THREADS=str(threads),
               OMP_PROC_BIND="false")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s\n%s" % (what, r.returncode, " ".join(cmd),
                                                           (r.stdout + r.stderr)[-2000:]))
    return r.stdout


def porta_args(be, threads):
    return ["--porta-backend=" + be] + (["--porta-threads=%d" % threads] if be == "openmp" else [])


# ---- LJ ----------------------------------------------------------------------------------------

def minimd_rate(be, nt, size, nsteps):
    exe = os.path.join(apps_bin(), "minimd")
    deck = os.path.join(ROOT, "inputs", "minimd", "in.lj.miniMD")
    out = run(mpirun(1) + [exe, "-i", deck, "-s", str(size), "-n", str(nsteps), "--no-h5"]
              + porta_args(be, nt), nt, "minimd")
    for line in out.splitlines():
        f = line.split()
        if len(f) > 11 and f[11] == "PERF_SUMMARY" and not line.startswith("#"):
            return float(f[9])
    raise RuntimeError("minimd printed no performance line:\n" + out[-2000:])


def lj_md_rate(be, nt, size, nsteps):
    out = run([sys.executable, os.path.join(EXAMPLES, "lj_md.py"), "-s", str(size), "-n",
               str(nsteps)] + porta_args(be, nt), nt, "lj_md.py")
    if not re.search(r"\bPASS$", out.strip()):
        raise RuntimeError("lj_md.py did not pass:\n" + out[-2000:])
    for line in out.splitlines():
        f = line.split()
        if f and f[-1] == "PERF_SUMMARY":
            return float(f[4])
    raise RuntimeError("lj_md.py printed no performance line:\n" + out[-2000:])


def lj_rows(be, nt, size, samples=3, nsteps=100):
    name = "LJ MD -s %d (%d atoms), %s x%d" % (size, 4 * size ** 3, be, nt)
    if not os.path.exists(os.path.join(apps_bin(), "minimd")):
        return [(name, "not run: no minimd in %s" % apps_bin(), "", "", "")]
    lj_md_rate(be, nt, 4, 1)  # compile the example's kernels outside the timed runs
    py, c = [], []
    for _ in range(samples):
        py.append(lj_md_rate(be, nt, size, nsteps))
        c.append(minimd_rate(be, nt, size, nsteps))
    tp, tc = statistics.median(py), statistics.median(c)
    return [(name + ", atom-steps/s", "%.3g" % tp, "%.3g" % tc, "Py/C %.3f" % (tp / tc),
             ">= 0.80")]


# ---- TeaLeaf -----------------------------------------------------------------------------------

def deck_with_steps(deck, steps, tmp, cells=None):
    """A copy of `deck` that stops after `steps` steps (end_step); on cells x cells cells if
    `cells` is given."""
    with open(deck) as fh:
        text = fh.read()
    text = re.sub(r"(?m)^\s*end_step\s*=?\s*\d+", "end_step=%d" % steps, text)
    # the expected solution is the full run's: both programs would call a shorter one wrong
    text = re.sub(r"(?m)^\s*test_problem.*\n", "", text)
    if cells is not None:
        text = re.sub(r"(?m)^\s*([xy])_cells\s*=?\s*\d+",
                      lambda m: "%s_cells=%d" % (m.group(1), cells), text)
    path = os.path.join(tmp, "bench_%d_%s%s" % (steps, "" if cells is None else "%d_" % cells,
                                                os.path.basename(deck)))
    with open(path, "w") as fh:
        fh.write(text)
    return path


def tealeaf_c(deck, be, nt, nranks):
    """(CG iterations, seconds of the solve) of the C app."""
    exe = os.path.join(apps_bin(), "tealeaf")
    # ordinary sums, as the Python example's (the C app's default is exact on one GPU or none)
    out = run(mpirun(nranks) + [exe, deck, "--no-h5", "--sums", "ordinary"] + porta_args(be, nt),
              nt, "tealeaf")
    its = re.search(r"Executed solver iterations\s+(\d+)", out)
    solve = re.search(r"Tea solve \(steps\)\s+(\S+)", out)
    if not its or not solve:
        raise RuntimeError("tealeaf: no iteration count or solve time:\n" + out[-2000:])
    return int(its.group(1)), float(solve.group(1))


def tealeaf_py(deck, be, nt, nranks):
    """(CG iterations, seconds of the solve) of examples/python/tealeaf_cg.py."""
    cmd = [sys.executable, os.path.join(EXAMPLES, "tealeaf_cg.py"), deck] + porta_args(be, nt)
    out = run(mpirun(nranks) + cmd, nt, "tealeaf_cg.py")  # as the C app: 1 rank too
    m = re.search(r"iterations=(\d+) solve_seconds=(\S+)", out)
    if not m or "FAIL" in out:
        raise RuntimeError("tealeaf_cg.py: no iteration count or a failed check:\n"
                           + out[-2000:])
    return int(m.group(1)), float(m.group(2))


def tealeaf_pair(deck, be, threads, nranks):
    """(Python's, C's) seconds per CG iteration on `deck`, one run each, in turn; their
    iteration counts must be equal."""
    ip, tp = tealeaf_py(deck, be, threads, nranks)
    ic, tc = tealeaf_c(deck, be, threads, nranks)
    if ip != ic:
        raise RuntimeError("TeaLeaf %s on %d rank(s): %d CG iterations in Python, %d in C"
                           % (os.path.basename(deck), nranks, ip, ic))
    return tp / ip, tc / ic


def tealeaf_rows(be, nt, deck_name, steps, samples=3, two_ranks=False):
    """ms per CG iteration, Python against C, on one rank of nt threads; with two_ranks also
    two ranks of one thread each, and the Python 2-rank/1-rank ratio against the C app's."""
    name = "TeaLeaf CG %s (%d steps)" % (deck_name, steps)
    if not os.path.exists(os.path.join(apps_bin(), "tealeaf")):
        return [(name, "not run: no tealeaf in %s" % apps_bin(), "", "", "")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="porta-bench-tea-") as tmp:
        deck = deck_with_steps(os.path.join(ROOT, "inputs", "tealeaf", deck_name + ".in"),
                               steps, tmp)
        small = deck_with_steps(os.path.join(ROOT, "inputs", "tealeaf", "tea_bm_1.in"), 1, tmp)
        tealeaf_py(small, be, nt, 1)  # compile the example's kernels outside the timed runs
        configs = [(1, nt)] + ([(2, 1)] if two_ranks else [])
        py = {c: [] for c in configs}
        c_ = {c: [] for c in configs}
        for _ in range(samples):  # rounds: every configuration once, in turn (drift hits all)
            for nranks, threads in configs:
                tp, tc = tealeaf_pair(deck, be, threads, nranks)
                py[(nranks, threads)].append(tp)
                c_[(nranks, threads)].append(tc)
        per_it = {}
        for nranks, threads in configs:
            tp = statistics.median(py[(nranks, threads)])
            tc = statistics.median(c_[(nranks, threads)])
            per_it[nranks] = (tp, tc)
            rows.append(("%s, %d rank x%d %s, ms/iteration" % (name, nranks, threads, be),
                         "%.3f ms" % (tp * 1e3), "%.3f ms" % (tc * 1e3),
                         "C/Py %.3f" % (tc / tp), ">= 0.91 (within 10 %)"))
        if two_ranks:
            rp = per_it[2][0] / per_it[1][0]
            rc = per_it[2][1] / per_it[1][1]
            # the same ratio within each round (its four runs close in time), then the median:
            # a machine whose speed drifts between rounds moves all four runs of a round
            paired = statistics.median(
                (p2 / p1) / (c2 / c1) for p2, p1, c2, c1 in
                zip(py[(2, 1)], py[(1, nt)], c_[(2, 1)], c_[(1, nt)]))
            rows.append(("%s, 2 ranks / 1 rank time per iteration" % name, "%.3f" % rp,
                         "%.3f" % rc, "Py/C %.3f (per round %.3f)" % (rp / rc, paired),
                         "Python's <= C's"))
            rows.append(python_cost_row(deck_name, be, nt, per_it, tmp))
    return rows


def python_cost_row(deck_name, be, nt, per_it, tmp, cells=32, steps=20, samples=9):
    """What Python adds to a CG iteration, on 1 rank of nt threads (e1) and on 2 ranks (e2):
    the Python example's time per iteration less the C app's, on a grid so small that the
    kernels take microseconds (the same calls an iteration: 3 launches, and on 2 ranks 2
    global sums and a halo exchange), medians of the rounds' differences. The wall-clock ratio
    above moves by several per cent from run to run on a shared machine; this difference
    moved by under a microsecond (three runs: e1 1.7-2.6 us, e2 5.0-5.3 us). With the C
    times t1, t2 of the rows above it gives the 2-rank/1-rank ratio of Python against C's
    that those calls make: (1 + e2 / t2) / (1 + e1 / t1)."""
    deck = deck_with_steps(os.path.join(ROOT, "inputs", "tealeaf", deck_name + ".in"), steps,
                           tmp, cells)
    diff = {1: [], 2: []}
    for _ in range(samples):
        for nranks, threads in ((1, nt), (2, 1)):
            tp, tc = tealeaf_pair(deck, be, threads, nranks)
            diff[nranks].append(tp - tc)
    e1, e2 = statistics.median(diff[1]), statistics.median(diff[2])
    implied = (1 + e2 / per_it[2][1]) / (1 + e1 / per_it[1][1])
    return ("TeaLeaf Python's time an iteration over C's (%dx%d cells), 1 rank x%d / 2 ranks"
            % (cells, cells, nt), "%.2f / %.2f us" % (e1 * 1e6, e2 * 1e6), "",
            "Py/C ratio they make on %s: %.4f" % (deck_name, implied), "(for the row above)")


def rows(cuda, nt):
    """Every application row for the back end the bench runs (CUDA: the GPU sizes)."""
    if cuda:
        return (tealeaf_rows("cuda", 1, "tea_bm_5", 2, samples=3)
                + lj_rows("cuda", 1, 64, samples=3))
    # 15 rounds: on a 2-core machine shared with other guests, runs of 7 rounds gave the
    # 2-rank/1-rank Py/C ratio anywhere from 0.94 to 1.11 (docs/python.md)
    return (tealeaf_rows("openmp", nt, "tea_bm_4", 2, samples=15, two_ranks=True)
            + lj_rows("openmp", nt, 20, samples=3))
