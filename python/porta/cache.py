"""Compile and cache generated modules (docs/python.md, "The cache").

An entry is a directory $PORTA_CACHE_DIR/<k[:2]>/<k>/ (default ~/.cache/porta) holding the
generated <module>.c, the compiled module.so, the command that built it (build.txt) and
module.json, the record of what was built: the key, and the size and SHA-256 of module.so. k is
the SHA-256 of: the generated C, Porta's version and the hash of its installed headers, the
compiler's identity (its `--version` text and path) and flags, and the machine (architecture,
CPU model and flags: -march=native code is the CPU's). An entry is built in a temporary
directory beside it (the record written there first) and renamed into place (atomic) under an
flock on <k>.lock: concurrent processes (MPI ranks of a node) and threads compile once, the
others wait and load it. A kernel edited in any way changes the C, so it is rebuilt; a changed
compiler or flag changes the key too.

What is checked before a module is loaded (a cache hit runs no subprocess and writes nothing;
its checks are a few lstat/open calls and the SHA-256 of module.so: about 40 us for a 25 KB
module, 26 us of it the hash):
- The cache directory, once per process: a relative PORTA_CACHE_DIR is made absolute (the
  compiler runs in another directory); the directory is created 0700 (missing parents too, as
  the XDG spec asks), must be writable (access(2)), owned by this user and not writable by
  group or others, and every directory above it must be owned by root or this user and not
  writable by others unless it has the sticky bit (/tmp): else another user could put their
  code where it is loaded from. A directory that fails is not used: a CacheWarning says why,
  naming PORTA_CACHE_DIR, and the process compiles into a private temporary cache (0700,
  removed at exit). So does a directory where a write fails all the same (root in /proc); one
  removed while the program runs is made again.
- Every load: the shard, the entry, module.so and module.json must be what this user made
  (owned by this user, not writable by group or others, a directory or a regular file, no
  symbolic link), the record must name this key, and module.so must have the recorded size and
  SHA-256. A shard or entry owned by another user or writable by others is never loaded from: a
  CacheWarning names the path and what is wrong. It, or any partial or foreign content (an
  entry without module.so or record, a truncated module.so, another entry's module.so, a file
  where a directory belongs), is moved aside and the module compiled again, under the lock.
  Entries are created 0700 and their files 0600 (dlopen needs read permission only).
- The compiler memo (compilers/<hash>.json, the compiler's identity) is used only when it has
  the expected shape and owner; otherwise `--version` runs again and the memo is rewritten
  (written to a unique temporary file and renamed: safe from threads and processes).

A compile (and a compiler's `--version`) runs in a process group of its own with the compiler's
TMPDIR in a private directory. It is limited to PORTA_COMPILE_TIMEOUT seconds (default 600:
cold compiles take 0.3 s with gcc and about 2 s with nvcc, so 10 minutes leaves room for very
large modules on a loaded machine, yet a hung compiler ends a batch job's wait with an error;
0 means no limit). On the limit, an exception or Ctrl-C, the whole group (nvcc's children too) is
killed, the temporary directories are removed and the lock released.

Kernels launched on the CUDA back end run from a second entry of the same C compiled by nvcc
as CUDA (-x cu, as CMake compiles Porta's kernel files in a CUDA build), made when CUDA is
first used: its key holds nvcc's identity, its flags and the GPU architecture, and the host
compiler nvcc drives. In a CUDA build the C compiler's modules define PORTA_HOST_KERNELS_ONLY
(they hold the host back ends' launchers only).
"""
import atexit
import contextlib
import errno
import fcntl
import hashlib
import json
import os
import platform
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings

from . import _buildinfo

PKG = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(PKG, "_porta", "include")
LIBDIR = os.path.join(PKG, "_porta", "lib")
VERSION = "0.2.0"
RECORD = "module.json"  # beside module.so: the key, and module.so's size and SHA-256
DEFAULT_TIMEOUT = 600.0  # seconds (PORTA_COMPILE_TIMEOUT)


class CompileError(Exception):
    """The C compiler rejected a generated module (the message holds its output, whose
    #line directives name the Python file and line), did not finish within
    PORTA_COMPILE_TIMEOUT, or the cache could not hold the module."""


class CompileTimeout(CompileError):
    """A compile did not finish within PORTA_COMPILE_TIMEOUT (its compiler was killed)."""


