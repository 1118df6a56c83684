"""Running a program on the ranks of `mpirun` for the porta.exchange tests, with a time limit
that ends every process of the run: a test whose ranks hang (a regression to mismatched
messages) fails after `timeout` seconds instead of hanging the suite. mpirun is started in a
session of its own; Open MPI puts each rank in a process group of its own but keeps it in
that session, so on time-out mpirun is asked to stop (SIGTERM, which ends its ranks), and
whatever of the session is left after 5 s is killed."""
import os
import shutil
import signal
import subprocess
import sys
import time


def mpi_env(tmp_path, **more):
    """Open MPI as root (its two variables), oversubscribed (2 cores here), a private kernel
    cache; PORTA_BACKEND left out (the programs name their back end)."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_PROC_BIND="false",
               PORTA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("PORTA_BACKEND", None)
    env.update(more)
    return env


def mpi_ready():
    """None when mpirun, mpi4py and porta._exchange are there, else why not."""
    if shutil.which("mpirun") is None:
        return "no mpirun"
    r = subprocess.run([sys.executable, "-c", "import mpi4py"], capture_output=True)
    if r.returncode != 0:
        return "no mpi4py"
    r = subprocess.run([sys.executable, "-c", "import porta._exchange"], capture_output=True)
    if r.returncode != 0:
        return "porta built without MPI (no porta._exchange)"
    return None


def _session_pids(sid):
    """The processes of session `sid` (from /proc)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if int(fields[3]) == sid:  # state, ppid, pgrp, session
            pids.append(int(name))
    return pids


def mpirun(ranks, argv, env, timeout=60):
    """Run `argv` on `ranks` ranks; returns (returncode, stdout, stderr). On time-out every
    process of the run is ended and AssertionError says so, with the output so far."""
    p = subprocess.Popen(["mpirun", "-n", str(ranks)] + list(argv), env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        deadline = time.time() + 5
        while time.time() < deadline and p.poll() is None:
            time.sleep(0.1)
        for pid in _session_pids(p.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        out, err = p.communicate()
        raise AssertionError("the %d ranks did not finish in %d s (a hang): stdout %r, stderr %r"
                             % (ranks, timeout, out[-3000:], err[-3000:]))
