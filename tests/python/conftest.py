"""pytest setup of Porta's Python tests (docs/python.md, "Tests").

Run them with the venv that scripts/test (or scripts/python-env) makes:
    build/python-venv/bin/python -m pytest tests/python
Each test process uses a fresh kernel cache (a temporary PORTA_CACHE_DIR), initialises Porta
once on OpenMP, and runs every kernel on each host back end through the `space` fixture:
Serial, OpenMP with 1 thread and OpenMP with 2 threads (policies name the space).

On a GPU, `pytest tests/python --porta-backend=cuda` (or PORTA_BACKEND=cuda) initialises Porta on
CUDA and the `space` fixture is the CUDA back end alone. The tests' NumPy arguments of a launch
on CUDA are staged through device memory, since a CUDA kernel cannot read NumPy's host memory
(it raises TypeError, test_views_gpu checks that): each array's bytes are copied into a View of
space "cuda", passed through __cuda_array_interface__ with the array's own shape and strides
(C order, Fortran order and strided arrays keep their layouts), and copied back after the
launch. Arrays sharing memory share one device copy. Views and device arrays pass as they are.
PORTA_TEST_STAGE=host stages the host back ends' launches the same way through host Views (a
check of the staging itself).
"""
import ctypes
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

HOST_SPACES = [("serial", 1), ("openmp", 1), ("openmp", 2)]
HOST_IDS = ["serial", "openmp1", "openmp2"]


def pytest_addoption(parser):
    parser.addoption("--porta-backend", default=None,
                     help="cuda: run the kernels on the CUDA back end (default: PORTA_BACKEND "
                          "if it is cuda, else Serial, OpenMP x1 and OpenMP x2)")


def cuda_run(config=None):
    """The tests run on the CUDA back end (--porta-backend=cuda or PORTA_BACKEND=cuda)."""
    opt = config.getoption("--porta-backend") if config is not None else None
    return (opt or os.environ.get("PORTA_BACKEND", "")).lower() == "cuda"


def pytest_configure(config):
    import tempfile

    if "PORTA_CACHE_DIR" not in os.environ:
        os.environ["PORTA_CACHE_DIR"] = tempfile.mkdtemp(prefix="porta-pytest-cache-")
        config._porta_tmp_cache = os.environ["PORTA_CACHE_DIR"]
    import porta

    global CUDA
    CUDA = cuda_run(config)
    if not porta.is_initialized():
        if CUDA:
            try:
                porta.init(backend="cuda", args=[])
            except porta.PortaError as e:
                pytest.exit("--porta-backend=cuda: %s" % e, returncode=2)
        else:
            porta.init(backend="openmp", threads=2, args=[])
    if CUDA and porta.backend() != "cuda":
        pytest.exit("--porta-backend=cuda: Porta runs %s (CUDA built: %s)"
                    % (porta.backend(), porta.cuda_built), returncode=2)
    stage = "cuda" if CUDA else os.environ.get("PORTA_TEST_STAGE", "")
    if stage:
        install_staging(porta, stage)


def pytest_unconfigure(config):
    import shutil

    d = getattr(config, "_porta_tmp_cache", None)
    if d:
        shutil.rmtree(d, ignore_errors=True)


CUDA = False


class Space:
    """A back end with a thread count: makes policies on it."""

    def __init__(self, name, threads):
        self.name, self.threads = name, threads
        self.mem = "cuda" if name == "cuda" else "host"  # the memory space of its views

    def range(self, n, begin=0):
        import porta

        return porta.RangePolicy(begin, n, space=self.name)

    def md(self, lower, upper):
        import porta

        return porta.MDRangePolicy(lower, upper, space=self.name)

    def __repr__(self):
        return "%s%d" % (self.name, self.threads)


def pytest_generate_tests(metafunc):
    if "space" in metafunc.fixturenames:
        if cuda_run(metafunc.config):
            metafunc.parametrize("space", [("cuda", 1)], ids=["cuda"], indirect=True)
        else:
            metafunc.parametrize("space", HOST_SPACES, ids=HOST_IDS, indirect=True)


