"""The examples of docs/python-reference.md run and compute what the page says.

Every fenced block opened with ```python is a whole program whose assert lines state its
values. Each runs in a subprocess of this interpreter (a kernel's source is read from its
file, so the block is written to a file first), on OpenMP with 2 threads and on Serial (set by
PORTA_BACKEND / PORTA_NUM_THREADS: a block that names a space or calls porta.init itself keeps
what it says). The two runs share one kernel cache, so the second loads what the first
compiled. ```python norun blocks are fragments and are not run; a ```python mpi block runs on
2 ranks of mpirun (skipped without mpirun, mpi4py or porta.exchange). The blocks pass NumPy
arrays, so they run on the host back ends also when the suite runs on CUDA.
"""
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "docs", "python-reference.md")

# The sections whose construct a newcomer must see run (issue 53): each has a runnable block.
REQUIRED = ("Kernels", "Indices and policies", "Arrays, dtypes and annotations",
            "Scalars and locals", "What a kernel body may use", "Reductions",
            "MinLoc and MaxLoc", "Custom reducers", "Scans", "Teams", "Scratch memory",
            "Atomics", "Device functions", "Workloads (kernel methods)", "simd_range",
            "Views, subview, deep_copy, mirrors", "Back ends and initialisation",
            "MPI: porta.exchange")

FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks():
    """[(id, section, tag, code)] of the page's ```python blocks, in order."""
    with open(PAGE) as fh:
        text = fh.read()
    heads = [(m.start(), m.group(1).strip()) for m in re.finditer(r"^## (.+)$", text, re.M)]
    out, seen = [], {}
    for m in FENCE.finditer(text):
        section = ([h for pos, h in heads if pos < m.start()] or ["intro"])[-1]
        slug = re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")
        seen[slug] = seen.get(slug, 0) + 1
        ident = slug if seen[slug] == 1 else "%s-%d" % (slug, seen[slug])
        out.append((ident, section, m.group(1).strip(), m.group(2)))
    return out


BLOCKS = blocks()
RUNNABLE = [b for b in BLOCKS if b[2] == ""]
MPI = [b for b in BLOCKS if b[2] == "mpi"]
CONFIGS = [("openmp", 2), ("serial", 1)]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("refdocs-cache"))


def child_env(cache, backend, threads):
    env = dict(os.environ, PORTA_CACHE_DIR=cache, PORTA_BACKEND=backend,
               PORTA_NUM_THREADS=str(threads))
    env.pop("PORTA_DETERMINISTIC", None)
    return env


def write(tmp_path, ident, code):
    path = tmp_path / ("example_%s.py" % ident.replace("-", "_"))
    path.write_text(code)
    return str(path)


def check(r, cmd):
    out = "%s\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(cmd), r.stdout, r.stderr)
    assert r.returncode == 0, out


def test_page_structure():
    """Every construct's section has a runnable example, and every example states its values
    (assert lines), with no tag the runner does not know."""
    with_example = {b[1] for b in BLOCKS if b[2] in ("", "mpi")}
    missing = [s for s in REQUIRED if s not in with_example]
    assert not missing, "sections without a runnable example: %s" % missing
    for ident, _, tag, code in BLOCKS:
        assert tag in ("", "norun", "mpi"), "%s: unknown block tag %r" % (ident, tag)
        if tag != "norun":
            assert re.search(r"^\s*assert ", code, re.M), "%s states no value" % ident


@pytest.mark.parametrize("config", CONFIGS, ids=["openmp2", "serial"])
@pytest.mark.parametrize("block", RUNNABLE, ids=[b[0] for b in RUNNABLE])
def test_example(block, config, cache, tmp_path):
    ident, _, _, code = block
    cmd = [sys.executable, write(tmp_path, ident, code)]
    r = subprocess.run(cmd, env=child_env(cache, *config), capture_output=True, text=True,
                       timeout=300, cwd=str(tmp_path))
    check(r, cmd)


def mpi_ready():
    if shutil.which("mpirun") is None:
        return "no mpirun"
    for mod in ("mpi4py", "porta._exchange"):
        r = subprocess.run([sys.executable, "-c", "import " + mod], capture_output=True)
        if r.returncode != 0:
            return "cannot import " + mod
    return None


@pytest.mark.parametrize("block", MPI, ids=[b[0] for b in MPI])
def test_mpi_example(block, cache, tmp_path):
    why = mpi_ready()
    if why:
        pytest.skip(why)
    ident, _, _, code = block
    env = child_env(cache, "openmp", 1)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_PROC_BIND="false")
    cmd = ["mpirun", "-n", "2", sys.executable, write(tmp_path, ident, code)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300,
                       cwd=str(tmp_path))
    check(r, cmd)
