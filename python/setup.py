"""Build of the `porta` Python package (docs/python.md).

build_ext does two things:
  1. CMake on the repository root: libporta as a shared library (no apps, tests or
     benchmarks), installed inside the package as porta/_porta/{lib,include}: the generated
     kernels compile against those headers and link that library;
  2. the extension porta._core (python/porta/_core.c) against Python's limited API (abi3,
     one binary for every Python >= 3.11), linked to that libporta with rpath $ORIGIN/_porta/lib.
No pybind11, no C++ framework: the extension is C11.

MPI: where an MPI C library is found (mpicc's -showme:compile / -showme:link, else
`pkg-config ompi-c` or `mpi`), CMake also builds the exchange library libporta_exchange
(core/exchange), and a second extension porta._exchange (porta/_exchange*.c, for
porta.exchange) links it and libmpi; `import porta` alone never loads MPI. PORTA_MPI=auto (the
default), 1 (insist) or 0 (leave it out). mpi4py (Debian's python3-mpi4py) must use the same MPI.

CUDA: PORTA_CUDA=auto (the default) builds libporta with its CUDA back end when nvcc is found
(on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin), PORTA_CUDA=1 insists on it, PORTA_CUDA=0
leaves it out. PORTA_CUDA_ARCH (default 90) names the GPU architectures (CMake's
CMAKE_CUDA_ARCHITECTURES); kernels launched on CUDA are compiled by the same nvcc for the first
of them (porta/cache.py).
"""
import hashlib
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIMITED = 0x030B0000  # 3.11: the buffer protocol is in the limited API from 3.11 on


def find_nvcc():
    """nvcc's path, or None: PORTA_CUDA=0 (off), 1 (required) or auto (default: if found)."""
    mode = os.environ.get("PORTA_CUDA", "auto").strip().lower()
    if mode in ("0", "off", "no", "false"):
        return None
    cands = [shutil.which("nvcc")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            cands.append(os.path.join(os.environ[var], "bin", "nvcc"))
    cands.append("/usr/local/cuda/bin/nvcc")
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.realpath(c)
    if mode in ("1", "on", "yes", "true"):
        raise RuntimeError("PORTA_CUDA=%s but no nvcc was found (PATH, $CUDA_HOME/bin, "
                           "/usr/local/cuda/bin)" % mode)
    return None


def _words(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.split() if r.returncode == 0 else None


def find_mpi():
    """(include_dirs, library_dirs, libraries) of the MPI C library, or None: PORTA_MPI=0 (off),
    1 (required) or auto (default: if found). mpicc first (Open MPI's -showme, MPICH's
    -compile_info / -link_info), then pkg-config."""
    mode = os.environ.get("PORTA_MPI", "auto").strip().lower()
    if mode in ("0", "off", "no", "false"):
        return None
    found = None
    mpicc = os.environ.get("MPICC") or shutil.which("mpicc")
    cands = []
    if mpicc:
        cands.append((_words([mpicc, "-showme:compile"]), _words([mpicc, "-showme:link"])))
    for pc in ("ompi-c", "mpi"):
        cands.append((_words(["pkg-config", "--cflags", pc]), _words(["pkg-config", "--libs", pc])))
    for cflags, libs in cands:
        if cflags is None or libs is None or not any(w.startswith("-lmpi") for w in libs):
            continue
        found = ([w[2:] for w in cflags if w.startswith("-I")],
                 [w[2:] for w in libs if w.startswith("-L")],
                 [w[2:] for w in libs if w.startswith("-l")])
        break
    if found is None and mode in ("1", "on", "yes", "true"):
        raise RuntimeError("PORTA_MPI=%s but no MPI was found (mpicc -showme, pkg-config "
                           "ompi-c / mpi)" % mode)
    return found


class CMakeBuildExt(build_ext):
    def run(self):
        pkg_dir = os.path.join(os.path.abspath(self.build_lib), "porta")
        prefix = os.path.join(pkg_dir, "_porta")
        nvcc = find_nvcc()
        arch = os.environ.get("PORTA_CUDA_ARCH", "90")
        # One build directory per variant: switching does not reconfigure the other.
        build_dir = os.path.join(ROOT, "build", "python-cmake" + ("-cuda" if nvcc else ""))
        cmake_args = [
            "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_SHARED_LIBS=ON",
            "-DPORTA_BUILD_APPS=OFF",
            "-DPORTA_BUILD_TESTS=OFF",
            "-DPORTA_BUILD_BENCHMARKS=OFF",
            "-DPORTA_BUILD_TUTORIAL=OFF",  # its C programs: half of a 2-core install's time
            "-DCMAKE_INSTALL_LIBDIR=lib",
            "-DCMAKE_INSTALL_PREFIX=" + prefix,
        ]
        if nvcc:
            cmake_args += ["-DPORTA_ENABLE_CUDA=ON", "-DCMAKE_CUDA_COMPILER=" + nvcc,
                           "-DCMAKE_CUDA_ARCHITECTURES=" + arch]
        else:
            cmake_args += ["-DPORTA_ENABLE_CUDA=OFF"]
        cmake_args += os.environ.get("PORTA_CMAKE_ARGS", "").split()
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir] + cmake_args)
        subprocess.check_call(["cmake", "--build", build_dir, "--parallel", jobs])
        if os.path.isdir(prefix):
            shutil.rmtree(prefix)
        subprocess.check_call(["cmake", "--install", build_dir])
        # Porta's Python-side header (the argument descriptions the generated modules export).
        shutil.copy(os.path.join(HERE, "porta", "include", "porta_py.h"),
                    os.path.join(prefix, "include", "porta_py.h"))
        # What the kernel cache key needs to know of this build: a hash of every installed
        # header (the generated C includes them) and the library's file name.
        h = hashlib.sha256()
        inc = os.path.join(prefix, "include")
        for d, _, files in sorted(os.walk(inc)):
            for f in sorted(files):
                p = os.path.join(d, f)
                h.update(os.path.relpath(p, inc).encode())
                with open(p, "rb") as fh:
                    h.update(fh.read())
        with open(os.path.join(pkg_dir, "_buildinfo.py"), "w") as fh:
            fh.write("# Generated by setup.py: what the kernel cache key needs of this build.\n")
            fh.write("HEADERS_SHA256 = %r\n" % h.hexdigest())
            fh.write("CMAKE_ARGS = %r\n" % ([a for a in cmake_args
                                                  if not a.startswith("-DCMAKE_INSTALL_PREFIX")],))
            # The CUDA back end: nvcc compiles the modules of kernels launched on CUDA.
            fh.write("CUDA = %r\n" % bool(nvcc))
            fh.write("NVCC = %r\n" % nvcc)
            fh.write("CUDA_ARCH = %r\n" % (arch.split(";")[0].split("-")[0] if nvcc else None))
        # The exchange extension needs MPI and the libporta_exchange CMake built with it.
        mpi = find_mpi()
        have_exchange = mpi is not None and any(
            f.startswith("libporta_exchange") for f in os.listdir(os.path.join(prefix, "lib")))
        if mpi is not None and not have_exchange:
            msg = "MPI was found but CMake did not build libporta_exchange (no MPI for CMake?)"
            if os.environ.get("PORTA_MPI", "auto").strip().lower() in ("1", "on", "yes", "true"):
                raise RuntimeError(msg)
            print("setup.py: " + msg + "; porta.exchange left out", file=sys.stderr)
        with open(os.path.join(pkg_dir, "_buildinfo.py"), "a") as fh:
            fh.write("MPI = %r\n" % have_exchange)
        self.extensions = [e for e in self.extensions
                           if e.name != "porta._exchange" or have_exchange]
        # The extensions link the libporta just installed, whose back ends (CUDA or not) may
        # have changed since they were built: setuptools compares only their own sources'
        # times, so it would keep a stale _core (porta.cuda_built telling the old build).
        # They are small (about 3 s): always rebuild them.
        self.force = True
        for ext in self.extensions:
            ext.include_dirs.append(os.path.join(prefix, "include"))
            ext.library_dirs.append(os.path.join(prefix, "lib"))
            if ext.name == "porta._exchange":
                ext.include_dirs.extend(mpi[0])
                ext.library_dirs.extend(mpi[1])
                ext.libraries.extend(mpi[2])
        super().run()


