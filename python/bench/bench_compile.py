"""The compile rows of scripts/bench-python: a cold compile of bench_kernels_child.py's module
and a cached module's import and first launch, each in fresh processes."""
import os
import subprocess
import sys
import tempfile


def child_load_time(cache_dir, be="serial"):
    """A fresh process: import porta, init, import the 3-kernel module and launch its axpy.
    Returns (seconds for import + first launch, compiles made, that compile's seconds (nvcc's
    on CUDA), seconds of the module's import alone)."""
    arr = ("porta.View(8, space='cuda')" if be == "cuda" else "np.zeros(8)")
    key = "last_nvcc_compile_s" if be == "cuda" else "last_compile_s"
    code = ("import time, numpy as np; t0 = time.perf_counter(); import porta; "
            "porta.init(backend='%s', args=[]); x = %s; porta.fence(); "
            "t1 = time.perf_counter(); import bench_kernels_child as m; "
            "t2 = time.perf_counter(); porta.parallel_for(8, m.axpy, 1.0, x, x); porta.fence(); "
            "t3 = time.perf_counter(); print(t3 - t1, porta.cache.stats['compiles'], "
            "porta.cache.stats.get('%s', 0.0), t2 - t1)" % (be, arr, key))
    env = dict(os.environ, PORTA_CACHE_DIR=cache_dir,
               PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), int(out[1]), float(out[2]), float(out[3])


def compile_rows(cuda):
    """Cold compile (three fresh caches: the median and the range) and the cached module's
    import + first launch (five fresh processes: the median), in fresh processes."""
    be = "cuda" if cuda else "serial"
    colds = []
    for _ in range(3):
        with tempfile.TemporaryDirectory(prefix="porta-bench-cache-") as d:
            cold = child_load_time(d, be)
            assert cold[1] == 1
            colds.append(cold)
    with tempfile.TemporaryDirectory(prefix="porta-bench-cache-") as d:
        child_load_time(d, be)
        warm = sorted(child_load_time(d, be) for _ in range(5))[2]
    cs = sorted(c[2] for c in colds)
    return [("cold compile, 3-kernel module (%s)" % ("nvcc" if cuda else "cc"),
             "%.3f s" % cs[1], "", "min %.3f max %.3f s" % (cs[0], cs[2]),
             "<= 2 s" if cuda else "<= 0.5 s"),
            ("cached module: import + first launch", "%.2f ms" % (warm[0] * 1e3), "",
             "import %.2f ms" % (warm[3] * 1e3), "<= 5 ms")]
