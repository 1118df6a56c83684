"""The compile cache's safety (issue 53): what is loaded is what was built, by this user; the
cache heals from partial or foreign content; an unusable directory falls back to a private one;
compiles are limited in time and stopped by Ctrl-C; threads share the cache safely.

Most tests copy a cache built once for the module (kernels A, x = 2 i, and B, x = 6 i, whose
kernels have the same name), damage the copy and launch A in this process: the copy's paths
were never loaded here, so what the cache returns is what runs. A truncated module.so would
crash this interpreter before the fix, so that case runs in a child process. Tests of files
owned by another user chown them to uid 65534 (nobody) and need root; they are skipped
otherwise.
"""
import fcntl
import hashlib
import importlib
import json
import os
import pathlib
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import porta
from porta import cache

FILL = '''
import porta

@porta.kernel
def fill(i: int, x: porta.f64[:]):
    x[i] = VALUE * i
'''
N = 8
NOBODY = 65534
RECORD = "module.json"  # cache.RECORD: what was built, beside module.so
ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="making files of another user (chown to "
                                "uid 65534) needs root")


def write_module(d, name, value):
    (d / (name + ".py")).write_text(FILL.replace("VALUE", repr(float(value))))


def import_module(d, name):
    sys.path.insert(0, str(d))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(d))


def run_fill(mod):
    x = np.zeros(N)
    porta.parallel_for(porta.RangePolicy(0, N, space="serial"), mod.fill, x)
    return x


def loaded_path(mod):
    return mod.fill._unit.paths[-1]


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A cache holding kernels A (x = 2 i) and B (x = 6 i), and where their entries are."""
    d = tmp_path_factory.mktemp("cachesafe")
    old = os.environ.get("PORTA_CACHE_DIR")
    os.environ["PORTA_CACHE_DIR"] = str(d / "cache")
    try:
        mods = {}
        for tag, value in (("a", 2.0), ("b", 6.0)):
            name = "cache_%s_%s" % (tag, d.name)
            write_module(d, name, value)
            mods[tag] = import_module(d, name)
            np.testing.assert_array_equal(run_fill(mods[tag]), value * np.arange(N))
        root = os.path.realpath(d / "cache")
        rel = {t: os.path.relpath(os.path.dirname(loaded_path(m)), root) for t, m in mods.items()}
    finally:
        if old is None:
            del os.environ["PORTA_CACHE_DIR"]
        else:
            os.environ["PORTA_CACHE_DIR"] = old
    return SimpleNamespace(dir=d, cache=d / "cache", a=mods["a"], b=mods["b"], ea=rel["a"],
                           eb=rel["b"])


@pytest.fixture
def fresh(built, tmp_path, monkeypatch):
    """A copy of the built cache, in use (PORTA_CACHE_DIR), and its A and B entries."""
    def make(where=None):
        c = where or tmp_path / "cache"
        c.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(built.cache, c, symlinks=True)
        monkeypatch.setenv("PORTA_CACHE_DIR", str(c))
        return SimpleNamespace(root=c, ea=c / built.ea, eb=c / built.eb,
                               shard=c / os.path.dirname(built.ea))

    porta.clear_specialisations()
    yield make
    porta.clear_specialisations()


def plant_b_in_a(f):
    """B's module.so in A's entry with a record that matches it: what anyone who can write
    there could do."""
    shutil.copyfile(f.eb / "module.so", f.ea / "module.so")
    data = (f.ea / "module.so").read_bytes()
    (f.ea / RECORD).write_text(json.dumps(
        {"key": f.ea.name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}))


def assert_sound(entry):
    """entry is this user's, private, and its module.so is what its record says."""
    for p in [entry] + [entry / n for n in os.listdir(entry)]:
        st = os.lstat(p)
        assert st.st_uid == os.geteuid()
        assert stat.S_IMODE(st.st_mode) == (0o700 if p == entry else 0o600), p
    rec = json.loads((entry / RECORD).read_text())
    data = (entry / "module.so").read_bytes()
    assert rec == {"key": entry.name, "size": len(data),
                   "sha256": hashlib.sha256(data).hexdigest()}


