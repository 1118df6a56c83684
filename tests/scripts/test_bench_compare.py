#!/usr/bin/python3
"""scripts/bench-compare on the host, against two commits made from the tree itself: SLOW (the
same code built at -O0) and OTHER (the same code with TeaLeaf's rx = dt/dx^2 one part in 1e7
larger, so other bits). Both are commit objects only (git commit-tree): no branch, no change to
the working tree. TeaLeaf on tea_bm_2 (1 rank x 2 threads), one run each way.

  - the tree (this build) against SLOW: exit 0, the tree faster, the same bits and iterations;
  - SLOW against OTHER (--tree=SLOW): exit 1, slower by more than the threshold, answers differ;
  - OTHER against SLOW (--tree=OTHER): exit 1, answers differ, not slower;
  - every printed ratio is the printed tree time over the printed REV time.
An -O0 build is several times slower than -O3 here, far beyond the noise of one run.

  test_bench_compare.py SCRIPTS_DIR BUILD_DIR
Exit 77 (skipped) where the sources are not a git checkout.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

scripts, build = sys.argv[1:3]
root = os.path.dirname(os.path.abspath(scripts))
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def git(*args, **kw):
    return subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True,
                          check=True, **kw).stdout.strip()


if subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True).returncode:
    print(f"{root} is not a git checkout with a commit: skipped")
    sys.exit(77)

IDENT = dict(os.environ, GIT_AUTHOR_NAME="bench-compare test", GIT_AUTHOR_EMAIL="test@invalid",
             GIT_COMMITTER_NAME="bench-compare test", GIT_COMMITTER_EMAIL="test@invalid")


def commit_with(edits, message):
    """A commit object: HEAD's tree with `edits` ({path: function(text) -> text}) applied."""
    with tempfile.TemporaryDirectory(prefix="bench_compare_index_") as d:
        env = dict(IDENT, GIT_INDEX_FILE=os.path.join(d, "index"))
        git("read-tree", "HEAD", env=env)
        for path, edit in edits.items():
            old = subprocess.run(["git", "-C", root, "show", f"HEAD:{path}"],
                                 capture_output=True, text=True, check=True).stdout
            new = edit(old)
            if new == old:
                sys.exit(f"FAIL: the test's edit of {path} changed nothing: update the test")
            blob = git("hash-object", "-w", "--stdin", input=new, env=env)
            git("update-index", "--cacheinfo", f"100644,{blob},{path}", env=env)
        tree = git("write-tree", env=env)
        return git("commit-tree", tree, "-p", "HEAD", "-m", message, env=env)


def slower(text):
    # before project(): the Release flags' cache entry, which project() then keeps
    return text.replace("\nproject(", '\nset(CMAKE_C_FLAGS_RELEASE "-O0" CACHE STRING "")\n'
                        "project(", 1)


def other_bits(text):
    return re.sub(r"(c->rx = )dt / ", r"\g<1>1.0000001 * dt / ", text, count=1)


slow = commit_with({"CMakeLists.txt": slower}, "bench-compare test: -O0")
other = commit_with({"apps/tealeaf/tea_kernels_common.c": other_bits},
                    "bench-compare test: rx one part in 1e7 larger")
work = tempfile.mkdtemp(prefix="bench_compare_")
env = dict(os.environ, BUILD_DIR=build, NO_BUILD="1", PORTA_BENCH_COMPARE_DIR=work)
common = ["--apps=tealeaf", "--size=tealeaf:tea_bm_2.in", "--reps=1", "--threads=2"]
NUM = r"([0-9.e+-]+)"
ROW = re.compile(rf"^tealeaf\s+\S+\s+{NUM}\s+{NUM}\s+{NUM}\s+(\d+) -> (\d+)\s+(.*)$",
                 re.M)


