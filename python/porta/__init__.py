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
import operator
import os
import sys

# libgomp reads its environment once, when it is loaded (with porta._core below). Its default
# wait between parallel regions spins 300000 times before sleeping. On cores of its own that is
# what makes launches and team barriers fast (2 cores, OpenMP x2: a team SpMV 3.5 ms and the LJ
# force 1.34 ms, against 7.7 and 2.25 ms with 1000 spins); where more threads are busy than
# there are cores, the spinning threads take the time slices the working ones need (2 CPUs, one
# busy: 8 ms a small launch; the Python TeaLeaf on tea_bm_2 1.0 to 54 s instead of 0.3 to
# 0.6 s). So where this process will run more threads than the CPUs it may use (its affinity;
# with the ranks of this node when it is not bound), known here from PORTA_NUM_THREADS,
# OMP_NUM_THREADS or --porta-threads, the wait spins 1000 times (small launches 40-51 us on
# the busy machine). The user's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins (OMP_WAIT_POLICY=passive
# where cores are shared with other work that Porta cannot see); the variable is removed again
# after the load, so that the programs this one starts do not inherit it.
OMP_SPINCOUNT_OVERSUBSCRIBED = 1000


def _threads_wanted():
    """The OpenMP threads this process asks for at start (None: OpenMP's default)."""
    for a in sys.argv[1:]:
        if a.startswith("--porta-threads="):
            return a.split("=", 1)[1]
    return os.environ.get("PORTA_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")


def _oversubscribed():
    """Whether the threads asked for, times this node's ranks where the process is not bound,
    exceed the CPUs the process may run on."""
    try:
        cpus = len(os.sched_getaffinity(0))
        wanted = _threads_wanted()
        threads = int(str(wanted).split(",")[0]) if wanted else cpus
        ranks = 1
        if cpus == os.cpu_count():  # not bound: the node's ranks share these CPUs
            for v in ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"):
                if os.environ.get(v, "").isdigit():
                    ranks = int(os.environ[v])
                    break
        return threads * ranks > cpus
    except (AttributeError, OSError, ValueError):
        return False


_omp_env_set = "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ \
    and _oversubscribed()
if _omp_env_set:
    os.environ["GOMP_SPINCOUNT"] = str(OMP_SPINCOUNT_OVERSUBSCRIBED)
try:
    from . import _core
finally:
    if _omp_env_set:
        del os.environ["GOMP_SPINCOUNT"]
from ._core import PortaError
from .cache import CompileError
from .kernel import Kernel, clear_specialisations, kernel
from .kernel import bounds_check, set_bounds_check  # issue 53: the checked mode
from .kernel import BoundKernel, function, reducer, workload  # issue 29: teams, scans, ...
from .translate import TranslationError
from .types import (ArrayType, AccType, DType, Max, Min, Prod, Sum, boolean, f32, f64, i32,
                    i64, u8)
from .types import MaxLoc, MinLoc
from .types import ExactSum  # issue 66: the exact sum (porta_xsum_f64)
from .device import AUTO, TeamMember  # noqa: E402 - kernels' team annotations and intrinsics
from .device import INTRINSICS as _INTRINSICS
from .views import (ALL, View, create_mirror, create_mirror_view,  # issue 29: views, arrays
                    create_mirror_view_and_copy, deep_copy, subview)

globals().update(_INTRINSICS)  # porta.team_thread_range, porta.atomic_add, porta.scratch ...

__all__ = ["init", "finalize", "is_initialized", "kernel", "parallel_for", "parallel_reduce",
           "RangePolicy", "MDRangePolicy", "fence", "backend", "num_threads",
           "set_num_threads", "deterministic", "set_deterministic", "TranslationError",
           "CompileError", "PortaError", "f64", "f32", "i64", "i32", "u8", "boolean", "Sum",
           "Prod", "Min", "Max", "Kernel", "bounds_check", "set_bounds_check"]