def a_is_right(built, f=None):
    """Launch A: x = 2 i (B's kernel would give 6 i), from an entry that is sound."""
    np.testing.assert_array_equal(run_fill(built.a), 2.0 * np.arange(N))
    entry = os.path.dirname(loaded_path(built.a))
    if f is not None:
        assert os.path.realpath(entry) == os.path.realpath(f.ea)
    assert_sound(pathlib.Path(entry))


def launch_a_warned(built):
    """Launch A (x = 2 i, where B's kernel gives 6 i) and return the CacheWarning it gave."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(run_fill(built.a), 2.0 * np.arange(N))
    w = [m for m in w if m.category.__name__ == "CacheWarning"]
    assert len(w) == 1, [str(m.message) for m in w]
    a_is_right(built)  # sound, and a hit now
    return w[0]


# ---- threads ----

def test_compiler_memo_from_threads(tmp_path, monkeypatch):
    """8 threads asking for the compiler's identity at once (their first launch) all get it:
    the memo's temporary file is unique (it was named by the process id alone, and a thread's
    rename found it gone: FileNotFoundError)."""
    monkeypatch.setattr(cache, "_ident", {})
    errors, idents = [], []
    for r in range(10):
        monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / ("cache%d" % r)))
        cache._ident.clear()
        barrier = threading.Barrier(8)

        def ask():
            barrier.wait()
            try:
                idents.append(cache.compiler_identity(cache.compiler()))
            except Exception as e:  # reported below
                errors.append(repr(e))

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        memos = tmp_path / ("cache%d" % r) / "compilers"
        assert [n for n in os.listdir(memos) if n.endswith(".tmp")] == []
    assert errors == []
    assert len(idents) == 80 and len(set(idents)) == 1


def test_build_from_threads(tmp_path, monkeypatch):
    """4 threads building one new module at once compile it once and all get its path; 4
    threads building 4 modules compile 4, each sound."""
    monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_ident", {})  # the first launch: the memo is written too

    def together(sources):
        barrier, out = threading.Barrier(len(sources)), []

        def go(src):
            barrier.wait()
            try:
                out.append(cache.build(src, "threads"))
            except Exception as e:  # returned, checked below
                out.append(e)

        threads = [threading.Thread(target=go, args=(s,)) for s in sources]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out

    c0 = cache.stats["compiles"]
    paths = together(["int porta_cache_threads(void) { return 1; }\n"] * 4)
    assert len(set(paths)) == 1 and cache.stats["compiles"] == c0 + 1, paths
    paths = together(["int porta_cache_threads(void) { return %d; }\n" % v
                      for v in range(2, 6)])
    assert len(set(paths)) == 4 and cache.stats["compiles"] == c0 + 5, paths
    for p in paths:
        assert_sound(pathlib.Path(p).parent)


# ---- a damaged, partial or foreign entry is rebuilt, never loaded ----

CHILD = textwrap.dedent('''
    import sys, numpy as np
    sys.path.insert(0, sys.argv[1])
    import porta
    m = __import__(sys.argv[2])
    x = np.zeros(%d)
    porta.parallel_for(porta.RangePolicy(0, %d, space="serial"), m.fill, x)
    print(" ".join(repr(float(v)) for v in x), porta.cache.stats["compiles"])
''' % (N, N))


def test_truncated_module_rebuilt(built, fresh):
    """A truncated module.so (a full disk, a killed copy) crashed the interpreter (SIGBUS) at
    its load: now the entry is rebuilt and the kernel runs (in a child process)."""
    f = fresh()
    so = f.ea / "module.so"
    os.truncate(so, os.path.getsize(so) // 2)
    r = subprocess.run([sys.executable, "-c", CHILD, str(built.dir), built.a.__name__],
                       env=dict(os.environ, PORTA_BACKEND="serial"), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr)
    out = r.stdout.split()
    assert [float(v) for v in out[:-1]] == [2.0 * i for i in range(N)]
    assert out[-1] == "1"  # compiled again
    assert_sound(f.ea)


DAMAGES = {
    "another entry's module.so": lambda f: shutil.copyfile(f.eb / "module.so",
                                                           f.ea / "module.so"),
    "module.so a link to another's": lambda f: (os.unlink(f.ea / "module.so"),
                                                os.symlink(f.eb / "module.so",
                                                           f.ea / "module.so")),
    "no module.so": lambda f: os.unlink(f.ea / "module.so"),
    "module.so a directory": lambda f: (os.unlink(f.ea / "module.so"),
                                        os.mkdir(f.ea / "module.so")),
    "no record": lambda f: os.unlink(f.ea / RECORD),
    "record of another shape": lambda f: (f.ea / RECORD).write_text("[1, 2]"),
    "record of another entry": lambda f: shutil.copyfile(f.eb / RECORD,
                                                         f.ea / RECORD),
    "entry a file": lambda f: (shutil.rmtree(f.ea), f.ea.write_text("x")),
    "shard a file": lambda f: (shutil.rmtree(f.shard), f.shard.write_text("x")),
    "lock a directory": lambda f: (shutil.rmtree(f.ea), os.unlink(str(f.ea) + ".lock"),
                                   os.mkdir(str(f.ea) + ".lock")),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damaged_entry_heals(built, fresh, damage):
    """Partial or foreign content where A's entry belongs is moved aside and A compiled again
    (before: B's kernel ran, 6 i; or every run failed with OSError 'Directory not empty' or
    IsADirectoryError); the next load is a plain hit."""
    f = fresh()
    DAMAGES[damage](f)
    c0, r0 = cache.stats["compiles"], cache.stats.get("rebuilds", 0)
    a_is_right(built, f)
    assert cache.stats["compiles"] == c0 + 1
    assert cache.stats["rebuilds"] == r0 + (damage not in ("lock a directory",))
    assert not [n for n in os.listdir(f.shard) if n.startswith((".bad-", ".tmp-"))]
    porta.clear_specialisations()
    h0 = cache.stats["hits"]
    a_is_right(built, f)
    assert cache.stats["compiles"] == c0 + 1 and cache.stats["hits"] == h0 + 1


@pytest.mark.parametrize("content", ["[1, 2]", '{"identity": 5}', "null", '"x"', '{"sta',
                                     "a directory", "compilers a file"])
def test_compiler_memo_heals(tmp_path, monkeypatch, content):
    """A compiler memo of another shape failed every run (TypeError), a directory in its place
    or a file in place of compilers/ failed every compile: now it is asked again and
    rewritten."""
    monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_ident", {})
    ident = cache.compiler_identity(cache.compiler())
    memos = tmp_path / "cache" / "compilers"
    [memo] = [memos / n for n in os.listdir(memos)]
    if content == "a directory":
        memo.unlink()
        memo.mkdir()
    elif content == "compilers a file":
        shutil.rmtree(memos)
        memos.write_text("x")
    else:
        memo.write_text(content)
    cache._ident.clear()
    assert cache.compiler_identity(cache.compiler()) == ident
    assert json.loads(memo.read_text())["identity"] == ident
    assert mode(memo) == 0o600 and mode(memos) == 0o700


# ---- a relative PORTA_CACHE_DIR ----

def test_relative_cache_dir(built, fresh, tmp_path, monkeypatch):
    """A relative PORTA_CACHE_DIR is taken from the working directory (every compile failed:
    the compiler runs in another directory)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PORTA_CACHE_DIR", os.path.join("rel", "cache"))
    c0 = cache.stats["compiles"]
    a_is_right(built)
    assert cache.stats["compiles"] == c0 + 1
    assert loaded_path(built.a).startswith(os.path.realpath(tmp_path / "rel" / "cache") + "/")