@pytest.fixture
def space(request):
    import porta

    name, threads = request.param
    if not porta.backend_available(name):
        pytest.skip("back end %s not available" % name)
    if name == "cuda":
        yield Space(name, threads)
        return
    porta.set_num_threads(threads)
    yield Space(name, threads)
    porta.set_num_threads(2)


@pytest.fixture
def root():
    return ROOT


# ---- staging NumPy arguments through device memory (CUDA runs) ----

def _bounds(a):
    """[lo, hi) of the bytes array `a` touches."""
    lo = hi = a.ctypes.data
    for n, s in zip(a.shape, a.strides):
        if n == 0:
            return lo, lo
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + a.itemsize


class _Staged:
    """A NumPy array's place in a staged copy: its shape, dtype and strides over device memory
    (__cuda_array_interface__), or over a host View (PORTA_TEST_STAGE=host)."""

    def __init__(self, a, view, offset, cuda):
        self._view = view  # keeps the copy alive
        ptr = view.data_ptr + offset if view is not None else 0
        if cuda:
            self.__cuda_array_interface__ = {
                "shape": a.shape, "typestr": a.dtype.str, "strides": a.strides,
                "data": (ptr, not a.flags.writeable), "version": 3}
        else:
            import numpy as np

            buf = np.asarray(view) if view is not None else np.zeros(0, np.uint8)
            self.host = np.ndarray(a.shape, a.dtype, buffer=buf, offset=offset,
                                   strides=a.strides)
            if not a.flags.writeable:
                self.host.flags.writeable = False


def install_staging(porta, space):
    """Wrap porta.parallel_for / _reduce / _scan: on a launch on `space`'s back end (cuda, or
    host for PORTA_TEST_STAGE=host), NumPy arguments are copied to Views of that space."""
    import numpy as np

    cuda = space == "cuda"

    def launches_on(policy):
        if space != "cuda":
            return True
        name = getattr(policy, "space", None)
        return (name or porta.backend()) == "cuda"

    def stage(values):
        arrays = [(k, v) for k, v in values if isinstance(v, np.ndarray) and v.ndim > 0]
        regions = []  # [lo, hi, [keys]] merged where arrays share memory
        for k, a in sorted(arrays, key=lambda kv: _bounds(kv[1])[0]):
            lo, hi = _bounds(a)
            if regions and lo < regions[-1][1]:
                regions[-1][1] = max(regions[-1][1], hi)
                regions[-1][2].append((k, a))
            else:
                regions.append([lo, hi, [(k, a)]])
        staged, back = {}, []
        for lo, hi, members in regions:
            view = None
            if hi > lo:
                host = np.ctypeslib.as_array((ctypes.c_uint8 * (hi - lo)).from_address(lo))
                view = porta.View(hi - lo, np.uint8, space="cuda" if cuda else "host",
                                  label="staged")
                porta.deep_copy(view, host)
                if any(a.flags.writeable for _, a in members):
                    back.append((host, view))
            for k, a in members:
                s = _Staged(a, view, a.ctypes.data - lo, cuda)
                staged[k] = s if cuda else s.host
        return staged, back

    def wrap(launch):
        def staged_launch(policy, kernel, *args, **kwargs):
            if isinstance(kernel, porta.BoundKernel) and not args and not kwargs:
                kernel, args = kernel._porta_launch  # a workload's fields are its arguments
            if not launches_on(policy) or isinstance(kernel, porta.BoundKernel):
                return launch(policy, kernel, *args, **kwargs)
            values = list(enumerate(args)) + list(kwargs.items())
            staged, back = stage(values)
            args = [staged.get(k, v) for k, v in enumerate(args)]
            kwargs = {k: staged.get(k, v) for k, v in kwargs.items()}
            try:
                return launch(policy, kernel, *args, **kwargs)
            finally:
                for host, view in back:
                    porta.deep_copy(host, view)

        staged_launch.__name__ = launch.__name__
        staged_launch.__wrapped__ = launch
        return staged_launch

    porta.parallel_for = wrap(porta._core.parallel_for)
    porta.parallel_reduce = wrap(porta._core.parallel_reduce)
    porta.parallel_scan = wrap(porta._core.parallel_scan)
