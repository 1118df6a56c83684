"""What the compile cache (cache.py) tells its user: its exceptions (CompileError,
CompileTimeout), the CacheWarning it gives at the user's line when the cache directory or an
entry is not used as it is, and its counters (porta.cache.stats: compiles, hits, rebuilds and the
last compile's seconds)."""
import os
import sys
import threading
import warnings

PKG = os.path.dirname(os.path.abspath(__file__))


class CompileError(Exception):
    """The C compiler rejected a generated module (the message holds its output, whose
    #line directives name the Python file and line), did not finish within
    PORTA_COMPILE_TIMEOUT, or the cache could not hold the module."""


class CompileTimeout(CompileError):
    """A compile did not finish within PORTA_COMPILE_TIMEOUT (its compiler was killed)."""


class CacheWarning(UserWarning):
    """The cache directory or an entry was not used as it is (the message says why)."""


# Their documented home, which tracebacks name: porta.cache (it imports them from here).
for _c in (CompileError, CompileTimeout, CacheWarning):
    _c.__module__ = "porta.cache"
del _c


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