# ---- an unusable PORTA_CACHE_DIR ----

def unusable(tmp_path, where):
    if where == "under a file":
        (tmp_path / "file").write_text("x")
        return str(tmp_path / "file" / "cache"), "Not a directory"
    if where == "in /proc":
        return "/proc/porta-cache-test", "No such file or directory"
    if where == "/proc itself":  # root passes access(2) there: the first write fails
        return "/proc", "writing in it failed" if ROOT else "owned by uid 0"
    d = tmp_path / "readonly"
    d.mkdir(mode=0o500)
    return str(d), "Permission denied"


@pytest.mark.parametrize("where", [
    "under a file", "in /proc", "/proc itself",
    pytest.param("read-only", marks=pytest.mark.skipif(
        ROOT, reason="root writes into a mode 0500 directory (test_second_user runs it as "
        "uid 65534)"))])
def test_unusable_cache_dir(built, fresh, tmp_path, monkeypatch, where):
    """An unusable PORTA_CACHE_DIR gave a raw OSError that did not name it: now a CacheWarning
    names PORTA_CACHE_DIR, the path and what is wrong, and a private temporary cache (0700) is
    used."""
    d, why = unusable(tmp_path, where)
    monkeypatch.setenv("PORTA_CACHE_DIR", d)
    w = launch_a_warned(built)
    msg = str(w.message)
    assert "PORTA_CACHE_DIR=" + d in msg and why in msg, msg
    # the user's line: here, or conftest's staging wrapper of parallel_for on a CUDA run
    assert os.path.dirname(w.filename) == os.path.dirname(__file__)
    private = cache.cache_dir()
    assert private != d and loaded_path(built.a).startswith(private + "/")
    assert mode(private) == 0o700 and os.lstat(private).st_uid == os.geteuid()
    assert os.path.dirname(private) == tempfile.gettempdir()


