"""Settings made before porta.init() and what the installed package says of its own build.

set_num_threads / set_deterministic before any init used to be reset by the implicit init of
the first launch (num_threads() read 1 after set_num_threads(2)); each runs in a fresh child
process, since this test process is initialised by conftest.py."""
import subprocess
import sys
import textwrap

import porta

CHILD = textwrap.dedent('''
    import numpy as np, porta

    @porta.kernel
    def total(i: int, x: porta.f64[:], s: porta.Sum[float]):
        s += x[i]

    assert not porta.is_initialized()
    porta.set_num_threads({threads})
    porta.set_deterministic(True)
    x = np.arange(1000, dtype=np.float64)
    r = porta.parallel_reduce(porta.RangePolicy(0, 1000, space="openmp"), total, x)
    print(porta.num_threads(), porta.deterministic(), r)
''')


def run_child(tmp_path, threads):
    prog = tmp_path / ("settings_%d.py" % threads)  # kernels are read from their file
    prog.write_text(CHILD.format(threads=threads))
    out = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_settings_before_init_survive_the_first_launch(tmp_path):
    for threads in (1, 2):
        n, det, total = run_child(tmp_path, threads)
        assert int(n) == threads
        assert det == "True"
        assert float(total) == 499500.0


def test_cuda_built_matches_the_build():
    """porta.cuda_built (from the compiled extension) and the build record agree: a reinstall
    with another PORTA_CUDA once kept the old extension."""
    from porta import _buildinfo
    assert porta.cuda_built == bool(_buildinfo.CUDA)


def omp_short_wait(env_extra, args=()):
    """Whether porta loaded libgomp with the short wait, in a child with `env_extra`."""
    import os
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_NUM_THREADS", "PORTA_NUM_THREADS", "OMP_WAIT_POLICY",
                        "GOMP_SPINCOUNT", "OMPI_COMM_WORLD_LOCAL_SIZE")}
    env.update(env_extra)
    code = "import os, porta; print(porta._omp_env_set, 'GOMP_SPINCOUNT' in os.environ)"
    out = subprocess.run([sys.executable, "-c", code] + list(args), env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    short, left_in_env = out.stdout.split()
    # children of the program do not inherit Porta's setting (the user's stays)
    assert left_in_env == str("GOMP_SPINCOUNT" in env_extra)
    return short == "True"


def test_openmp_wait_short_only_when_oversubscribed():
    """libgomp's spinning wait is kept where the threads fit the CPUs (it makes team barriers
    fast: a team SpMV took 3.5 ms with it, 7.7 ms with 1000 spins) and cut to 1000 spins where
    more threads than CPUs were asked for (8 ms a small launch with one core busy); the user's
    setting wins."""
    import os
    cpus = len(os.sched_getaffinity(0))
    assert not omp_short_wait({"OMP_NUM_THREADS": str(cpus)})
    assert not omp_short_wait({})
    assert omp_short_wait({"OMP_NUM_THREADS": str(cpus + 1)})
    assert omp_short_wait({}, ["--porta-threads=%d" % (2 * cpus)])
    if cpus == os.cpu_count():  # not bound: the node's ranks share the CPUs
        assert omp_short_wait({"OMP_NUM_THREADS": str(cpus),
                               "OMPI_COMM_WORLD_LOCAL_SIZE": "2"})
    assert not omp_short_wait({"OMP_NUM_THREADS": str(cpus + 1), "OMP_WAIT_POLICY": "active"})
    assert not omp_short_wait({"OMP_NUM_THREADS": str(cpus + 1), "GOMP_SPINCOUNT": "300000"})
