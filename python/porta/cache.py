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
- the cache directory, once per process: this user's alone, or a private temporary cache with a
  CacheWarning (cache_trust.py);
- every load: the shard, the entry and its files are this user's, and module.so is the one
  recorded; anything else is moved aside and compiled again (cache_entries.py);
- the compiler memo (compilers/<hash>.json, the compiler's identity) is used only when it has
  the expected shape and owner; otherwise `--version` runs again and the memo is rewritten
  (written to a unique temporary file and renamed: safe from threads and processes).
A compile runs within PORTA_COMPILE_TIMEOUT seconds, killed with its child processes on the limit
or Ctrl-C (cache_compile.py). The exceptions, CacheWarning and stats are cache_report.py's, all
importable from here.

Kernels launched on the CUDA back end run from a second entry of the same C compiled by nvcc
as CUDA (-x cu, as CMake compiles Porta's kernel files in a CUDA build), made when CUDA is
first used: its key holds nvcc's identity, its flags and the GPU architecture, and the host
compiler nvcc drives. In a CUDA build the C compiler's modules define PORTA_HOST_KERNELS_ONLY
(they hold the host back ends' launchers only).
"""
import contextlib
import hashlib
import json
import os
import platform
import shutil
import tempfile
import time

from . import _buildinfo
# The cache's names, as before the split (tests and porta.kernel use them from here).
from .cache_compile import DEFAULT_TIMEOUT, _run, compile_timeout  # noqa: F401
from .cache_entries import (  # noqa: F401
    ABSENT,
    DAMAGED,
    RECORD,
    UNSAFE,
    _check_entry,
    _dir_problem,
    _flocked,
    _heal,
    _move_aside,
    _open_checked,
    _read_fd,
    _shard,
    _write_private)
from .cache_report import (  # noqa: F401
    PKG,
    CacheWarning,
    CompileError,
    CompileTimeout,
    _count,
    _lock,
    stats)
from .cache_trust import cache_dir, _write_failed  # noqa: F401

INCLUDE = os.path.join(PKG, "_porta", "include")
LIBDIR = os.path.join(PKG, "_porta", "lib")
VERSION = "0.2.0"


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
    -O3 took 1.51 s for a 3-kernel module). A module's reductions never take an end
    (porta/reduce_end.h: only C code can give one), so their kernels with an end are left out
    (PORTA_CUDA_NO_REDUCE_END). PORTA_NVCCFLAGS adds more."""
    a = cuda_arch()
    f = ["-x", "cu", "-std=c++17", "-O1", "-shared", "--cudart=shared",
         "--generate-code=arch=compute_%s,code=[compute_%s,sm_%s]" % (a, a, a),
         "-Xcompiler=-fPIC,-fopenmp,-march=native,-fvisibility=hidden,-Wall,-Wextra,"
         "-Wno-unused-parameter", "-DPORTA_CUDA_NO_REDUCE_END"] + [
             "-Xcompiler=" + x for x in vector_width_flags()]
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
