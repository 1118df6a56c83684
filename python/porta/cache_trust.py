"""Whose code the compile cache (cache.py) loads: the cache directory and the private fallback.

The cache directory is checked once per process: a relative PORTA_CACHE_DIR is made absolute
(the compiler runs in another directory); the directory is created 0700 (missing parents too,
as the XDG spec asks), must be writable (access(2)), owned by this user and not writable by
group or others, and every directory above it must be owned by root or this user and not
writable by others unless it has the sticky bit (/tmp): else another user could put their code
where it is loaded from. A directory that fails is not used: a CacheWarning says why, naming
PORTA_CACHE_DIR, and the process compiles into a private temporary cache (0700, removed at
exit). So does a directory where a write fails all the same (root in /proc); one removed while
the program runs is made again. _owner_problem is also the test of every shard, entry and file
loaded (cache_entries.py).
"""
import atexit
import errno
import os
import shutil
import stat
import tempfile

from .cache_report import CompileError, _lock, _warn


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
