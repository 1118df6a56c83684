"""What the suite's tools share: the apps' command lines, the build's back ends, one run of an
app (mpirun here, srun under Slurm) read back from its run summary, the results' comparison
(h5diff) and Porta's STREAM triad. Used by scripts/compare-backends, scripts/scaling and
scripts/bench-compare (standard library only)."""
import json
import os
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APPS = ("tealeaf", "minife", "minimd")


def die(tool, msg, code=2):
    print(f"{tool}: {msg}", file=sys.stderr)
    sys.exit(code)


def out_dir(tool, path):
    """The absolute path of an --out folder, made now and checked writable: a path naming a
    file, one under a file or in a place that refuses writes (/proc, a read-only mount) ends
    the tool at once with exit 2, before any run (not in a traceback after them)."""
    d = os.path.abspath(path)
    try:
        os.makedirs(d, exist_ok=True)
        probe = os.path.join(d, f".{tool}-write-check-{os.getpid()}")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except FileExistsError:
        die(tool, f"--out={path}: {d} exists and is not a folder")
    except OSError as e:
        die(tool, f"--out={path}: cannot write results in {d} ({e.strerror or e})")
    return d


def read_regular(path, limit):
    """The bytes of a regular file of at most `limit` bytes. A FIFO, a device, a socket or a
    folder raises ValueError at once (opened without blocking: a FIFO with no writer does not
    hang, /dev/zero is not read), as does a larger file (read no further than limit + 1 bytes);
    a file that cannot be opened raises OSError."""
    import stat
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO"
                    if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or
                    stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "special")
            raise ValueError(f"{kind}, not a regular file")
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - size))
            if not b:
                break
            chunks.append(b)
            size += len(b)
        if size > limit:
            raise ValueError(f"larger than {limit} bytes: not what this tool writes or reads")
        return b"".join(chunks)
    finally:
        os.close(fd)


def tealeaf_deck(tool, size):
    deck = size or "tea_bm_2.in"
    if not os.path.isfile(deck):
        deck = os.path.join(ROOT, "inputs", "tealeaf", deck)
    if not os.path.isfile(deck):
        die(tool, f"no TeaLeaf deck '{size}' (a path, or a name in inputs/tealeaf)")
    return os.path.abspath(deck)


def app_args(tool, app, size, grid=(1, 1, 1), verify=True):
    """The app's arguments for one run. `size` is the app's --size (see the tools' --help);
    `grid` multiplies it per dimension (weak scaling: one base problem per rank). `verify`:
    miniFE checks its solution against the analytic one (its 200 CG iterations do not converge
    on large or elongated meshes, where the check fails: leave it off there)."""
    if app == "tealeaf":
        deck = tealeaf_deck(tool, size)
        if grid[:2] == (1, 1):
            return [deck]
        return [scaled_tealeaf_deck(tool, deck, grid)]
    if app == "minife":
        n = size or "30"
        if not n.isdigit() or int(n) < 2:
            die(tool, f"miniFE --size is the elements per side (an integer >= 2), not '{n}'")
        n = int(n)
        return ["-nx", str(n * grid[0]), "-ny", str(n * grid[1]), "-nz", str(n * grid[2]),
                f"verify_solution={int(verify)}"]
    pot, _, n = (size or "lj:16").rpartition(":")
    pot = pot or "lj"
    if pot not in ("lj", "eam") or not n.isdigit() or int(n) < 1:
        die(tool, f"miniMD --size is [lj:|eam:]CELLS, not '{size}'")
    n = int(n)
    return ["-i", os.path.join(ROOT, "inputs", "minimd", f"in.{pot}.miniMD"), "-nx",
            str(n * grid[0]), "-ny", str(n * grid[1]), "-nz", str(n * grid[2]), "-n", "100"]


def scaled_tealeaf_deck(tool, deck, grid):
    """A copy of `deck` with x_cells and y_cells multiplied by grid[0] and grid[1]."""
    out, seen = [], 0
    with open(deck) as f:
        for line in f:
            key, sep, val = line.strip().partition("=")
            if sep and key.strip() in ("x_cells", "y_cells"):
                k = 0 if key.strip() == "x_cells" else 1
                line = f"{key.strip()}={int(val) * grid[k]}\n"
                seen += 1
            out.append(line)
    if seen != 2:
        die(tool, f"{deck}: x_cells and y_cells must be given as NAME=VALUE to be scaled")
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                        f"scaled_{grid[0]}x{grid[1]}_{os.getpid()}_{os.path.basename(deck)}")
    with open(path, "w") as f:
        f.writelines(out)
    return path


def factor(n, dims):
    """n as a product of `dims` factors as equal as possible, largest first."""
    best = None
    def rec(left, k, acc):
        nonlocal best
        if k == 1:
            f = sorted(acc + [left], reverse=True)
            if best is None or f[0] - f[-1] < best[0] - best[-1]:
                best = f
            return
        for d in range(1, left + 1):
            if left % d == 0:
                rec(left // d, k - 1, acc + [d])
    rec(n, dims, [])
    return tuple(best + [1] * (3 - dims))


def cache_value(build, key):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return ""


def gpu_present():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    except OSError:
        return False


def build_apps(build, targets):
    """Configure (Release) if needed and build `targets` unless NO_BUILD is set."""
    if os.environ.get("NO_BUILD"):
        return
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release"],
                       check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2), "--target"] +
                   targets, check=True, stdout=sys.stderr)