def test_cache_dir_removed_while_running(built, fresh, tmp_path, monkeypatch):
    """A cache directory removed while a program runs is made again at the next compile."""
    f = fresh()
    a_is_right(built, f)
    shutil.rmtree(f.root)
    porta.clear_specialisations()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a_is_right(built, f)


def test_private_cache_removed_at_exit(built, tmp_path):
    """The private cache of a process whose PORTA_CACHE_DIR cannot be used is removed at exit;
    the warning names PORTA_CACHE_DIR."""
    d, _ = unusable(tmp_path, "under a file")
    code = CHILD + "print(porta.cache.cache_dir())\n"
    r = subprocess.run([sys.executable, "-c", code, str(built.dir), built.a.__name__],
                       env=dict(os.environ, PORTA_CACHE_DIR=d, PORTA_BACKEND="serial"),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "CacheWarning: PORTA_CACHE_DIR=%s cannot be used" % d in r.stderr
    lines = r.stdout.split("\n")
    assert [float(v) for v in lines[0].split()[:-1]] == [2.0 * i for i in range(N)]
    private = lines[1]
    assert private.startswith(tempfile.gettempdir()) and not os.path.exists(private)


# ---- whose code is loaded ----

def target_path(f, target):
    return {"cache directory": f.root, "directory above": f.root.parent, "shard": f.shard,
            "entry": f.ea, "module.so": f.ea / "module.so",
            "record": f.ea / RECORD}[target]


def check_refused(built, f, target, w, why):
    """A ran its own kernel, the warning named the path and what is wrong."""
    path = os.path.realpath(target_path(f, target))
    msg = str(w.message)
    assert path in msg and why in msg, msg
    if target in ("cache directory", "directory above"):
        assert "PORTA_CACHE_DIR=%s cannot be used" % f.root in msg
        assert os.path.dirname(loaded_path(built.a)).startswith(cache.cache_dir() + "/")
    else:
        assert ("Porta does not load from the cache %s" % (
            "shard" if target == "shard" else "entry")) in msg
        assert os.path.realpath(os.path.dirname(loaded_path(built.a))) == os.path.realpath(f.ea)


TARGETS = ["cache directory", "directory above", "shard", "entry", "module.so", "record"]


@pytest.mark.parametrize("target", TARGETS)
def test_writable_by_others_not_loaded(built, fresh, tmp_path, target):
    """Anything on the way to a module that group or others can write is not loaded from (B's
    kernel, planted in A's entry with a matching record, ran): a CacheWarning names the path
    and its mode; an entry, or its shard, is moved aside and compiled again; a cache directory
    is replaced by a private one."""
    f = fresh(tmp_path / "above" / "cache")
    plant_b_in_a(f)
    p = target_path(f, target)
    bits = 0o020 if TARGETS.index(target) % 2 else 0o002  # group and others in turn
    os.chmod(p, mode(p) | bits)
    w = launch_a_warned(built)
    check_refused(built, f, target, w, "writable by %s" % ("group" if bits == 0o020
                                                            else "others"))


def test_sticky_directory_above_is_fine(built, fresh, tmp_path):
    """A directory above that others can write but with the sticky bit (as /tmp) is accepted:
    they cannot rename what is not theirs."""
    f = fresh(tmp_path / "sticky" / "cache")
    os.chmod(tmp_path / "sticky", 0o1777)
    h0 = cache.stats["hits"]
    a_is_right(built, f)
    assert cache.stats["hits"] == h0 + 1


@needs_root
@pytest.mark.parametrize("target", TARGETS)
def test_other_users_not_loaded(built, fresh, tmp_path, target):
    """Anything on the way to a module that another user owns (uid 65534 here) is not loaded
    from, as ssh ignores a key file others could have written: B's kernel planted in A's
    entry with a matching record ran before."""
    f = fresh(tmp_path / "above" / "cache")
    plant_b_in_a(f)
    p = target_path(f, target)
    if target in ("shard", "entry"):
        for d, dirs, files in os.walk(p):
            for n in dirs + files:
                os.lchown(os.path.join(d, n), NOBODY, NOBODY)
    os.lchown(p, NOBODY, NOBODY)
    w = launch_a_warned(built)
    check_refused(built, f, target, w, "owned by uid %d" % NOBODY)


def test_new_cache_is_private(built, fresh, tmp_path, monkeypatch):
    """A new cache is 0700 (the directories made above it too), its entries 0700 and their
    files 0600, whatever the umask (they followed the umask: 0777 and 0666 here)."""
    root = tmp_path / "made" / "cache"
    monkeypatch.setenv("PORTA_CACHE_DIR", str(root))
    old = os.umask(0)
    try:
        np.testing.assert_array_equal(run_fill(built.a), 2.0 * np.arange(N))
    finally:
        os.umask(old)
    assert mode(tmp_path / "made") == 0o700 and mode(root) == 0o700
    entry = os.path.dirname(loaded_path(built.a))
    shard = os.path.dirname(entry)
    assert mode(shard) == 0o700
    assert [n for n in os.listdir(shard) if mode(os.path.join(shard, n)) != 0o700
            and not n.endswith(".lock")] == []
    assert all(mode(os.path.join(shard, n)) == 0o600 for n in os.listdir(shard)
               if n.endswith(".lock"))
    assert all(mode(os.path.join(root, n)) == 0o600 for n in os.listdir(root)
               if n.endswith(".lock"))
    a_is_right(built)
    assert cache.cache_dir() == os.path.realpath(root)


SECOND_USER = textwrap.dedent('''
    import os, stat, sys, warnings, numpy as np
    sys.path.insert(0, sys.argv[1])
    import porta
    from porta import cache
    m = __import__(sys.argv[2])
    for d in sys.argv[3:]:
        os.environ["PORTA_CACHE_DIR"] = d
        porta.clear_specialisations()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x = np.zeros(%d)
            porta.parallel_for(porta.RangePolicy(0, %d, space="serial"), m.fill, x)
        assert (x == 2.0 * np.arange(%d)).all(), x
        so = m.fill._unit.paths[-1]
        st = os.stat(so)
        assert st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) == 0o600, st
        assert not os.access(so, os.X_OK)
        print("WARNING", str(w[0].message) if w else "none")
''' % (N, N, N))


@needs_root
def test_second_user(built, tmp_path):
    """As a second user (uid 65534): a cache directory that another user (root) owns and
    everyone can write, as a shared /tmp/porta, and a read-only cache directory are not used
    (CacheWarning), the kernel runs from a private cache, and its module.so, mode 0600 (read
    only, no execute permission), loads for a user who is not root."""
    top = tempfile.mkdtemp(prefix="porta-second-user-")
    try:
        os.chmod(top, 0o755)
        name = "cache_second_" + tmp_path.name
        write_module(pathlib.Path(top), name, 2.0)
        shared = os.path.join(top, "shared")
        os.mkdir(shared)
        os.chmod(shared, 0o777)
        readonly = os.path.join(top, "readonly")
        os.mkdir(readonly)
        os.chown(readonly, NOBODY, NOBODY)
        os.chmod(readonly, 0o500)

        def as_nobody():
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)

        try:
            r = subprocess.run([sys.executable, "-c", SECOND_USER, top, name, shared, readonly],
                               env=dict(os.environ, PORTA_BACKEND="serial", HOME=top),
                               capture_output=True, text=True, timeout=120,
                               preexec_fn=as_nobody, cwd=top)
        except PermissionError as e:  # the interpreter's folder (a clone under /root ...)
            pytest.skip("this Python is not executable by uid 65534: %s" % e)
        if r.returncode and ("Permission denied" in r.stderr or
                             "No module named 'porta'" in r.stderr):
            pytest.skip("the porta package is not readable by uid 65534: " + r.stderr[-300:])
        assert r.returncode == 0, r.stderr
        warns = [ln for ln in r.stdout.splitlines() if ln.startswith("WARNING")]
        assert len(warns) == 2, r.stdout
        assert "PORTA_CACHE_DIR=%s cannot be used" % shared in warns[0]
        assert "owned by uid 0" in warns[0]
        assert "PORTA_CACHE_DIR=%s cannot be used" % readonly in warns[1]
        assert "not writable (Permission denied)" in warns[1]
        assert os.listdir(shared) == [] and os.listdir(readonly) == []
    finally:
        shutil.rmtree(top, ignore_errors=True)


