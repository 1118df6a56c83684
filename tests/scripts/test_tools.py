#!/usr/bin/python3
"""The suite's tools on small inputs, on the host back ends. scripts/compare-backends: its CSV must
hold one row per configuration with values that fit together, and a real disagreement must fail
it. scripts/scaling: its CSV's problem sizes, times and efficiencies, and its plot drawn again
from the CSV (--replot). scripts/slurm/cpu.sbatch, run outside Slurm: every app's run summary.

  test_tools.py SCRIPTS_DIR BUILD_DIR CASE
  CASE: tealeaf, minife, minimd, disagree (compare-backends), scaling, slurm
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

scripts, build, case = sys.argv[1:4]
script = os.path.join(scripts, "compare-backends")
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def have_matplotlib():
    """Whether the tools can draw: their own check (scripts/lib/porta_runs.pyplot)."""
    if os.path.join(scripts, "lib") not in sys.path:
        sys.path.insert(0, os.path.join(scripts, "lib"))
    import porta_runs  # noqa: E402
    return porta_runs.pyplot() is not None


def plot_made(path, stderr):
    """The plot exists where matplotlib does; without it the tool says so and draws none."""
    if have_matplotlib():
        expect(os.path.exists(path) and os.path.getsize(path) > 100, f"{path} missing or empty")
    else:
        expect(not os.path.exists(path) and "matplotlib missing" in stderr,
               f"without matplotlib: {path} drawn, or no 'matplotlib missing' message")


def run(app, *args):
    out = tempfile.mkdtemp(prefix=f"cmp_{app}_")
    env = dict(os.environ, BUILD_DIR=build, NO_BUILD="1")
    r = subprocess.run([script, app, f"--out={out}", *args], capture_output=True, text=True,
                       env=env)
    print(r.stderr)
    rows = []
    if os.path.exists(os.path.join(out, f"{app}.csv")):
        with open(os.path.join(out, f"{app}.csv")) as f:
            rows = list(csv.DictReader(f))
    return r.returncode, r.stderr, rows, out


CPUS = len(os.sched_getaffinity(0))


def expected(configs, oversubscribe, err):
    """The configurations a run keeps: those beyond this machine's CPUs only with
    --oversubscribe (then marked), else left out with a message naming them."""
    kept = []
    for be, r, t in configs:
        if r * t > CPUS and not oversubscribe:
            expect(f"{be}-{r}x{t} left out: {r} rank(s) x {t} thread(s) exceed the {CPUS} CPU(s) "
                   f"here" in err, f"{be}-{r}x{t}: no message saying it was left out")
        else:
            kept.append((be, r, t))
    return kept


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def common(rows, configs, app, spread=0):
    """spread: how many iterations the configurations may differ by (sums that round differently
    move a CG that stops at a tolerance by one or two iterations, as the reference's own runs)."""
    got = [(r["backend"], int(r["ranks"]), int(r["threads"])) for r in rows]
    expect(got == configs, f"configurations {got}, expected {configs}")
    iters = {int(r["iterations"]) for r in rows}
    expect(iters and min(iters) > 0 and max(iters) - min(iters) <= spread,
           f"iterations differ by more than {spread}, or zero: {sorted(iters)}")
    for r in rows:
        name = f"{r['backend']}-{r['ranks']}x{r['threads']}"
        expect(r["app"] == app, f"{name}: app {r['app']}")
        expect(r["check"] == "passed", f"{name}: check {r['check']} ({r['check_detail']})")
        expect(r["agrees"] == "yes", f"{name}: agrees {r['agrees']}")
        over = "yes" if int(r["ranks"]) * int(r["threads"]) > CPUS else "no"
        expect(r["oversubscribed"] == over, f"{name}: oversubscribed '{r['oversubscribed']}'")
        # one rank has no neighbour to exchange with; host back ends share host memory
        want = "none" if int(r["ranks"]) == 1 else "host"
        expect(r["exchange"] == want, f"{name}: halo exchange '{r['exchange']}', want '{want}'")
        t, n, tpi = float(r["solve_time_s"]), int(r["iterations"]), float(r["time_per_iteration_s"])
        expect(t > 0 and close(tpi * n, t, 1e-6), f"{name}: {tpi} s x {n} != {t} s")
        expect(float(r["triad_gbs"]) > 0.1, f"{name}: triad {r['triad_gbs']} GB/s")
        if r["backend"] == "serial":
            expect(close(float(r["speedup_vs_serial"]), 1.0), f"{name}: serial speed-up != 1")
    return rows


if case == "tealeaf":
    rc, err, rows, out = run("tealeaf", "--size=tea_bm_1.in", "--ranks=1,2", "--threads=1,2",
                             "--backends=serial,openmp")
    expect(rc == 0, f"exit {rc}")
    common(rows, expected([("serial", 1, 1), ("serial", 2, 1), ("openmp", 1, 1), ("openmp", 1, 2),
                           ("openmp", 2, 1), ("openmp", 2, 2)], False, err), "tealeaf")
    for r in rows:  # CG: 112 bytes per cell (10 x 10) and iteration
        expect(close(float(r["bandwidth_gbs"]) * float(r["time_per_iteration_s"]), 112 * 100e-9,
                     1e-6), f"tealeaf bandwidth {r['bandwidth_gbs']} does not fit the time")
        expect(r["size"] == "10x10 cells, cg", f"size {r['size']}")
    expect(os.path.getsize(os.path.join(out, "tealeaf.md")) > 100, "tealeaf.md empty")
    plot_made(os.path.join(out, "tealeaf.png"), err)
elif case == "minife":
    rc, err, rows, out = run("minife", "--size=10", "--ranks=1,2", "--threads=2",
                             "--backends=serial,openmp")
    expect(rc == 0, f"exit {rc}")
    common(rows, expected([("serial", 1, 1), ("serial", 2, 1), ("openmp", 1, 2), ("openmp", 2, 2)],
                          False, err), "minife", spread=2)
    for r in rows:  # 11^3 rows; bytes = 12 nnz + 116 rows per iteration
        size = r["size"].split(", ")
        rows_n, nnz = int(size[1].split()[0]), int(size[2].split()[0])
        expect(rows_n == 1331, f"miniFE rows {rows_n}")
        expect(close(float(r["bandwidth_gbs"]) * float(r["time_per_iteration_s"]),
                     (12 * nnz + 116 * rows_n) * 1e-9, 1e-6), "miniFE bandwidth")
elif case == "minimd":
    # --oversubscribe: every combination runs, those beyond the CPUs marked in the CSV and table
    rc, err, rows, out = run("minimd", "--size=lj:5", "--ranks=1,2", "--threads=1,2",
                             "--backends=serial,openmp", "--reproducible", "--oversubscribe")
    expect(rc == 0, f"exit {rc}")
    common(rows, [("serial", 1, 1), ("serial", 2, 1), ("openmp", 1, 1), ("openmp", 1, 2),
                  ("openmp", 2, 1), ("openmp", 2, 2)], "minimd")
    with open(os.path.join(out, "minimd.md")) as f:
        md = f.read()
    crowded_rows = sum(1 for r in rows if r["oversubscribed"] == "yes")
    expect(md.count("(oversubscribed)") == crowded_rows,
           f"minimd.md marks {md.count('(oversubscribed)')} rows, {crowded_rows} oversubscribed")
    # exact sums: the same fields, so one digest for every back end, rank and thread count
    digests = {r["digest"] for r in rows}
    expect(len(digests) == 1 and re.fullmatch(r"[0-9a-f]{16}", digests.pop() or ""),
           f"minimd --reproducible: digests {[r['digest'] for r in rows]}, expected one")
    expect(md.count(rows[0]["digest"]) == len(rows), "minimd.md: the digest column")
    expect({r["sums"] for r in rows} == {"exact"} and "global sums exact." in md,
           f"minimd --reproducible: sums {[r['sums'] for r in rows]}, expected exact")
    for r in rows:  # 4 * 5^3 atoms
        expect(r["rate_unit"] == "atom-steps/s", f"rate unit {r['rate_unit']}")
        expect(close(float(r["rate"]) * float(r["time_per_iteration_s"]), 500, 1e-6),
               f"minimd rate {r['rate']} does not fit 500 atoms")
elif case == "disagree":
    # default mode on 2 ranks differs from 1 rank in the last bits: --exact must see it
    rc, err, rows, out = run("minimd", "--size=lj:5", "--ranks=1,2", "--threads=1",
                             "--backends=serial", "--exact")
    expect(rc == 1, f"exit {rc}, expected 1")
    expect("FAIL serial-2x1: the answer differs" in err, "the failing run is not named")
    expect([r["agrees"] for r in rows] == ["yes", "no"], "agrees column")
    # miniMD sums exactly by default; without --reproducible its forces still follow the ranks
    expect({r["sums"] for r in rows} == {"exact"}, f"sums {[r['sums'] for r in rows]}")
    expect(len({r["digest"] for r in rows}) == 2 and all(r["digest"] for r in rows),
           f"digests {[r['digest'] for r in rows]}: fields that differ, the same digest")
elif case == "scaling":
    out = tempfile.mkdtemp(prefix="scaling_")
    env = dict(os.environ, BUILD_DIR=build, NO_BUILD="1")
    r = subprocess.run([os.path.join(scripts, "scaling"), "minife", "--weak", "--ranks=2",
                        "--size=8", "--reps=1", f"--out={out}", "--model", "--sums=ordinary"],
                       capture_output=True, text=True, env=env)
    print(r.stderr)
    expect(r.returncode == 0, f"exit {r.returncode}")
    with open(os.path.join(out, "minife-weak.csv")) as f:
        rows = list(csv.DictReader(f))
    expect([int(x["ranks"]) for x in rows] == [1, 2], "ranks 1 (added) and 2")
    expect([x["sums"] for x in rows] == ["ordinary"] * 2,
           f"--sums=ordinary: sums {[x['sums'] for x in rows]}")
    for bad, said in ((["--sums=fast"], "--sums takes exact or ordinary, not 'fast'"),
                      (["--sums=ordinary", "--reproducible"], "--reproducible needs exact sums")):
        b = subprocess.run([os.path.join(scripts, "scaling"), "minife", "--weak", "--ranks=2",
                            f"--out={out}"] + bad, capture_output=True, text=True, env=env)
        expect(b.returncode == 2 and said in b.stderr, f"{bad}: exit {b.returncode}, {b.stderr!r}")
    expect(rows[0]["size"].startswith("8x8x8 elements, 729 rows"), f"size {rows[0]['size']}")
    expect(rows[1]["size"].startswith("16x8x8 elements, 1377 rows"), f"size {rows[1]['size']}")
    t = [float(x["time_per_iteration_s"]) for x in rows]
    expect(close(float(rows[1]["efficiency"]), t[0] / t[1], 1e-9), "weak efficiency t1 / t2")
    expect(close(float(rows[1]["speedup"]), 2 * t[0] / t[1], 1e-9), "weak speed-up 2 t1 / t2")
    expect(all(x["check"] == "none" for x in rows), "miniFE unverified in a scaling series")
    plot_made(os.path.join(out, "minife-weak.png"), r.stderr)
    # --replot: the plot drawn again from the CSV alone (a series run without matplotlib)
    png = os.path.join(out, "minife-weak.png")
    if os.path.exists(png):
        os.remove(png)
    rr = subprocess.run([os.path.join(scripts, "scaling"),
                         f"--replot={os.path.join(out, 'minife-weak.csv')}"],
                        capture_output=True, text=True, env=env)
    expect(rr.returncode == 0, f"--replot: exit {rr.returncode}: {rr.stderr}")
    plot_made(png, rr.stderr)
    # --model: the model's columns beside the measured ones; one rank is the measured time itself,
    # two ranks the model's prediction from it (scripts/lib/porta_model.py, tools.model)
    sys.path.insert(0, os.path.join(scripts, "lib"))
    import porta_model  # noqa: E402
    expect(float(rows[0]["model_time_per_iteration_s"]) == t[0], "model at 1 rank != measured")
    want = porta_model.predict("minife", "weak", "8", [1, 2], t[0])[1]
    expect(close(float(rows[1]["model_time_per_iteration_s"]), want["time_per_iteration_s"]) and
           close(float(rows[1]["model_efficiency"]), want["efficiency"]),
           f"model at 2 ranks {rows[1]['model_time_per_iteration_s']}, want {want}")
    with open(os.path.join(out, "minife-weak.md")) as f:
        expect("model ms / iteration | model efficiency |" in f.read(), "no model columns in .md")
    expect("2 rank(s): measured" in r.stderr and "model" in r.stderr, "no model line printed")
    # 2 ranks x every CPU's thread oversubscribe: left out and said so; with --oversubscribe run,
    # marked
    for flag in ([], ["--oversubscribe"]):
        out = tempfile.mkdtemp(prefix="scaling_over_")
        r = subprocess.run([os.path.join(scripts, "scaling"), "minife", "--strong", "--ranks=2",
                            "--backend=openmp", f"--threads={CPUS}", "--size=6", "--reps=1",
                            f"--out={out}"] + flag, capture_output=True, text=True, env=env)
        print(r.stderr)
        expect(r.returncode == 0, f"scaling {flag}: exit {r.returncode}")
        with open(os.path.join(out, "minife-strong.csv")) as f:
            rows = list(csv.DictReader(f))
        expect("model_efficiency" not in rows[0], "a host back end printed the model unasked")
        with open(os.path.join(out, "minife-strong.md")) as f:
            md = f.read()
        if flag:
            expect([(x["ranks"], x["oversubscribed"]) for x in rows] == [("1", "no"), ("2", "yes")],
                   f"--oversubscribe: rows {[(x['ranks'], x['oversubscribed']) for x in rows]}")
            expect("| 2 (oversubscribed) |" in md, "the oversubscribed rank count is not marked")
        else:
            expect([x["ranks"] for x in rows] == ["1"], "the oversubscribed rank count ran")
            expect(f"2 rank(s) left out: 2 rank(s) x {CPUS} thread(s) exceed the {CPUS} CPU(s)"
                   in r.stderr, "no message saying 2 ranks were left out")
elif case == "slurm":
    # the CPU template outside Slurm: mpirun, 2 ranks x 1 thread, results under RESULTS
    for app, args in (("tealeaf", os.path.join(os.path.dirname(scripts), "inputs", "tealeaf",
                                               "tea_bm_1.in")),
                      ("minife", "-nx 8 verify_solution=1"),
                      ("minimd", "-i " + os.path.join(os.path.dirname(scripts), "inputs",
                                                      "minimd", "in.lj.miniMD") + " -s 4")):
        res = tempfile.mkdtemp(prefix="slurm_")
        env = dict(os.environ, BUILD_DIR=build, APP=app, ARGS=args, RESULTS=res, RANKS="2",
                   PORTA_ROOT=os.path.dirname(scripts), OMPI_ALLOW_RUN_AS_ROOT="1",
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        env.pop("SLURM_JOB_ID", None)
        r = subprocess.run(["bash", os.path.join(scripts, "slurm", "cpu.sbatch")],
                           capture_output=True, text=True, env=env)
        print(r.stdout, r.stderr)
        expect(r.returncode == 0, f"{app}: exit {r.returncode}")
        found = [os.path.join(res, d, f"{app}.json") for d in os.listdir(res)]
        expect(len(found) == 1 and os.path.exists(found[0]), f"{app}: no summary in {res}")
        if found and os.path.exists(found[0]):
            with open(found[0]) as f:
                s = json.load(f)
            expect(s["app"] == app and s["ranks"] == 2 and s["backend"] == "openmp",
                   f"{app}: summary {s['app']} {s['ranks']} {s['backend']}")
            expect(s["check"] == "passed", f"{app}: check {s['check']}: {s['check_detail']}")
            expect(os.path.exists(os.path.join(os.path.dirname(found[0]), f"{app}.h5")),
                   f"{app}: no result file")
elif case == "bad_args":
    # Refused at once with exit 2 and a message naming the problem, never a traceback after the
    # runs: an --out naming a file, one under a file, one in /proc; --weak with --strong.
    # A relative BUILD_DIR is resolved from where the script is started (the GPU benches' runs
    # start in work folders, where build/gpu/bin/tealeaf was not found).
    afile = os.path.join(tempfile.mkdtemp(prefix="bad_args_"), "a-file")
    open(afile, "w").close()
    cases = [
        (["scaling", "minife", "--weak", f"--out={afile}"], "exists and is not a folder"),
        (["scaling", "minife", "--weak", f"--out={afile}/sub"], "cannot write results in"),
        (["scaling", "minife", "--strong", "--out=/proc/porta-results"], "cannot write results in"),
        (["scaling", "minife", "--weak", "--strong"], "--weak and --strong exclude each other"),
        (["scaling", f"--replot={afile}"], "is not a series' CSV"),
        (["scaling", f"--replot={afile}-dir/minife-weak.csv"], "cannot read"),
        (["compare-backends", "minife", f"--out={afile}"], "exists and is not a folder"),
        (["compare-backends", "tealeaf", "--out=/proc/porta/x"], "cannot write results in"),
    ]
    for argv, words in cases:
        r = subprocess.run([os.path.join(os.path.abspath(scripts), argv[0])] + argv[1:],
                           capture_output=True,
                           text=True, env=dict(os.environ, NO_BUILD="1"), timeout=60,
                           cwd=tempfile.mkdtemp(prefix="bad_args_cwd_"))
        name = " ".join(argv)
        expect(r.returncode == 2, f"{name}: exit {r.returncode}, expected 2")
        expect(words in r.stderr and "Traceback" not in r.stderr, f"{name}: said {r.stderr!r}")
    here = tempfile.mkdtemp(prefix="bench_gpu_")
    for tool in ("bench-tealeaf-gpu", "bench-gpu"):
        r = subprocess.run([os.path.join(os.path.abspath(scripts), tool)], capture_output=True,
                           text=True, cwd=here,
                           env=dict(os.environ, NO_BUILD="1", BUILD_DIR="rel/build"), timeout=60)
        want = os.path.join(os.path.realpath(here), "rel", "build")
        expect(r.returncode != 0 and want in r.stderr, f"{tool}: BUILD_DIR not resolved from "
               f"{here}: exit {r.returncode}, said {r.stderr!r}")
else:
    sys.exit(f"unknown case {case}")

for f in failures:
    print("FAIL:", f)
print("PASS" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