class CacheWarning(UserWarning):
    """The cache directory or an entry was not used as it is (the message says why)."""


_lock = threading.RLock()  # guards the per-process memos and stats
stats = {"compiles": 0, "hits": 0, "rebuilds": 0, "last_compile_s": 0.0}


def _count(name):
    with _lock:
        stats[name] = stats.get(name, 0) + 1


def _warn(msg):
    """warnings.warn at the first caller outside the porta package (the user's line)."""
    f, level = sys._getframe(1), 2
    while f is not None and f.f_code.co_filename.startswith(PKG + os.sep):
        f, level = f.f_back, level + 1
    warnings.warn(msg, CacheWarning, stacklevel=level)


# ---- who may have written a path ----

def _who(uid):
    try:
        import pwd

        return "uid %d (%s)" % (uid, pwd.getpwuid(uid).pw_name)
    except (ImportError, KeyError):
        return "uid %d" % uid


def _owner_problem(path, st):
    """Why `path` (its lstat `st`) may hold another user's content, or None: it must be owned
    by this user and not writable by group or others."""
    me = os.geteuid()
    if st.st_uid != me:
        return "%s is owned by %s, not by you (%s)" % (path, _who(st.st_uid), _who(me))
    if st.st_mode & 0o022:
        return "%s is writable by %s (mode %04o)" % (path, _writers(st), stat.S_IMODE(st.st_mode))
    return None


def _writers(st):
    return {0o020: "group", 0o002: "others", 0o022: "group and others"}[st.st_mode & 0o022]


def _chain_problem(real):
    """Why the directory `real` (no symbolic links) is not safe to load code from, or None:
    it must be this user's and not writable by others, and each directory above it owned by
    root or this user and not writable by others unless sticky (as /tmp)."""
    above, p = [], os.path.dirname(real)
    while True:
        above.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    me = os.geteuid()
    for p in reversed(above):
        st = os.lstat(p)
        if st.st_uid not in (0, me):
            return ("%s, a directory above it, is owned by %s: that user could put another "
                    "directory in its place" % (p, _who(st.st_uid)))
        if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            return ("%s, a directory above it, is writable by %s (mode %04o, no sticky bit): "
                    "they could put another directory in its place"
                    % (p, _writers(st), stat.S_IMODE(st.st_mode)))
    st = os.lstat(real)
    problem = _owner_problem(real, st)
    if problem:
        return problem + ": another user could put their code in it"
    return None


# ---- the cache directory ----

_roots = {}  # the absolute directory asked for -> the directory used
_private = None  # the private temporary cache, once made


def _wanted_dir():
    """(absolute directory, whether PORTA_CACHE_DIR named it)."""
    d = os.environ.get("PORTA_CACHE_DIR")
    if d:
        return os.path.abspath(os.path.expanduser(d)), True
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.abspath(os.path.join(base, "porta")), False


def cache_dir():
    """The cache directory in use: PORTA_CACHE_DIR made absolute (default
    $XDG_CACHE_HOME/porta, else ~/.cache/porta), checked once per process; a private temporary
    cache (with a CacheWarning) when that directory cannot be used safely."""
    d, named = _wanted_dir()
    root = _roots.get(d)
    if root is None:
        with _lock:
            root = _roots.get(d)
            if root is None:
                root = _roots[d] = _open_root(d, named)
    return root


def _forget_root(root):
    with _lock:
        for d in [d for d, r in _roots.items() if r == root]:
            del _roots[d]


def _makedirs(d):
    """mkdir -p with mode 0700 for every directory made (the XDG base directory spec's mode)."""
    if os.path.isdir(d):
        return
    parent = os.path.dirname(d)
    if parent != d:
        _makedirs(parent)
    try:
        os.mkdir(d, 0o700)
    except FileExistsError:
        if not os.path.isdir(d):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), d) from None


def _root_problem(d):
    """Why the directory `d` cannot hold the cache, or None (it exists afterwards)."""
    try:
        _makedirs(d)
    except OSError as e:
        return "it cannot be made (%s: %s)" % (e.filename or d, e.strerror or e)
    real = os.path.realpath(d)
    try:
        problem = _chain_problem(real)
    except OSError as e:
        return "it cannot be examined (%s)" % (e.strerror or e)
    if problem:
        return problem
    # Writable? access(2) knows permissions and read-only mounts; where a write fails all the
    # same (root in /proc), build() falls back then (_write_failed). No test write: a cache hit
    # writes nothing.
    if not os.access(real, os.W_OK | os.X_OK):
        return "it is not writable (%s)" % os.strerror(errno.EACCES)
    return None