def launcher(ranks):
    """srun under Slurm (one task per rank, its binding), else mpirun (no binding, so a rank's
    threads may use every core it was given); MPIEXEC_FLAGS (split as a shell would) adds
    options to either."""
    extra = shlex.split(os.environ.get("MPIEXEC_FLAGS", ""))
    if os.environ.get("SLURM_JOB_ID") and shutil.which("srun"):
        return ["srun", "-n", str(ranks)] + extra
    return ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)] + extra


def host_cpus():
    """The CPUs this process may run on (its affinity)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def crowded(ranks, threads):
    """Why `ranks` x `threads` would oversubscribe this machine (they would time their threads'
    waiting for each other rather than the work), or None. Under Slurm each task has the CPUs
    it was given: never crowded."""
    cpus = host_cpus()
    if os.environ.get("SLURM_JOB_ID") or ranks * threads <= cpus:
        return None
    return f"{ranks} rank(s) x {threads} thread(s) exceed the {cpus} CPU(s) here"


def run_app(tool, exe, args, backend, ranks, threads, rundir, extra=()):
    """One run in `rundir` (result.h5, summary.json, stdout.txt); returns its summary."""
    os.makedirs(rundir, exist_ok=True)
    cmd = launcher(ranks) + [exe] + list(args) + [
        f"--porta-backend={backend}", f"--porta-threads={threads}", "--out", "result",
        "--summary-json", "summary.json"] + list(extra)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    with open(os.path.join(rundir, "stdout.txt"), "w") as log:
        rc = subprocess.run(cmd, cwd=rundir, stdout=log, stderr=subprocess.STDOUT,
                            env=env).returncode
    path = os.path.join(rundir, "summary.json")
    if rc != 0 or not os.path.exists(path):
        with open(os.path.join(rundir, "stdout.txt")) as f:
            tail = "".join(f.readlines()[-8:])
        die(tool, f"{' '.join(cmd)} failed (exit {rc}); {rundir}/stdout.txt ends:\n{tail}")
    with open(path) as f:
        return json.load(f)


def triad(build, gpu, threads):
    """Porta's STREAM triad in GB/s (porta-bench): on the host with `threads` OpenMP threads,
    or on the GPU; None when the benchmark is not built."""
    exe = os.path.join(build, "scripts", "bench", "porta-bench-gpu" if gpu else "porta-bench")
    if not os.path.exists(exe):
        return None
    cmd = [exe, "--only=triad", "--reps=10"] + ([] if gpu else ["--n=16000000"])
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), PORTA_NUM_THREADS=str(threads),
               PORTA_BACKEND="cuda" if gpu else "openmp")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env).stdout
    for line in out.splitlines():
        f = line.split()
        if gpu and len(f) >= 8 and f[0] == "triad":
            return float(f[6]) * 1000.0
        if not gpu and len(f) >= 12 and f[0] == "triad":
            return float(f[10])
    return None


# The datasets compared between runs (compare-backends, bench-compare), and how closely they
# must agree when not bit for bit:
# ("-p", r) relative, ("-d", a) absolute (h5diff's options). TeaLeaf's u is far from zero;
# miniFE's solution and miniMD's coordinates and velocities pass through zero, where only an
# absolute bound makes sense (solution values are O(1), positions O(box), velocities O(1)).
# miniFE stops after 200 CG iterations, converged or not: at n=100 Serial, 16 OpenMP threads
# and CUDA end up to 1e-7 apart (H100 node, measured); miniMD's velocities stay 1e-10 apart
# over 100 steps.
ANSWERS = {
    "tealeaf": [("/fields/u", "-p", 1e-8)],
    "minife": [("/solution", "-d", 1e-6)],
    "minimd": [("/final/x", "-d", 1e-8), ("/final/v", "-d", 1e-8)],
}


def run_digest(summaries):
    """The fields' digest of runs of one configuration (their summaries' `fields_digest`: equal
    digests, bitwise equal fields): the digest where every run gave it, "varies" where the runs
    differ (sums in another order each time), "" where no run wrote its fields."""
    ds = {s.get("fields_digest") or "" for s in summaries}
    if ds == {""}:
        return ""
    return ds.pop() if len(ds) == 1 else "varies"


def sums_text(rows):
    """The global sums the rows' runs took (their summaries' "sums"), for a table's heading."""
    return ", ".join(sorted({r["sums"] or "unreported" for r in rows}))


def agree(h5diff, app, ref, other, exact):
    """None when the answers agree, else what differs."""
    for ds, mode, tol in ANSWERS[app]:
        cmd = [h5diff] + ([] if exact else [mode, str(tol)]) + [ref, other, ds, ds]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
            return f"{ds}: " + (lines[-1] if lines else f"h5diff exit {r.returncode}")
    return None


def h5diff_exe(tool):
    for name in ("h5diff", "h5diff.openmpi"):
        if shutil.which(name):
            return shutil.which(name)
    die(tool, "h5diff not found (Debian package hdf5-tools; scripts/install-deps installs it)")


def pyplot():
    """matplotlib's pyplot (Agg), or None with a note when it is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("matplotlib missing (scripts/install-deps installs python3-matplotlib): no plot",
              file=sys.stderr)
        return None
