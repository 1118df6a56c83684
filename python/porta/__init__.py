"""Porta from Python: kernels written in a typed subset of Python, translated to Porta C,
compiled by the system C compiler, cached, and launched on the back end chosen at run time
(docs/python.md).

    import numpy as np, porta

    @porta.kernel
    def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
        y[i] += a * x[i]

    porta.init(backend="openmp", threads=2)      # optional: the first launch initialises
    porta.parallel_for(len(x), axpy, 2.0, x, y)  # NumPy arrays are passed without a copy
"""
import atexit
import sys

from . import _core
from ._core import PortaError
from .cache import CompileError
from .kernel import Kernel, clear_specialisations, kernel
from .kernel import BoundKernel, function, reducer, workload  # issue 29: teams, scans, ...
from .translate import TranslationError
from .types import (ArrayType, AccType, DType, Max, Min, Prod, Sum, boolean, f32, f64, i32,
                    i64, u8)
from .types import MaxLoc, MinLoc
from .device import AUTO, TeamMember  # noqa: E402 - kernels' team annotations and intrinsics
from .device import INTRINSICS as _INTRINSICS
from .views import (ALL, View, create_mirror, create_mirror_view,  # issue 29: views, arrays
                    create_mirror_view_and_copy, deep_copy, subview)

globals().update(_INTRINSICS)  # porta.team_thread_range, porta.atomic_add, porta.scratch ...

__all__ = ["init", "finalize", "is_initialized", "kernel", "parallel_for", "parallel_reduce",
           "RangePolicy", "MDRangePolicy", "fence", "backend", "num_threads",
           "set_num_threads", "deterministic", "set_deterministic", "TranslationError",
           "CompileError", "PortaError", "f64", "f32", "i64", "i32", "u8", "boolean", "Sum",
           "Prod", "Min", "Max", "Kernel"]
__all__ += ["parallel_scan", "TeamPolicy", "TeamMember", "AUTO", "MinLoc", "MaxLoc", "function",
            "reducer", "workload", "BoundKernel"] + sorted(_INTRINSICS)
__all__ += ["View", "ALL", "subview", "deep_copy", "create_mirror", "create_mirror_view",
            "create_mirror_view_and_copy", "cuda_built"]
cuda_built = bool(_core.CUDA_BUILT)
"""The package's libporta has the CUDA back end (nvcc was found by pip install)."""

parallel_for = _core.parallel_for
parallel_reduce = _core.parallel_reduce
parallel_scan = _core.parallel_scan
_finalizer_registered = False


def init(backend=None, threads=None, deterministic=None, args=None):
    """Start Porta (porta_initialize). backend: "serial", "openmp" or "cuda"; threads: OpenMP
    threads; deterministic: bitwise-reproducible reductions. `args` (default: the --porta-*
    options of sys.argv) are passed as on a C program's command line; PORTA_BACKEND,
    PORTA_NUM_THREADS, PORTA_DETERMINISTIC ... are read as in C, the arguments winning."""
    global _finalizer_registered
    if args is None:
        args = [a for a in sys.argv[1:] if a.startswith("--porta-")]
    opts = list(args)
    if backend is not None:
        opts.append("--porta-backend=" + backend)
    if threads is not None:
        opts.append("--porta-threads=%d" % threads)
    if deterministic is not None:
        opts.append("--porta-deterministic=%d" % (1 if deterministic else 0))
    _core.init(opts)
    if not _finalizer_registered:
        atexit.register(finalize)
        _finalizer_registered = True


def _ensure_init():
    if not _core.is_initialized():
        init()


def finalize():
    """porta_finalize (registered with atexit by init)."""
    _core.finalize()


is_initialized = _core.is_initialized
fence = _core.fence
num_threads = _core.num_threads
set_num_threads = _core.set_num_threads
deterministic = _core.deterministic
set_deterministic = _core.set_deterministic
backend_available = _core.backend_available


def backend():
    """The default back end's name."""
    _ensure_init()
    return _core.default_backend()


def _backend_id(space):
    if space is None:
        return -1
    _ensure_init()
    return _core.backend_id(space)


class RangePolicy:
    """The indices [begin, end), on `space` ("serial", "openmp", "cuda"; None: the default)."""

    __slots__ = ("_spec", "begin", "end", "space")

    def __init__(self, begin, end, space=None):
        self.begin, self.end, self.space = int(begin), int(end), space
        self._spec = (0, _backend_id(space), self.begin, self.end)


class MDRangePolicy:
    """The box [lower, upper) of rank 2 to 6 (the last index innermost on the host)."""

    __slots__ = ("_spec", "lower", "upper", "space")

    def __init__(self, lower, upper, space=None):
        lower, upper = tuple(int(v) for v in lower), tuple(int(v) for v in upper)
        if len(lower) != len(upper) or not 2 <= len(lower) <= 6:
            raise ValueError("MDRangePolicy: lower and upper of the same rank, 2 to 6")
        self.lower, self.upper, self.space = lower, upper, space
        self._spec = (1, _backend_id(space), len(lower), lower, upper)


class TeamPolicy:
    """A league of `league_size` teams of `team_size` threads (porta.AUTO: the back end's
    choice) with `vector_length` lanes each, on `space` (None: the default back end). A team
    kernel's scratch (porta.scratch ...) is requested by the launch from its arguments."""

    __slots__ = ("_spec", "league_size", "team_size", "vector_length", "space")

    def __init__(self, league_size, team_size=AUTO, vector_length=1, space=None):
        self.league_size, self.space = int(league_size), space
        self.team_size, self.vector_length = int(team_size), int(vector_length)
        self._spec = (2, _backend_id(space), self.league_size, self.team_size,
                      self.vector_length)