def compare(*args):
    r = subprocess.run([os.path.join(scripts, "bench-compare")] + list(args) + common,
                       capture_output=True, text=True, env=env, timeout=900)
    print(r.stdout)
    print(r.stderr[-3000:])
    m = ROW.search(r.stdout)
    name = " ".join(args)
    expect(m is not None, f"bench-compare {name}: no TeaLeaf row in its table")
    if not m:
        return r, None
    t_rev, t_tree, ratio = float(m.group(1)), float(m.group(2)), float(m.group(3))
    expect(abs(ratio - t_tree / t_rev) <= 2e-4 * ratio,
           f"bench-compare {name}: ratio {ratio} is not {t_tree} / {t_rev}")
    expect("Traceback" not in r.stderr, f"bench-compare {name}: a traceback")
    return r, {"ratio": ratio, "its": (int(m.group(4)), int(m.group(5))),
               "answers": m.group(6).strip()}


r, row = compare(slow)
expect(r.returncode == 0, f"tree against SLOW: exit {r.returncode}, expected 0")
if row:
    expect(row["ratio"] < 0.9, f"tree against SLOW (-O0): ratio {row['ratio']}, expected < 0.9")
    expect(row["answers"] == "same bits", f"tree against SLOW: answers '{row['answers']}'")
    expect(row["its"][0] == row["its"][1] > 0, f"tree against SLOW: iterations {row['its']}")

r, row = compare(other, f"--tree={slow}")
expect(r.returncode == 1, f"SLOW against OTHER: exit {r.returncode}, expected 1")
expect("slower than" in r.stdout, "SLOW against OTHER: not called slower")
expect("answers differ: /fields/u" in r.stdout, "SLOW against OTHER: answers not said to differ")
if row:
    expect(row["ratio"] > 1.1, f"SLOW against OTHER: ratio {row['ratio']}, expected > 1.1")
    expect(row["answers"] == "DIFFER", f"SLOW against OTHER: answers '{row['answers']}'")

r, row = compare(slow, f"--tree={other}")
expect(r.returncode == 1, f"OTHER against SLOW: exit {r.returncode}, expected 1")
expect("answers differ: /fields/u" in r.stdout, "OTHER against SLOW: answers not said to differ")
expect("slower than" not in r.stdout, "OTHER (-O3) against SLOW (-O0) called slower")

# --sums=KIND: both builds' runs take those sums (and say so in their summaries)
sums_out = tempfile.mkdtemp(prefix="bench_compare_sums_")
r, row = compare(slow, "--sums=ordinary", f"--out={sums_out}")
expect(r.returncode == 0 and "--sums ordinary" in r.stdout,
       f"--sums=ordinary: exit {r.returncode}, expected 0 and the table's title naming the sums")
kinds = set()
for d, _, files in os.walk(sums_out):
    for f in files:
        if f.endswith(".json"):
            with open(os.path.join(d, f)) as g:
                kinds.add(json.load(g).get("sums"))
expect(kinds == {"ordinary"}, f"--sums=ordinary: the runs' summaries say {kinds}")
r = subprocess.run([os.path.join(scripts, "bench-compare"), slow, "--sums=fast"] + common,
                   capture_output=True, text=True, env=env, timeout=900)
expect(r.returncode == 2 and "--sums takes exact or ordinary, not 'fast'" in r.stderr,
       f"--sums=fast: exit {r.returncode}, stderr {r.stderr.strip()!r}")

# MPIEXEC_FLAGS reach mpirun: an option it does not know fails the run, named
env["MPIEXEC_FLAGS"] = "--porta-no-such-mpirun-option"
r = subprocess.run([os.path.join(scripts, "bench-compare"), slow] + common, capture_output=True,
                   text=True, env=env, timeout=900)
del env["MPIEXEC_FLAGS"]
expect(r.returncode == 2, f"MPIEXEC_FLAGS with an unknown option: exit {r.returncode}, expected 2")
expect("--porta-no-such-mpirun-option" in r.stdout + r.stderr,
       "MPIEXEC_FLAGS with an unknown option: the failed command does not show it")

for f in failures:
    print("FAIL:", f)
print("PASS" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
