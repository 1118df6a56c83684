"""The tutorial's Python exercises (tutorial/NN_name/python/{begin,solution}/, tutorial/README.md
"Python"): each begin runs as it is (exit 0, and prints the NumPy answer), and each solution
checks its own answer and prints PASS, on every host back end (Serial, OpenMP with 1 and 2
threads) and, where Porta has its CUDA back end and a GPU, on CUDA. A solution broken on
purpose (one kernel changed) must print FAIL and exit 1: the checks are real."""
import os

import pytest

import porta
from programs import HOW, run_program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (directory, program, what the begin prints, what the solution prints, a change that breaks
# the solution's kernel: (old, new), old found once in the solution)
EXERCISES = [
    ("01_views_parallel_for", "axpy.py", "sum(y)=1500000500000",
     "n=1000000 sum(y)=1500000500000 errors=0 PASS",
     ("y[i] += a * x[i]", "y[i] += a * x[i] + (1.0 if i == 777 else 0.0)")),
    ("02_reductions", "reductions.py", "dot=4000002 min=-500000 max=500002",
     "dot=4000002 min=-500000 max=500002 deterministic_sum=2709699759649.3574 "
     "bitwise_equal=yes (3 runs) PASS",
     ("acc += x[i] * y[i]", "acc += x[i] * y[i] + (1.0 if i == 5 else 0.0)")),
    ("03_mdrange_stencil", "stencil.py", "linear_fixed_point=exact sum(u)=937.281497",
     "nx=194 ny=130 linear_fixed_point=exact sum(u)=937.281497",
     ("u[i, j + 1] - 4.0 * c)", "u[i, j + 1] - 3.999 * c)")),
    ("04_teams_scratch", "matvec.py", "sum(y)=-18 sum(|y|)=15634",
     "league=63 team_size=",
     ("dot += A[r, k] * xs[k]", "dot += A[r, k] * xs[k] if k != 3 else 0.0")),
]
IDS = [e[0] for e in EXERCISES]


def run(path, how):
    """Run a program on one back end (programs.run_program). Returns (the completed process,
    what its line must name: "backend=NAME")."""
    r, backend, _ = run_program(path, how)
    return r, backend


def program(exercise, variant):
    d, prog = exercise[0], exercise[1]
    return os.path.join(ROOT, "tutorial", d, "python", variant, prog)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_begin_runs(exercise, how):
    r, want = run(program(exercise, "begin"), how)
    assert r.returncode == 0, r.stdout + r.stderr
    assert exercise[2] in r.stdout and want in r.stdout, r.stdout


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_solution_passes(exercise, how):
    r, want = run(program(exercise, "solution"), how)
    assert r.returncode == 0, r.stdout + r.stderr
    line = [s for s in r.stdout.splitlines() if s.startswith(exercise[0] + ":")]
    assert len(line) == 1, r.stdout
    assert line[0].endswith(" PASS") and want in line[0] and exercise[3] in line[0], r.stdout
    if how.startswith("env-openmp"):
        assert "threads=%s" % how[-1] in line[0], line[0]


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_broken_solution_fails(exercise, tmp_path):
    """The solution with one kernel line changed prints FAIL and exits 1."""
    src = open(program(exercise, "solution")).read()
    old, new = exercise[4]
    assert src.count(old) == 1, old
    broken = tmp_path / exercise[1]
    broken.write_text(src.replace(old, new))
    r, _ = run(str(broken), "env-openmp2")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.rstrip().endswith(" FAIL"), r.stdout


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
@pytest.mark.parametrize("variant", ["begin", "solution"])
@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_on_cuda(exercise, variant):
    """The same programs, unchanged, on the GPU: the solutions keep their data in views."""
    r, want = run(program(exercise, variant), "arg-cuda")
    assert r.returncode == 0, r.stdout + r.stderr
    assert want in r.stdout, r.stdout
    if variant == "begin":
        assert exercise[2] in r.stdout, r.stdout
    else:
        assert exercise[3] in r.stdout and r.stdout.rstrip().endswith(" PASS"), r.stdout