# ---- a time limit, and Ctrl-C ----

HUNG_CC = '''#!/bin/sh
if [ "$1" = --version ]; then echo "hung-cc 1.0"; exit 0; fi
sleep 20 &
echo $! > "%s"
wait $!
exit 1
'''


def alive(pid):
    """Whether process pid runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except FileNotFoundError:
        return False


def dies(pid):
    """Whether process pid is gone within 5 s (SIGKILL is delivered asynchronously)."""
    for _ in range(100):
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def hung_compiler(tmp_path):
    pidfile = tmp_path / "sleep.pid"
    cc = tmp_path / "hung-cc"
    cc.write_text(HUNG_CC % pidfile)
    cc.chmod(0o755)
    return str(cc), pidfile


def lock_is_free(path):
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_compile_timeout(tmp_path, monkeypatch):
    """A compile that does not finish within PORTA_COMPILE_TIMEOUT raises CompileError naming
    the limit and the variable; the compiler and its children are killed, no temporary
    directory is left and the entry's lock is free (before: it waited for the compiler)."""
    cc, pidfile = hung_compiler(tmp_path)
    monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PORTA_CC", cc)
    monkeypatch.setenv("PORTA_COMPILE_TIMEOUT", "1.5")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    src = "int porta_cache_hung(void) { return 1; }\n"
    with pytest.raises(cache.CompileTimeout, match=r"did not finish within 1\.5 s "
                                                 r"\(PORTA_COMPILE_TIMEOUT\)"):
        cache.build(src, "hung")
    assert dies(int(pidfile.read_text()))
    assert os.listdir(tmp) == []
    [shard] = [tmp_path / "cache" / n for n in os.listdir(tmp_path / "cache") if len(n) == 2]
    [lock] = [shard / n for n in os.listdir(shard)]
    assert lock.name.endswith(".lock") and lock_is_free(lock)


