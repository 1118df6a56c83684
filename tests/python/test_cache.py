"""The kernel cache: the same source hits, an edited kernel, other flags or another compiler
rebuild, the generated C is kept beside the module, and two processes compiling the same
module at once compile it once. Its safety checks and healing: test_cache_safety.py."""
import importlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import porta
from porta import cache

SOURCE = '''
import porta

@porta.kernel
def fill(i: int, x: porta.f64[:]):
    x[i] = VALUE * i
'''


def make_module(tmp_path, name, value):
    path = tmp_path / (name + ".py")
    path.write_text(SOURCE.replace("VALUE", repr(float(value))))
    return path


def load(tmp_path, name):
    sys.path.insert(0, str(tmp_path))
    try:
        if name in sys.modules:
            return importlib.reload(sys.modules[name])
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def run_fill(mod, space="serial"):
    """The C compiler's module on a host back end (space "cuda": nvcc's, on device memory)."""
    if space == "cuda":
        x = porta.View(16, space="cuda")
        porta.parallel_for(porta.RangePolicy(0, 16, space="cuda"), mod.fill, x)
        return x.to_numpy()
    x = np.zeros(16)
    porta.parallel_for(porta.RangePolicy(0, 16, space=space), mod.fill, x)
    return x


def test_hit_edit_flags_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / "cache"))
    name = "cachemod_" + tmp_path.name.replace("-", "_")
    make_module(tmp_path, name, 2.0)
    mod = load(tmp_path, name)
    c0 = cache.stats["compiles"]
    np.testing.assert_array_equal(run_fill(mod), 2.0 * np.arange(16))
    assert cache.stats["compiles"] == c0 + 1
    entry = os.path.dirname(mod.fill._unit.paths[-1])
    assert sorted(os.listdir(entry)) == sorted(["build.txt", "module.json", "module.so",
                                                name + ".c"])
    assert "#line 6 " in open(os.path.join(entry, name + ".c")).read()

    # the same source: a hit (no compile), also after forgetting what was loaded
    h0 = cache.stats["hits"]
    porta.clear_specialisations()
    np.testing.assert_array_equal(run_fill(mod), 2.0 * np.arange(16))
    assert cache.stats["compiles"] == c0 + 1 and cache.stats["hits"] == h0 + 1

    # an edited kernel is rebuilt
    make_module(tmp_path, name, 3.0)
    mod = load(tmp_path, name)
    np.testing.assert_array_equal(run_fill(mod), 3.0 * np.arange(16))
    assert cache.stats["compiles"] == c0 + 2

    # other flags: rebuilt
    monkeypatch.setenv("PORTA_CFLAGS", "-DPORTA_PY_TEST_FLAG=1")
    porta.clear_specialisations()
    run_fill(mod)
    assert cache.stats["compiles"] == c0 + 3

    # another compiler (a wrapper that says it is another version): rebuilt
    wrapper = tmp_path / "othercc"
    wrapper.write_text('#!/bin/sh\nif [ "$1" = --version ]; then echo "othercc 1.0"; exit 0; fi\n'
                       'exec cc "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PORTA_CC", str(wrapper))
    porta.clear_specialisations()
    run_fill(mod)
    assert cache.stats["compiles"] == c0 + 4
    porta.clear_specialisations()


CHILD = textwrap.dedent('''
    import sys, numpy as np
    sys.path.insert(0, sys.argv[1])
    import porta, porta.cache
    import {name} as m
    x = np.zeros(16)
    porta.parallel_for(16, m.fill, x)
    assert (x == 5.0 * np.arange(16)).all()
    print("compiles", porta.cache.stats["compiles"])
''')


def test_two_processes_compile_once(tmp_path):
    name = "concmod_" + tmp_path.name.replace("-", "_")
    make_module(tmp_path, name, 5.0)
    env = dict(os.environ, PORTA_CACHE_DIR=str(tmp_path / "cache"), PORTA_BACKEND="serial")
    script = CHILD.format(name=name)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    compiles = [int(out.split()[-1]) for out, _ in outs]
    assert sorted(compiles) == [0, 1], outs
    shard_dirs = [d for d in os.listdir(tmp_path / "cache") if len(d) == 2]
    leftovers = [f for d in shard_dirs for f in os.listdir(tmp_path / "cache" / d)
                 if f.startswith(".tmp-")]
    assert leftovers == []


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
def test_nvcc_entry(tmp_path, monkeypatch):
    """A launch on CUDA compiles the module with nvcc into an entry of its own (the host
    entry untouched), hits it afterwards, and other nvcc flags rebuild it."""
    monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / "cache"))
    name = "nvccmod_" + tmp_path.name.replace("-", "_")
    make_module(tmp_path, name, 4.0)
    mod = load(tmp_path, name)
    np.testing.assert_array_equal(run_fill(mod), 4.0 * np.arange(16))  # cc
    c0, n0 = cache.stats["compiles"], cache.stats.get("nvcc_compiles", 0)
    np.testing.assert_array_equal(run_fill(mod, "cuda"), 4.0 * np.arange(16))  # nvcc
    assert cache.stats["compiles"] == c0 + 1 and cache.stats["nvcc_compiles"] == n0 + 1
    assert 0 < cache.stats["last_nvcc_compile_s"] < 60
    entry = os.path.dirname(mod.fill._unit.paths[-1])
    cmd = open(os.path.join(entry, "build.txt")).read()
    assert "nvcc" in cmd and "-x cu" in cmd and "sm_%s" % cache.cuda_arch() in cmd
    assert cache._check_entry(entry, os.path.basename(entry)) is None  # record, owner, modes
    assert {n: os.stat(os.path.join(entry, n)).st_mode & 0o777 for n in os.listdir(entry)} == {
        n: 0o600 for n in os.listdir(entry)}
    assert len(set(os.path.dirname(p) for p in mod.fill._unit.paths)) == 2
    porta.clear_specialisations()
    run_fill(mod, "cuda")
    assert cache.stats["nvcc_compiles"] == n0 + 1  # a hit
    monkeypatch.setenv("PORTA_NVCCFLAGS", "-DPORTA_PY_TEST_FLAG=1")
    porta.clear_specialisations()
    np.testing.assert_array_equal(run_fill(mod, "cuda"), 4.0 * np.arange(16))
    assert cache.stats["nvcc_compiles"] == n0 + 2
    porta.clear_specialisations()


