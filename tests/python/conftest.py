"""pytest setup of Porta's Python tests (docs/python.md, "Tests").

Run them with the venv that scripts/test (or scripts/python-env) makes:
    build/python-venv/bin/python -m pytest tests/python
Each test process uses a fresh kernel cache (a temporary PORTA_CACHE_DIR), initialises Porta
once on OpenMP, and runs every kernel on each host back end through the `space` fixture:
Serial, OpenMP with 1 thread and OpenMP with 2 threads (policies name the space).
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def pytest_configure(config):
    import tempfile

    if "PORTA_CACHE_DIR" not in os.environ:
        os.environ["PORTA_CACHE_DIR"] = tempfile.mkdtemp(prefix="porta-pytest-cache-")
        config._porta_tmp_cache = os.environ["PORTA_CACHE_DIR"]
    import porta

    if not porta.is_initialized():
        porta.init(backend="openmp", threads=2, args=[])


def pytest_unconfigure(config):
    import shutil

    d = getattr(config, "_porta_tmp_cache", None)
    if d:
        shutil.rmtree(d, ignore_errors=True)


SPACES = [("serial", 1), ("openmp", 1), ("openmp", 2)]


class Space:
    """A host back end with a thread count: makes policies on it."""

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


@pytest.fixture(params=SPACES, ids=["serial", "openmp1", "openmp2"])
def space(request):
    import porta

    name, threads = request.param
    if not porta.backend_available(name):
        pytest.skip("back end %s not available" % name)
    porta.set_num_threads(threads)
    yield Space(name, threads)
    porta.set_num_threads(2)


@pytest.fixture
def root():
    return ROOT