def test_compile_timeout_values(monkeypatch):
    monkeypatch.delenv("PORTA_COMPILE_TIMEOUT", raising=False)
    assert cache.compile_timeout() == 600
    monkeypatch.setenv("PORTA_COMPILE_TIMEOUT", "0")
    assert cache.compile_timeout() is None
    monkeypatch.setenv("PORTA_COMPILE_TIMEOUT", "2.5")
    assert cache.compile_timeout() == 2.5
    for bad in ("ten", "-1", "nan"):
        monkeypatch.setenv("PORTA_COMPILE_TIMEOUT", bad)
        with pytest.raises(cache.CompileError, match="PORTA_COMPILE_TIMEOUT='%s' is not a "
                                                     "number of seconds" % bad):
            cache.compile_timeout()


CTRL_C = textwrap.dedent('''
    import fcntl, json, os, signal, sys, tempfile, numpy as np
    # Ctrl-C raises KeyboardInterrupt here also where this process inherited SIGINT ignored
    # (a test run started in the background of a non-interactive shell: sh -c 'scripts/test &')
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, sys.argv[1])
    import porta
    from porta import cache
    import test_cache_safety as t
    m = __import__(sys.argv[2])
    x = np.zeros(%d)
    try:
        porta.parallel_for(porta.RangePolicy(0, %d, space="serial"), m.fill, x)
        sys.exit("no KeyboardInterrupt")
    except KeyboardInterrupt:
        pass
    root = cache.cache_dir()
    found = {"compiler's child killed": t.dies(int(open(sys.argv[3]).read())),
             "left": [], "locks": [], "tmp": os.listdir(tempfile.gettempdir())}
    for d, dirs, files in os.walk(root):
        found["left"] += [n for n in dirs + files if n.startswith(".tmp-")]
        found["locks"] += [t.lock_is_free(os.path.join(d, n)) for n in files
                           if n.endswith(".lock")]
    os.environ["PORTA_CC"] = "cc"
    porta.parallel_for(porta.RangePolicy(0, %d, space="serial"), m.fill, x)
    found["right"] = bool((x == 2.0 * np.arange(%d)).all())
    print(json.dumps(found))
''' % (N, N, N, N))


