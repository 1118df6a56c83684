"""The examples of examples/python run on each host back end (chosen by the command line or
the environment, as in C) and pass their own checks against NumPy."""
import os
import subprocess
import sys

import pytest

import porta

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = ["axpy_dot.py", "stencil2d.py", "spmv_team.py", "histogram.py", "custom_reducer.py",
            "heat_views.py"]


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("how", ["arg-serial", "env-openmp1", "env-openmp2"])
def test_example(example, how):
    env = dict(os.environ)
    args = [sys.executable, os.path.join(ROOT, "examples", "python", example)]
    if how == "arg-serial":
        args.append("--porta-backend=serial")
        want = "backend=serial"
    else:
        env["PORTA_BACKEND"] = "openmp"
        env["PORTA_NUM_THREADS"] = how[-1]
        want = "backend=openmp threads=%s" % how[-1]
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout and want in r.stdout, r.stdout


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
def test_views_example_on_cuda():
    """The example written with views runs unchanged on the GPU."""
    args = [sys.executable, os.path.join(ROOT, "examples", "python", "heat_views.py"),
            "--porta-backend=cuda"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout and "backend=cuda" in r.stdout and "space=cuda" in r.stdout, \
        r.stdout
