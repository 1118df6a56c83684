"""The reference rows of scripts/bench-python: Numba's and CuPy's CUDA kernels, Numba's and
Warp's CPU kernels, where they are installed (a launch on 8 elements and a triad; on the host
timed in turn with Porta's Python triad). A reference that is missing is a "not run" row."""
import statistics
import time

import numpy as np

import porta
from bench_kernel_rows import alternate
from bench_kernels import triad


def others_cuda(n, reps=10):
    """Rows for Numba's and CuPy's CUDA kernels where they are installed: a launch on 8
    elements and a triad (their time against Porta's C triad is in the triad row)."""
    rows = []
    rng = np.random.default_rng(0)
    b0, c0 = rng.random(n), rng.random(n)
    try:
        from numba import cuda as ncuda

        @ncuda.jit
        def nb_triad(a, b, c, out):
            i = ncuda.grid(1)
            if i < out.size:
                out[i] = b[i] + a * c[i]

        b, c, out = ncuda.to_device(b0), ncuda.to_device(c0), ncuda.device_array(n)
        small = [ncuda.to_device(np.ones(8)) for _ in range(3)]
        nb_triad[1, 32](3.0, *small)
        nb_triad[(n + 255) // 256, 256](3.0, b, c, out)
        ncuda.synchronize()
        assert np.allclose(out.copy_to_host(), b0 + 3.0 * c0), "numba triad answers"

        def launches(k=5000):
            t0 = time.perf_counter()
            for _ in range(k):
                nb_triad[1, 32](3.0, *small)
            ncuda.synchronize()
            return (time.perf_counter() - t0) / k

        def triad_t():
            t0 = time.perf_counter()
            for _ in range(reps):
                nb_triad[(n + 255) // 256, 256](3.0, b, c, out)
            ncuda.synchronize()
            return (time.perf_counter() - t0) / reps

        rows.append(("numba.cuda launch n=8 (reference)", "%.2f us" % (
            statistics.median(launches() for _ in range(5)) * 1e6), "", "", ""))
        rows.append(("numba.cuda triad 2^%d (reference)" % (n.bit_length() - 1), "%.2f ms" % (
            statistics.median(triad_t() for _ in range(9)) * 1e3), "", "", ""))
    except Exception as e:  # not installed, or no GPU for it
        rows.append(("numba.cuda", "not run: %s" % str(e).splitlines()[0][:60], "", "", ""))
    try:
        import cupy as cp

        k = cp.ElementwiseKernel("float64 a, float64 b, float64 c", "float64 out",
                                 "out = b + a * c", "cp_triad")
        b, c, out = cp.asarray(b0), cp.asarray(c0), cp.empty(n)
        small = [cp.ones(8) for _ in range(3)]
        k(3.0, small[0], small[1], small[2])
        k(3.0, b, c, out)
        cp.cuda.runtime.deviceSynchronize()
        assert np.allclose(cp.asnumpy(out), b0 + 3.0 * c0), "cupy triad answers"

        def launches(m=5000):
            t0 = time.perf_counter()
            for _ in range(m):
                k(3.0, small[0], small[1], small[2])
            cp.cuda.runtime.deviceSynchronize()
            return (time.perf_counter() - t0) / m

        def triad_t():
            t0 = time.perf_counter()
            for _ in range(reps):
                k(3.0, b, c, out)
            cp.cuda.runtime.deviceSynchronize()
            return (time.perf_counter() - t0) / reps

        rows.append(("cupy ElementwiseKernel launch n=8 (reference)", "%.2f us" % (
            statistics.median(launches() for _ in range(5)) * 1e6), "", "", ""))
        rows.append(("cupy triad 2^%d (reference)" % (n.bit_length() - 1), "%.2f ms" % (
            statistics.median(triad_t() for _ in range(9)) * 1e3), "", "", ""))
    except Exception as e:
        rows.append(("cupy", "not run: %s" % str(e).splitlines()[0][:60], "", "", ""))
    return rows


def others_host(n, nt, reps=5):
    """Rows for Numba's and Warp's CPU kernels where they are installed: a call on 8 elements
    and a triad (Numba: prange over the OpenMP threads' count; Warp: its CPU device), each
    with Porta's Python triad on OpenMP x nt timed in turn on the same arrays (C/Py there is
    the reference's time over Porta's)."""
    rows = []
    rng = np.random.default_rng(0)
    b, c = rng.random(n), rng.random(n)
    out = np.zeros(n)
    want = b + 3.0 * c
    small = [np.ones(8) for _ in range(3)]
    pol = porta.RangePolicy(0, n, space="openmp") if porta.backend_available("openmp") \
        else porta.RangePolicy(0, n, space="serial")

    def timed(fn, k):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        return (time.perf_counter() - t0) / k

    def porta_triad():
        return timed(lambda: porta.parallel_for(pol, triad, 3.0, b, c, out), reps)

    def add_rows(name, call_small, call_triad):
        launch = statistics.median(timed(call_small, 20000) for _ in range(5))
        tr, tp = alternate(lambda: timed(call_triad, reps), porta_triad)
        rows.append(("%s call n=8 (reference)" % name, "%.2f us" % (launch * 1e6), "", "", ""))
        rows.append(("%s triad 2^%d (reference) vs Porta Python" % (name, n.bit_length() - 1),
                     "%.2f ms (%.1f GB/s)" % (tp * 1e3, 24 * n / tp / 1e9),
                     "%.2f ms (%.1f GB/s)" % (tr * 1e3, 24 * n / tr / 1e9),
                     "ref/Porta %.3f" % (tr / tp), ""))
    try:
        import numba

        numba.set_num_threads(nt)

        @numba.njit(parallel=True, fastmath=False)
        def nb_triad(a, b, c, out):
            for i in numba.prange(out.size):
                out[i] = b[i] + a * c[i]

        @numba.njit
        def nb_triad_serial(a, b, c, out):  # the dispatch alone: no thread pool
            for i in range(out.size):
                out[i] = b[i] + a * c[i]

        nb_triad_serial(3.0, *small)
        out[:] = 0
        nb_triad(3.0, b, c, out)
        assert np.array_equal(out, want), "numba triad answers"
        add_rows("numba %s x%d (call: plain njit)" % (numba.__version__, nt),
                 lambda: nb_triad_serial(3.0, *small), lambda: nb_triad(3.0, b, c, out))
    except Exception as e:
        rows.append(("numba (CPU)", "not run: %s" % str(e).splitlines()[0][:60], "", "", ""))
    try:
        import warp as wp

        wp.config.quiet = True
        wp.init()

        @wp.kernel
        def wp_triad(a: float, b: wp.array(dtype=wp.float64), c: wp.array(dtype=wp.float64),
                     out: wp.array(dtype=wp.float64)):
            i = wp.tid()
            out[i] = b[i] + wp.float64(a) * c[i]

        wb, wc, wo = (wp.array(x, dtype=wp.float64, device="cpu") for x in (b, c, out))
        ws = [wp.array(x, dtype=wp.float64, device="cpu") for x in small]
        wp.launch(wp_triad, dim=8, inputs=[3.0] + ws, device="cpu")
        wp.launch(wp_triad, dim=n, inputs=[3.0, wb, wc, wo], device="cpu")
        assert np.array_equal(wo.numpy(), want), "warp triad answers"
        add_rows("warp %s (CPU, one thread)" % wp.config.version,
                 lambda: wp.launch(wp_triad, dim=8, inputs=[3.0] + ws, device="cpu"),
                 lambda: wp.launch(wp_triad, dim=n, inputs=[3.0, wb, wc, wo], device="cpu"))
    except Exception as e:
        rows.append(("warp (CPU)", "not run: %s" % str(e).splitlines()[0][:60], "", "", ""))
    return rows