LAYOUT_SOURCE = '''
import porta

@porta.kernel
def a(i: int, j: int, x: porta.f64[:, :]):
    x[i, j] = 1.0 * i + 10.0 * j

@porta.kernel
def b(i: int, j: int, x: porta.f64[:, :], y: porta.f64[:, :]):
    y[i, j] = 2.0 * x[i, j]

@porta.kernel
def c(i: int, j: int, y: porta.f64[:, :]):
    y[i, j] += 1.0
'''


@pytest.mark.parametrize("order", ["F", "C"])
def test_one_compile_per_layout_not_per_kernel(tmp_path, monkeypatch, order):
    """The first launch in a layout compiles every kernel of the module in that layout: three
    kernels launched on F-ordered arrays (the GPU's default layout) cost one compile, not
    three; their answers are right."""
    monkeypatch.setenv("PORTA_CACHE_DIR", str(tmp_path / "cache"))
    name = "layoutmod_%s_%s" % (order, tmp_path.name.replace("-", "_"))
    (tmp_path / (name + ".py")).write_text(LAYOUT_SOURCE)
    m = load(tmp_path, name)
    before = cache.stats["compiles"]
    x, y = np.zeros((5, 7), order=order), np.zeros((5, 7), order=order)
    pol = porta.MDRangePolicy((0, 0), (5, 7), space="serial")
    porta.parallel_for(pol, m.a, x)
    porta.parallel_for(pol, m.b, x, y)
    porta.parallel_for(pol, m.c, y)
    assert cache.stats["compiles"] - before == 1
    i, j = np.meshgrid(np.arange(5), np.arange(7), indexing="ij")
    np.testing.assert_array_equal(y, 2.0 * (i + 10.0 * j) + 1.0)


def test_vector_width_follows_the_build(monkeypatch):
    """Modules prefer the vector width libporta's build prefers (CMake's PORTA_VECTOR_WIDTH,
    256 by default) on x86-64, in both compilers' flags; -DPORTA_VECTOR_WIDTH=N changes it and
    an empty value leaves the compiler's choice."""
    import platform
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    args = [a for a in cache._buildinfo.CMAKE_ARGS if not a.startswith("-DPORTA_VECTOR_WIDTH")]
    monkeypatch.setattr(cache._buildinfo, "CMAKE_ARGS", args)
    monkeypatch.delenv("PORTA_CFLAGS", raising=False)
    monkeypatch.delenv("PORTA_NVCCFLAGS", raising=False)
    want = ["-mprefer-vector-width=256"] if x86 else []
    assert [f for f in cache.flags() if "vector-width" in f] == want
    assert [f for f in cache.nvcc_flags() if "vector-width" in f] == ["-Xcompiler=" + w
                                                                       for w in want]
    monkeypatch.setattr(cache._buildinfo, "CMAKE_ARGS", args + ["-DPORTA_VECTOR_WIDTH=512"])
    assert [f for f in cache.flags() if "vector-width" in f] == (
        ["-mprefer-vector-width=512"] if x86 else [])
    monkeypatch.setattr(cache._buildinfo, "CMAKE_ARGS", args + ["-DPORTA_VECTOR_WIDTH="])
    assert not [f for f in cache.flags() + cache.nvcc_flags() if "vector-width" in f]