__all__ += ["parallel_scan", "TeamPolicy", "TeamMember", "AUTO", "MinLoc", "MaxLoc", "function",
            "reducer", "workload", "BoundKernel", "ExactSum"] + sorted(_INTRINSICS)
__all__ += ["View", "ALL", "subview", "deep_copy", "create_mirror", "create_mirror_view",
            "create_mirror_view_and_copy", "cuda_built"]
cuda_built = bool(_core.CUDA_BUILT)
"""The package's libporta has the CUDA back end (nvcc was found by pip install)."""

parallel_for = _core.parallel_for
parallel_reduce = _core.parallel_reduce
parallel_scan = _core.parallel_scan
_finalizer_registered = False


def init(backend=None, threads=None, deterministic=None, args=None, bounds_check=None):
    """Start Porta (porta_initialize). backend: "serial", "openmp" or "cuda"; threads: OpenMP
    threads; deterministic: bitwise-reproducible reductions. `args` (default: the --porta-*
    options of sys.argv) are passed as on a C program's command line; PORTA_BACKEND,
    PORTA_NUM_THREADS, PORTA_DETERMINISTIC ... are read as in C, the arguments winning.
    bounds_check=True: the checked mode for every kernel without its own option (as
    PORTA_BOUNDS_CHECK=1 and porta.set_bounds_check(True)): array accesses are checked and the
    first bad one of a launch raises IndexError after it."""
    global _finalizer_registered
    if bounds_check is not None:
        set_bounds_check(bounds_check)
    if args is None:
        args = [a for a in sys.argv[1:] if a.startswith("--porta-")]
    opts = list(args)
    if backend is not None:
        opts.append("--porta-backend=" + backend)
    if threads is not None:
        opts.append("--porta-threads=%d" % _integer(threads, "porta.init", "threads"))
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
deterministic = _core.deterministic


def set_num_threads(n):
    """The OpenMP back end's threads from now on. Before porta.init() it initialises Porta
    first (with the defaults), so that the setting is not lost to the first launch's init."""
    _ensure_init()
    _core.set_num_threads(n)


def set_deterministic(flag):
    """Bitwise-reproducible reductions from now on (initialising Porta first, as
    set_num_threads)."""
    _ensure_init()
    _core.set_deterministic(flag)
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


def _integer(value, where, name):
    """`value` as an int: any integer (int, bool, NumPy's integers: anything with __index__, as
    numbers.Integral), never a float or a string, which raise TypeError naming `where` and
    `name`."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s: %s must be an integer, not %s (%r)"
                        % (where, name, type(value).__name__, value)) from None


def _integers(values, where, name):
    try:
        items = tuple(values)
    except TypeError:
        raise TypeError("%s: %s must be a sequence of integers, not %s"
                        % (where, name, type(values).__name__)) from None
    return tuple(_integer(v, where, "%s[%d]" % (name, r)) for r, v in enumerate(items))


class RangePolicy:
    """The indices [begin, end), on `space` ("serial", "openmp", "cuda"; None: the default).
    begin and end are integers (int or NumPy's)."""

    __slots__ = ("_spec", "begin", "end", "space")

    def __init__(self, begin, end, space=None):
        self.begin = _integer(begin, "RangePolicy", "begin")
        self.end = _integer(end, "RangePolicy", "end")
        self.space = space
        self._spec = (0, _backend_id(space), self.begin, self.end)


class MDRangePolicy:
    """The box [lower, upper) of rank 2 to 6 (the last index innermost on the host); the bounds
    are integers (int or NumPy's)."""

    __slots__ = ("_spec", "lower", "upper", "space")

    def __init__(self, lower, upper, space=None):
        lower = _integers(lower, "MDRangePolicy", "lower")
        upper = _integers(upper, "MDRangePolicy", "upper")
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
        self.league_size = _integer(league_size, "TeamPolicy", "league_size")
        self.team_size = _integer(team_size, "TeamPolicy", "team_size")
        self.vector_length = _integer(vector_length, "TeamPolicy", "vector_length")
        self.space = space
        self._spec = (2, _backend_id(space), self.league_size, self.team_size,
                      self.vector_length)
