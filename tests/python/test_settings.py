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
