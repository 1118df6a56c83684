"""Compile and cache generated modules (docs/python.md, "The cache").

An entry is a directory $PORTA_CACHE_DIR/<k[:2]>/<k>/ (default ~/.cache/porta) holding the
generated <module>.c, the compiled module.so and the command that built it, where k is the
SHA-256 of: the generated C, Porta's version and the hash of its installed headers, the
compiler's identity (its `--version` text and path) and flags, and the machine (architecture,
CPU model and flags: -march=native code is the CPU's). An entry is built in a temporary
directory beside it and renamed into place (atomic) under an flock on <k>.lock: concurrent
processes (MPI ranks of a node) compile once, the others wait and load it. A kernel edited in
any way changes the C, so it is rebuilt; a changed compiler or flag changes the key too.

Kernels launched on the CUDA back end run from a second entry of the same C compiled by nvcc
as CUDA (-x cu, as CMake compiles Porta's kernel files in a CUDA build), made when CUDA is
first used: its key holds nvcc's identity, its flags and the GPU architecture, and the host
compiler nvcc drives. In a CUDA build the C compiler's modules define PORTA_HOST_KERNELS_ONLY
(they hold the host back ends' launchers only).
"""
import fcntl
import hashlib
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time

from . import _buildinfo

PKG = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(PKG, "_porta", "include")
LIBDIR = os.path.join(PKG, "_porta", "lib")
VERSION = "0.2.0"


class CompileError(Exception):
    """The C compiler rejected a generated module; the message holds its output, whose
    #line directives name the Python file and line."""


def cache_dir():
    d = os.environ.get("PORTA_CACHE_DIR")
    if not d:
        d = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                         os.path.join(os.path.expanduser("~"), ".cache"), "porta")
    return d


def compiler():
    return os.environ.get("PORTA_CC", "cc")


def flags():
    """The compiler flags of a generated module (PORTA_CFLAGS adds more, e.g. -g)."""
    f = ["-std=c11", "-O3", "-march=native", "-fPIC", "-shared", "-fopenmp",
         "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"]
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
    if stamp in _ident:
        return _ident[stamp]
    memo = os.path.join(cache_dir(), "compilers",
                        hashlib.sha256(stamp.encode()).hexdigest()[:32] + ".json")
    try:
        with open(memo) as fh:
            ident = json.load(fh)["identity"]
    except (OSError, ValueError, KeyError):
        out = subprocess.run([real, "--version"], capture_output=True, text=True)
        ident = real + "\n" + out.stdout
        os.makedirs(os.path.dirname(memo), exist_ok=True)
        tmp = memo + ".%d.tmp" % os.getpid()
        with open(tmp, "w") as fh:
            json.dump({"stamp": stamp, "identity": ident}, fh)
        os.replace(tmp, memo)
    _ident[stamp] = ident
    return ident


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


stats = {"compiles": 0, "hits": 0, "last_compile_s": 0.0}


def build(c_source, module_name, cuda=False):
    """The path of the compiled module for `c_source`: from the cache, else compiled now (by
    nvcc for the CUDA back end when `cuda`)."""
    cc = nvcc() if cuda else compiler()
    cflags = nvcc_flags() if cuda else flags()
    k = key(c_source, cc, cflags, cuda)
    shard = os.path.join(cache_dir(), k[:2])
    entry = os.path.join(shard, k)
    so = os.path.join(entry, "module.so")
    if os.path.exists(so):
        stats["hits"] += 1
        return so
    os.makedirs(shard, exist_ok=True)
    with open(os.path.join(shard, k + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if os.path.exists(so):  # another process built it while we waited
                stats["hits"] += 1
                return so
            tmp = tempfile.mkdtemp(prefix=".tmp-", dir=shard)
            try:
                cfile = os.path.join(tmp, module_name + ".c")
                with open(cfile, "w") as fh:
                    fh.write(c_source)
                rpath = ("-Xlinker=-rpath," if cuda else "-Wl,-rpath,") + LIBDIR
                cmd = [cc] + cflags + ["-I" + INCLUDE, cfile, "-o", os.path.join(tmp, "module.so"),
                       "-L" + LIBDIR, rpath, "-lporta", "-lm"]
                t0 = time.perf_counter()
                r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
                stats["last_compile_s"] = time.perf_counter() - t0
                if r.returncode != 0:
                    raise CompileError("compiling the kernels of module '%s'%s failed:\n%s%s"
                                       % (module_name, " with nvcc" if cuda else "",
                                          r.stderr, r.stdout))
                if cuda:
                    stats["nvcc_compiles"] = stats.get("nvcc_compiles", 0) + 1
                    stats["last_nvcc_compile_s"] = stats["last_compile_s"]
                stats["compiles"] += 1
                with open(os.path.join(tmp, "build.txt"), "w") as fh:
                    fh.write(" ".join(cmd) + "\n" + r.stderr)
                os.rename(tmp, entry)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return so
