"""Two MPI ranks on one node compile a module once (docs/python.md, "Compile and cache"): both
ranks start at once with the same fresh kernel cache, one compiles under the entry's lock and
the other waits and loads its result; both get the right answers. Needs mpirun and mpi4py
(Debian's python3-mpi4py, seen through the venv's system site packages)."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

SOURCE = '''
import porta

@porta.kernel
def fill(i: int, x: porta.f64[:]):
    x[i] = 7.0 * i + RANKSALT
'''

CHILD = textwrap.dedent('''
    import sys
    sys.path.insert(0, {tmp!r})
    from mpi4py import MPI
    import numpy as np
    import porta, porta.cache
    comm = MPI.COMM_WORLD
    porta.init(backend="serial", args=[])
    comm.Barrier()  # both ranks reach the first launch together
    import {name} as m
    x = np.zeros(64)
    porta.parallel_for(64, m.fill, x)
    ok = bool((x == 7.0 * np.arange(64) + 0.5).all())
    stats = comm.gather((comm.rank, porta.cache.stats["compiles"], porta.cache.stats["hits"],
                         ok, m.fill._unit.paths[-1]), root=0)
    if comm.rank == 0:
        print("RESULT", repr(stats))
''')


def mpi_ready():
    if shutil.which("mpirun") is None:
        return "no mpirun"
    r = subprocess.run([sys.executable, "-c", "import mpi4py"], capture_output=True)
    return None if r.returncode == 0 else "no mpi4py"


@pytest.mark.skipif(mpi_ready() is not None, reason=str(mpi_ready()))
def test_two_ranks_compile_once(tmp_path):
    name = "mpimod_" + tmp_path.name.replace("-", "_")
    (tmp_path / (name + ".py")).write_text(SOURCE.replace("RANKSALT", "0.5"))
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tmp=str(tmp_path), name=name))
    env = dict(os.environ, PORTA_CACHE_DIR=str(tmp_path / "cache"), PORTA_BACKEND="serial",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    r = subprocess.run(["mpirun", "-n", "2", sys.executable, str(script)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, r.stdout + r.stderr
    stats = eval(line[0][len("RESULT "):])  # noqa: S307 - our own child's repr
    assert sorted(s[0] for s in stats) == [0, 1]
    assert all(s[3] for s in stats), stats  # both ranks' answers
    assert sorted(s[1] for s in stats) == [0, 1], stats  # one compile between them
    assert sum(s[2] for s in stats) == 1, stats  # the other rank's hit (after the lock)
    assert stats[0][4] == stats[1][4]  # the same entry
    shards = [d for d in os.listdir(tmp_path / "cache") if len(d) == 2]
    assert not [f for d in shards for f in os.listdir(tmp_path / "cache" / d)
                if f.startswith(".tmp-")]
