"""Running the compile cache's compilers (cache.py): a compile, or a compiler's `--version`,
runs in a process group of its own with the compiler's TMPDIR in a private directory, limited to
PORTA_COMPILE_TIMEOUT seconds (default 600: cold compiles take 0.3 s with gcc and about 2 s with
nvcc, so 10 minutes leaves room for very large modules on a loaded machine, yet a hung compiler
ends a batch job's wait with an error; 0 means no limit). On the limit (CompileTimeout), an
exception or Ctrl-C, the whole group (nvcc's children too) is killed and the temporary directory
removed; the caller's lock on the entry is released as the exception leaves it."""
import os
import shutil
import signal
import subprocess
import tempfile

from .cache_report import CompileError, CompileTimeout

DEFAULT_TIMEOUT = 600.0  # seconds (PORTA_COMPILE_TIMEOUT)


def compile_timeout():
    """PORTA_COMPILE_TIMEOUT: the seconds a compile may take (default 600), None for no limit
    (0)."""
    v = os.environ.get("PORTA_COMPILE_TIMEOUT", "").strip()
    if not v:
        return DEFAULT_TIMEOUT
    try:
        t = float(v)
    except ValueError:
        t = float("nan")
    if not t >= 0:
        raise CompileError("PORTA_COMPILE_TIMEOUT=%r is not a number of seconds (0: no limit)"
                           % v)
    return None if t == 0 or t == float("inf") else t


def _stop(p):
    """Kill the compiler's process group (nvcc runs cicc, ptxas, gcc, ...) and reap it."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    p.wait()
    for f in (p.stdout, p.stderr):
        try:
            f.close()
        except OSError:
            pass


def _run(cmd, cwd, what):
    """(returncode, stdout, stderr) of `cmd`, run in a process group of its own with TMPDIR in a
    private directory, within PORTA_COMPILE_TIMEOUT; killed with its children on the limit, an
    exception or KeyboardInterrupt."""
    limit = compile_timeout()
    try:
        ctmp = tempfile.mkdtemp(prefix="porta-cc-")
    except OSError as e:
        raise CompileError("%s: no temporary directory for the compiler (%s)"
                           % (what, e.strerror or e)) from None
    try:
        try:
            p = subprocess.Popen(cmd, cwd=cwd, env=dict(os.environ, TMPDIR=ctmp),
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, encoding="utf-8", errors="replace",
                                 start_new_session=True)
        except OSError as e:
            raise CompileError("%s: cannot run %s (%s)"
                               % (what, cmd[0], e.strerror or e)) from None
        try:
            out, err = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            _stop(p)
            raise CompileTimeout(
                "%s did not finish within %g s (PORTA_COMPILE_TIMEOUT): the compiler %s and its "
                "child processes were stopped. Set PORTA_COMPILE_TIMEOUT to more seconds (0: no "
                "limit) if it needs longer" % (what, limit, cmd[0])) from None
        except BaseException:
            _stop(p)
            raise
        return p.returncode, out, err
    finally:
        shutil.rmtree(ctmp, ignore_errors=True)
