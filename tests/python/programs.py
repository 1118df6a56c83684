"""Running a Python program (an example, a tutorial exercise) on one back end, chosen as a user
chooses it: on the command line or in the environment."""
import os
import subprocess
import sys

HOW = ["arg-serial", "env-openmp1", "env-openmp2"]


def run_program(path, how, args=(), timeout=300):
    """Run `path` with `args` on the back end `how` names: "arg-serial" or "arg-cuda"
    (--porta-backend=NAME), "env-openmpN" (PORTA_BACKEND=openmp, PORTA_NUM_THREADS=N).
    Returns (the completed process, "backend=NAME", " threads=N" for OpenMP else "")."""
    env = dict(os.environ)
    cmd = [sys.executable, path] + list(args)
    if how.startswith("arg-"):
        cmd.append("--porta-backend=" + how[4:])
        backend, threads = how[4:], ""
    else:
        env["PORTA_BACKEND"] = "openmp"
        env["PORTA_NUM_THREADS"] = how[-1]
        backend, threads = "openmp", " threads=" + how[-1]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    return r, "backend=" + backend, threads
