"""The compile cache's entries (cache.py) checked before a load, and healed.

Every load checks that the shard, the entry, module.so and module.json are what this user made
(owned by this user, not writable by group or others, a directory or a regular file, no
symbolic link), that the record names this key, and that module.so has the recorded size and
SHA-256. A shard or entry owned by another user or writable by others is never loaded from: a
CacheWarning names the path and what is wrong. It, or any partial or foreign content (an entry
without module.so or record, a truncated module.so, another entry's module.so, a file where a
directory belongs), is moved aside and the module compiled again, under the entry's lock.
Shards and entries are created 0700 and their files 0600 (dlopen needs read permission only).
"""
import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import stat

from .cache_report import CompileError, _count, _warn
from .cache_trust import _owner_problem

RECORD = "module.json"  # beside module.so: the key, and module.so's size and SHA-256

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
