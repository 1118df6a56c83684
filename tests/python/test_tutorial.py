"""The tutorial's Python exercises (tutorial/NN_name/python/{begin,solution}/, tutorial/README.md
"Python"): each begin runs as it is (exit 0, and prints the NumPy answer), and each solution
checks its own answer and prints PASS, on every host back end (Serial, OpenMP with 1 and 2
threads) and, where Porta has its CUDA back end and a GPU, on CUDA. Every part an exercise asks
for (its README's "Write") is checked: the solution broken on purpose in that part alone (one
change) must print FAIL and exit 1, so the checks are real."""
import os

import pytest

import porta
from programs import HOW, run_program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (directory, program, what the begin prints, what the solution prints, the parts: for each
# part the exercise asks for, (name, old, new), a change that breaks that part alone, old found
# once in the solution)
EXERCISES = [
    ("01_views_parallel_for", "axpy.py", "sum(y)=1500000500000",
     "n=1000000 sum(y)=1500000500000 errors=0 PASS",
     [("kernel", "y[i] += a * x[i]", "y[i] += a * x[i] + (1.0 if i == 777 else 0.0)"),
      ("launch", "porta.parallel_for(n, axpy, a, x, y)",
       "porta.parallel_for(n - 1, axpy, a, x, y)"),
      ("fill", "np.asarray(hx)[:] = np.arange(n, dtype=np.float64)",
       "np.asarray(hx)[:] = np.arange(n, dtype=np.float64)[::-1]")]),
    ("02_reductions", "reductions.py", "dot=4000002 min=-500000 max=500002",
     "dot=4000002 min=-500000 max=500002 deterministic_sum=2709699759649.3574 "
     "bitwise_equal=yes (3 runs) PASS",
     [("dot", "acc += x[i] * y[i]", "acc += x[i] * y[i] + (1.0 if i == 5 else 0.0)"),
      ("minmax_kernel", "if v < acc.lo:", "if v < acc.lo and v > -500000.0:"),
      # an init that is not the identity (0 for both) still gives the full range's answer
      ("minmax_init", "self.lo = math.inf\n        self.hi = -math.inf",
       "self.lo = 0.0\n        self.hi = 0.0"),
      ("minmax_join", "self.lo = min(self.lo, other.lo)", "self.lo = self.lo"),
      # without deterministic mode the 2-thread sum differs in its last bits
      ("deterministic", "porta.set_deterministic(True)\n", "porta.set_deterministic(False)\n")]),
    ("03_mdrange_stencil", "stencil.py", "linear_fixed_point=exact sum(u)=937.281497",
     "nx=194 ny=130 linear_fixed_point=exact sum(u)=937.281497",
     [("kernel", "u[i, j + 1] - 4.0 * c)", "u[i, j + 1] - 3.999 * c)"),
      ("views", "np.asarray(h)[...] = u0", "np.asarray(h)[...] = 0.0"),
      ("border", "porta.deep_copy(unew, u)", "pass"),
      # the last column of the box, next to the heated edge: the plate's values differ
      ("interior_box", "porta.MDRangePolicy((1, 1), (nx - 1, ny - 1))",
       "porta.MDRangePolicy((1, 1), (nx - 1, ny - 2))")]),
    ("04_teams_scratch", "matvec.py", "sum(y)=-18 sum(|y|)=15634",
     "league=63 team_size=",
     [("kernel", "dot += A[r, k] * xs[k]", "dot += A[r, k] * xs[k] if k != 3 else 0.0"),
      ("scratch_x", "xs[k] = x[k]", "xs[k] = x[k] if k != 8 else 0.0"),
      ("y_out", "y[r] = ys[r - row0]", "y[r] = ys[r - row0] if r != 5 else 0.0"),
      ("block_sum", "bsum += ys[r]", "bsum += ys[r] if r != 0 else 0.0")]),
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
    if exercise[0] == "04_teams_scratch":
        team_size = {"arg-serial": 1, "env-openmp1": 1, "env-openmp2": 2}[how]
        assert ("team_size=%d vector_length=8 sum(y)=-18 sum(|y|)=15634 errors=0 PASS"
                % team_size) in line[0], line[0]
    if how.startswith("env-openmp"):
        assert "threads=%s" % how[-1] in line[0], line[0]


BREAKS = [(e, part) for e in EXERCISES for part in e[4]]


@pytest.mark.parametrize("exercise,part", BREAKS, ids=["%s-%s" % (e[0], p[0]) for e, p in BREAKS])
def test_broken_solution_fails(exercise, part, tmp_path):
    """The solution with one part broken (one change) prints FAIL and exits 1 (on OpenMP with 2
    threads, where a reducer's join runs)."""
    src = open(program(exercise, "solution")).read()
    _, old, new = part
    assert src.count(old) == 1, old
    broken = tmp_path / exercise[1]
    broken.write_text(src.replace(old, new))
    r, _ = run(str(broken), "env-openmp2")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.rstrip().endswith(" FAIL"), r.stdout


# Parts that only a GPU run can check: on the host back ends a host mirror is the view itself,
# so a missing copy between them changes nothing. (name, old, new) as in EXERCISES.
CUDA_BREAKS = [
    (EXERCISES[0], ("copy_to_view", "porta.deep_copy(x, hx)", "pass")),
    (EXERCISES[0], ("copy_back", "porta.deep_copy(hy, y)", "pass")),
    (EXERCISES[2], ("copy_back", "np.array(porta.create_mirror_view_and_copy(u))",
                    "np.array(porta.create_mirror_view(u))")),
]


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
@pytest.mark.parametrize("exercise,part", CUDA_BREAKS,
                         ids=["%s-%s" % (e[0], p[0]) for e, p in CUDA_BREAKS])
def test_broken_solution_fails_on_cuda(exercise, part, tmp_path):
    """The copies between the host mirrors and the GPU's views: one left out, FAIL."""
    src = open(program(exercise, "solution")).read()
    _, old, new = part
    assert src.count(old) == 1, old
    broken = tmp_path / exercise[1]
    broken.write_text(src.replace(old, new))
    r, _ = run(str(broken), "arg-cuda")
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