def _open_root(d, named):
    problem = _root_problem(d)
    if problem is None:
        return os.path.realpath(d)
    return _fall_back(d, named, problem)


def _write_failed(root, err):
    """The directory to use after a write in the cache directory `root` failed: `root` made
    again if it was removed while we ran, else the private cache (with a CacheWarning)."""
    vanished = not os.path.isdir(root)
    _forget_root(root)
    new = cache_dir()
    if new != root or vanished:
        return new
    d, named = _wanted_dir()
    with _lock:
        _roots[d] = _fall_back(d, named, "writing in it failed (%s: %s)"
                               % (getattr(err, "filename", None) or root, err.strerror or err))
        return _roots[d]


def _fall_back(d, named, problem):
    where = ("PORTA_CACHE_DIR=%s" % d if named else
             "the kernel cache %s (PORTA_CACHE_DIR is not set)" % d)
    private = _private_root(where, problem)
    _warn("%s cannot be used: %s. Kernels are compiled into a private temporary cache, %s, "
          "removed at exit, so every run compiles them again: set PORTA_CACHE_DIR to a "
          "directory that only you can write" % (where, problem, private))
    return private


def _private_root(where, problem):
    global _private
    if _private is None:
        try:
            d = tempfile.mkdtemp(prefix="porta-cache-")  # mode 0700
        except OSError as e:
            raise CompileError("%s cannot be used (%s), nor can a temporary directory be made "
                               "(%s): set PORTA_CACHE_DIR to a directory of yours"
                               % (where, problem, e.strerror or e)) from None
        atexit.register(_remove_private, d, os.getpid())
        _private = d
    return _private


def _remove_private(d, pid):
    if os.getpid() == pid:  # not in a forked child
        shutil.rmtree(d, ignore_errors=True)


# ---- healing ----

ABSENT = "absent"  # no entry: a plain miss
DAMAGED = "damaged"  # partial or foreign content: moved aside and rebuilt silently
UNSAFE = "unsafe"  # another user's or writable by others: never loaded, a CacheWarning


def _dir_problem(path, st):
    if not stat.S_ISDIR(st.st_mode):
        return DAMAGED, "%s is not a directory" % path
    problem = _owner_problem(path, st)
    return (UNSAFE, problem) if problem else None