def ignore_sigint():
    """preexec_fn: the child starts with SIGINT ignored (what `sh -c 'cmd &'` gives it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("sigint", ["inherited", "ignored"])
def test_ctrl_c_during_compile(built, tmp_path, sigint):
    """Ctrl-C during a compile raises KeyboardInterrupt at once: the compiler and its children
    are killed (the shell's child outlived it), no temporary directory is left, the lock is
    released and the process compiles and runs the kernel afterwards. "ignored": the child
    starts with SIGINT ignored, as under `sh -c 'scripts/test &'`, nohup or cron (issue 68),
    and sets the handler it relies on itself."""
    cc, pidfile = hung_compiler(tmp_path)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, PORTA_CACHE_DIR=str(tmp_path / "cache"), PORTA_CC=cc,
               PORTA_BACKEND="serial", TMPDIR=str(tmp),
               PYTHONPATH=os.path.dirname(__file__))
    p = subprocess.Popen([sys.executable, "-c", CTRL_C, str(built.dir), built.a.__name__,
                          str(pidfile)], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         preexec_fn=ignore_sigint if sigint == "ignored" else None)
    try:
        for _ in range(600):
            if pidfile.exists() and pidfile.read_text().strip():
                break
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
        p.wait()
    assert p.returncode == 0, err
    found = json.loads(out)
    assert found == {"compiler's child killed": True, "left": [], "locks": [True, True],
                     "tmp": [], "right": True}, found


def test_hit_runs_no_subprocess(tmp_path, monkeypatch):
    """A cache hit runs no subprocess, also in a process that has not asked the compiler its
    version (its identity comes from the memo)."""
    log = tmp_path / "calls"
    cc = tmp_path / "logcc"
    cc.write_text('#!/bin/sh\necho "$@" >> "%s"\nexec cc "$@"\n' % log)
    cc.chmod(0o755)
    monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PORTA_CC", str(cc))
    src = "int porta_cache_hit(void) { return 1; }\n"
    path = cache.build(src, "hit")
    calls = log.read_text()
    assert "--version" in calls and "-shared" in calls
    monkeypatch.setattr(cache, "_ident", {})  # a new process
    h0 = cache.stats["hits"]
    assert cache.build(src, "hit") == path and cache.stats["hits"] == h0 + 1
    assert log.read_text() == calls