core = Extension(
    "porta._core",
    sources=["porta/_core.c", "porta/_dispatcher.c", "porta/_launch.c", "porta/_launch_args.c",
             "porta/_launch_checks.c", "porta/_launch_pieces.c", "porta/_arrays.c",
             "porta/_view.c", "porta/_view_functions.c"],
    depends=["porta/_arrays.h", "porta/_arrays_private.h", "porta/_core_private.h",
             "porta/_launch_private.h", "porta/_array_api.h",
             "porta/include/porta_py.h"],
    define_macros=[("Py_LIMITED_API", hex(LIMITED))],
    py_limited_api=True,
    libraries=["porta", "dl"],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-O2"],
    extra_link_args=["-Wl,-rpath,$ORIGIN/_porta/lib"],
)

# porta.exchange: built only where MPI is (CMakeBuildExt.run drops it otherwise).
exchange = Extension(
    "porta._exchange",
    sources=["porta/_exchange.c", "porta/_exchange_agree.c", "porta/_exchange_fields.c",
             "porta/_exchange_decomp.c", "porta/_exchange_halo.c", "porta/_exchange_plan.c"],
    depends=["porta/_exchange_private.h", "porta/_array_api.h"],
    define_macros=[("Py_LIMITED_API", hex(LIMITED))],
    py_limited_api=True,
    libraries=["porta_exchange", "porta"],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-O2"],
    extra_link_args=["-Wl,-rpath,$ORIGIN/_porta/lib"],
)

setup(
    ext_modules=[core, exchange],
    cmdclass={"build_ext": CMakeBuildExt},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
    zip_safe=False,
)