def _open_checked(path):
    """(fd, fstat) of the regular file `path`, opened without following a symbolic link, or
    (None, (kind, why))."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, (DAMAGED, "%s is missing" % path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return None, (DAMAGED, "%s is a symbolic link" % path)
        return None, (DAMAGED, "%s cannot be opened (%s)" % (path, e.strerror or e))
    st = os.fstat(fd)
    why = None
    if not stat.S_ISREG(st.st_mode):
        why = DAMAGED, "%s is not a regular file" % path
    else:
        problem = _owner_problem(path, st)
        if problem:
            why = UNSAFE, problem
    if why:
        os.close(fd)
        return None, why
    return fd, st


def _read_fd(fd):
    with open(fd, "rb", closefd=True) as fh:
        return fh.read()


def _check_entry(entry, k):
    """None when `entry` holds what was built for key k, ABSENT when there is no entry, else
    (DAMAGED or UNSAFE, what is wrong)."""
    shard = os.path.dirname(entry)
    for d in (shard, entry):
        try:
            st = os.lstat(d)
        except FileNotFoundError:
            return ABSENT
        except OSError as e:  # the shard cannot be searched
            return DAMAGED, "%s cannot be examined (%s)" % (d, e.strerror or e)
        problem = _dir_problem(d, st)
        if problem:
            return problem
    fd, st = _open_checked(os.path.join(entry, RECORD))
    if fd is None:
        return st
    try:
        rec = json.loads(_read_fd(fd))
        size, digest = rec["size"], rec["sha256"]
        good = rec["key"] == k and type(size) is int and isinstance(digest, str)
    except (ValueError, TypeError, KeyError, OSError):
        good = False
    if not good:
        return DAMAGED, "%s is not this entry's record" % os.path.join(entry, RECORD)
    so = os.path.join(entry, "module.so")
    fd, st = _open_checked(so)
    if fd is None:
        return st
    if st.st_size != size:
        os.close(fd)
        return DAMAGED, "%s has %d bytes, %d were built" % (so, st.st_size, size)
    if hashlib.sha256(_read_fd(fd)).hexdigest() != digest:
        return DAMAGED, "%s is not the module built there (its SHA-256 differs)" % so
    return None


def _move_aside(path, why):
    """Rename `path` to .bad-<name>-<random> beside it (atomic: no process loads half of it),
    then remove that as far as possible."""
    parent, name = os.path.split(path)
    dst = os.path.join(parent, ".bad-%s-%s" % (name, os.urandom(4).hex()))
    try:
        os.rename(path, dst)
    except FileNotFoundError:
        return
    except OSError as e:
        raise CompileError("%s; it cannot be moved aside (%s): remove it, or set "
                           "PORTA_CACHE_DIR to another directory"
                           % (why, e.strerror or e)) from None
    try:
        if stat.S_ISDIR(os.lstat(dst).st_mode):
            shutil.rmtree(dst, ignore_errors=True)
        else:
            os.unlink(dst)
    except OSError:
        pass


@contextlib.contextmanager
def _flocked(path):
    """An exclusive flock on the file `path` (made 0600 if absent). Each call opens the file
    anew, so threads of one process exclude each other as processes do."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.EISDIR, errno.EACCES, errno.EPERM, errno.ENXIO):
            raise
        # a symbolic link, a directory, another user's file: foreign content
        _move_aside(path, "the lock file %s cannot be opened (%s)" % (path, e.strerror))
        fd = os.open(path, flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _shard(root, k):
    """The shard directory of key k, made (0700) or healed."""
    shard = os.path.join(root, k[:2])
    try:
        if _dir_problem(shard, os.lstat(shard)) is None:
            return shard
    except FileNotFoundError:
        pass
    with _flocked(os.path.join(root, k[:2] + ".lock")):
        try:
            problem = _dir_problem(shard, os.lstat(shard))
        except FileNotFoundError:
            problem = ABSENT
        if problem is None:
            return shard
        if problem is not ABSENT:
            _heal(shard, problem, "cache shard")
        os.mkdir(shard, 0o700)
    return shard


def _heal(path, problem, what):
    kind, why = problem
    if kind == UNSAFE:
        _warn("Porta does not load from the %s %s: %s. It is moved aside and the kernels "
              "are compiled again" % (what, path, why))
    _count("rebuilds")
    _move_aside(path, why)


def _write_private(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o600)
    with open(fd, "wb" if isinstance(data, bytes) else "w") as fh:
        fh.write(data)


# ---- running the compiler ----

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


def compiler():
    return os.environ.get("PORTA_CC", "cc")


def flags():
    """The compiler flags of a generated module (PORTA_CFLAGS adds more, e.g. -g)."""
    f = ["-std=c11", "-O3", "-march=native", "-fPIC", "-shared", "-fopenmp",
         "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    # Kernel integers wrap around as NumPy's int64 do: with -fwrapv signed overflow is defined,
    # so the generated C's pk_add ... are plain arithmetic that the compiler still vectorises
    # (the unsigned-cast form they take otherwise kept gcc from vectorising a 2D stencil's
    # index arithmetic: 0.68 of C).
    f += ["-fwrapv", "-DPORTA_PY_WRAPV"]
    f += vector_width_flags()
    if getattr(_buildinfo, "CUDA", False):
        f.append("-DPORTA_HOST_KERNELS_ONLY")  # the CUDA launchers come from nvcc's module
    f += os.environ.get("PORTA_CFLAGS", "").split()
    return f


def nvcc():
    """The nvcc that compiles modules for the CUDA back end: PORTA_NVCC, else the one
    libporta was built with."""
    n = os.environ.get("PORTA_NVCC") or getattr(_buildinfo, "NVCC", None)
    if not getattr(_buildinfo, "CUDA", False) or not n:
        raise CompileError("this porta package was built without CUDA (no nvcc was found by "
                           "pip install; PORTA_CUDA=1 insists on it)")
    return n


def cuda_arch():
    """The GPU architecture modules are compiled for (PORTA_CUDA_ARCH, else the build's)."""
    return os.environ.get("PORTA_CUDA_ARCH") or getattr(_buildinfo, "CUDA_ARCH", None) or "90"


def vector_width_flags():
    """-mprefer-vector-width as libporta's build has it (CMake's PORTA_VECTOR_WIDTH: 256 unless
    PORTA_CMAKE_ARGS set it, empty for the compiler's own choice), on x86-64 where GCC and
    Clang take it: the C apps' code shapes, so their speed (CMakeLists.txt says why)."""
    width = "256"
    for a in getattr(_buildinfo, "CMAKE_ARGS", ()):
        if a.startswith("-DPORTA_VECTOR_WIDTH"):
            width = a.split("=", 1)[1] if "=" in a else ""
    if not width or platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    return ["-mprefer-vector-width=" + width]


def nvcc_flags():
    """nvcc's flags for a module: CUDA C++17 as in Porta's CMake (nvcc -x cu), SASS and PTX
    for one architecture, the shared CUDA runtime libporta uses (one runtime in the process).
    The host side is built at -O1: this module's host code only launches CUDA kernels (its host
    back ends' kernels are never called: host launches use the C compiler's module), nvcc's
    -O level does not reach the device code (cicc and ptxas get the same arguments at -O1 and
    -O3), and gcc's host pass is the largest part of a cold compile (-O1 took 1.31 s where
    -O3 took 1.51 s for a 3-kernel module). PORTA_NVCCFLAGS adds more."""
    a = cuda_arch()
    f = ["-x", "cu", "-std=c++17", "-O1", "-shared", "--cudart=shared",
         "--generate-code=arch=compute_%s,code=[compute_%s,sm_%s]" % (a, a, a),
         "-Xcompiler=-fPIC,-fopenmp,-march=native,-fvisibility=hidden,-Wall,-Wextra,"
         "-Wno-unused-parameter"] + ["-Xcompiler=" + x for x in vector_width_flags()]
    if "-DPORTA_ENABLE_REPRODUCIBLE=ON" in getattr(_buildinfo, "CMAKE_ARGS", ()):
        f += ["--fmad=false", "-Xcompiler=-ffp-contract=off"]
    f += os.environ.get("PORTA_NVCCFLAGS", "").split()
    return f


_ident = {}


def compiler_identity(cc):
    """`cc --version` and the compiler's real path, memoised per process and on disk by the
    binary's path, size and modification time (so a cached load runs no subprocess)."""
    path = shutil.which(cc)
    if path is None:
        raise CompileError("the C compiler '%s' was not found (set PORTA_CC)" % cc)
    real = os.path.realpath(path)
    st = os.stat(real)
    stamp = "%s|%d|%d" % (real, st.st_size, st.st_mtime_ns)
    ident = _ident.get(stamp)
    if ident is not None:
        return ident
    memos = os.path.join(cache_dir(), "compilers")
    memo = os.path.join(memos, hashlib.sha256(stamp.encode()).hexdigest()[:32] + ".json")
    ident = _read_memo(memos, memo, stamp)
    if ident is None:
        rc, out, err = _run([real, "--version"], None, "'%s --version'" % real)
        ident = real + "\n" + out
        _write_memo(memos, memo, stamp, ident)
    _ident[stamp] = ident
    return ident


def _read_memo(memos, memo, stamp):
    """The identity in the memo file, or None where it is absent, not of this user or of another
    shape."""
    try:
        if _dir_problem(memos, os.lstat(memos)):
            return None
    except OSError:
        return None
    fd, _ = _open_checked(memo)
    if fd is None:
        return None
    try:
        m = json.loads(_read_fd(fd))
        if m["stamp"] == stamp and isinstance(m["identity"], str):
            return m["identity"]
    except (ValueError, TypeError, KeyError, OSError):
        pass
    return None


def _write_memo(memos, memo, stamp, ident):
    """Write the memo through a unique temporary file renamed into place, replacing foreign
    content; a failure only costs a `--version` next time."""
    try:
        try:
            problem = _dir_problem(memos, os.lstat(memos))
        except FileNotFoundError:
            problem = ABSENT
        if problem is not None:
            if problem is not ABSENT:
                _move_aside(memos, problem[1])
            try:
                os.mkdir(memos, 0o700)
            except FileExistsError:
                pass
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(memo) + ".", suffix=".tmp",
                                   dir=memos)
        try:
            with open(fd, "w") as fh:
                json.dump({"stamp": stamp, "identity": ident}, fh)
            if os.path.isdir(memo) and not os.path.islink(memo):
                _move_aside(memo, "%s is a directory" % memo)
            os.replace(tmp, memo)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except (OSError, CompileError):
        pass


_arch = None


def architecture():
    global _arch
    if _arch is None:
        cpu = ""
        try:
            with open("/proc/cpuinfo") as fh:
                for line in fh:
                    if line.startswith(("model name", "flags", "Features", "CPU part")):
                        cpu += line
                    if line.strip() == "":
                        break  # the first processor is enough
        except OSError:
            pass
        _arch = platform.machine() + "\n" + cpu
    return _arch


def key(c_source, cc, cflags, cuda=False):
    h = hashlib.sha256()
    parts = [c_source, VERSION, _buildinfo.HEADERS_SHA256, compiler_identity(cc),
             " ".join(cflags), architecture()]
    if cuda:  # nvcc drives the host C++ compiler (g++ on Linux): its identity too
        host = "g++" if shutil.which("g++") else None
        parts += ["cuda", cuda_arch(), compiler_identity(host) if host else ""]
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def build(c_source, module_name, cuda=False):
    """The path of the compiled module for `c_source`: from the cache when its entry checks
    out, else compiled now (by nvcc for the CUDA back end when `cuda`). Safe to call from
    several threads and processes at once."""
    cc = nvcc() if cuda else compiler()
    cflags = nvcc_flags() if cuda else flags()
    k = key(c_source, cc, cflags, cuda)
    root = cache_dir()
    entry = os.path.join(root, k[:2], k)
    if _check_entry(entry, k) is None:
        _count("hits")
        return os.path.join(entry, "module.so")
    try:
        return _build_entry(_shard(root, k), k, c_source, module_name, cuda, cc, cflags)
    except OSError as e:  # the cache directory was removed, or cannot be written after all
        root = _write_failed(root, e)
    return _build_entry(_shard(root, k), k, c_source, module_name, cuda, cc, cflags)


def _build_entry(shard, k, c_source, module_name, cuda, cc, cflags):
    entry = os.path.join(shard, k)
    so = os.path.join(entry, "module.so")
    with _flocked(os.path.join(shard, k + ".lock")):
        problem = _check_entry(entry, k)
        if problem is None:  # another process or thread built it while we waited
            _count("hits")
            return so
        if problem is not ABSENT:
            _heal(entry, problem, "cache entry")
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=shard)
        try:
            cfile = os.path.join(tmp, module_name + ".c")
            _write_private(cfile, c_source)
            out = os.path.join(tmp, "module.so")
            rpath = ("-Xlinker=-rpath," if cuda else "-Wl,-rpath,") + LIBDIR
            cmd = [cc] + cflags + ["-I" + INCLUDE, cfile, "-o", out,
                   "-L" + LIBDIR, rpath, "-lporta", "-lm"]
            what = "compiling the kernels of module '%s'%s" % (module_name,
                                                               " with nvcc" if cuda else "")
            t0 = time.perf_counter()
            rc, stdout, stderr = _run(cmd, tmp, what)
            stats["last_compile_s"] = time.perf_counter() - t0
            if rc != 0:
                raise CompileError("%s failed:\n%s%s" % (what, stderr, stdout))
            try:
                os.chmod(out, 0o600)
                with open(out, "rb") as fh:
                    data = fh.read()
            except OSError as e:
                raise CompileError("%s wrote no module (%s):\n%s%s"
                                   % (what, e.strerror or e, stderr, stdout)) from None
            with _lock:
                if cuda:
                    stats["nvcc_compiles"] = stats.get("nvcc_compiles", 0) + 1
                    stats["last_nvcc_compile_s"] = stats["last_compile_s"]
                stats["compiles"] += 1
            _write_private(os.path.join(tmp, "build.txt"), " ".join(cmd) + "\n" + stderr)
            _write_private(os.path.join(tmp, RECORD), json.dumps(
                {"key": k, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}))
            os.rename(tmp, entry)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return so
