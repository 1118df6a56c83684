"""scripts/bench-python: Porta's Python kernels against the same kernels written in C with
Porta, one table (answers checked first; medians of repeated runs; ratios from this run).

Rows: launch overhead (a launch of axpy on 8 elements from Python with NumPy arguments,
minus the same launch from C), triad and dot bandwidth kernels, the dot summed exactly
(porta.ExactSum against C's porta_xsum_f64, and its time over the plain dot's), a 2D stencil on
an mdrange, a team SpMV (a league rank per row, a nested team reduction) and a Lennard-Jones
force kernel with a device function (Python time / C time), cold compile of a module and a
cached module's load (fresh processes).

With --porta-backend=cuda the same rows run on the GPU: the arrays are Views of space "cuda",
the C kernels are the same C compiled by nvcc, each timing is 10 launches and a fence, the
cold compile is nvcc's, and Numba's and CuPy's triads and launches are reference rows where
they are installed.

The rows come from bench_kernel_rows.py (the kernels of bench_kernels.py, in Python and in C),
bench_compile.py (compile and load), bench_references.py (Numba, CuPy, Warp) and
bench_apps.py (the Python examples against the C apps); this file makes the table.
"""
import sys

import bench_apps
import porta
from bench_compile import compile_rows
from bench_kernel_rows import (Mem, bench_exact_dot, bench_launch, bench_lj, bench_spmv,
                               bench_stencil, bench_triad_dot, lj_data, spmv_data)
from bench_kernels import load_c
from bench_references import others_cuda, others_host
from porta import _core


def main():
    porta.init(args=[a for a in sys.argv[1:] if a.startswith("--porta-")])
    cuda = porta.backend() == "cuda"
    lib = load_c(cuda)
    rows = []
    if cuda:
        spaces = [("cuda", 1)]
        sizes = dict(n=1 << 26, sten=(8192, 8192), csr=spmv_data(1024), lj=lj_data(1 << 18))
    else:
        spaces = [("serial", 1)] + ([("openmp", porta.num_threads())]
                                    if porta.backend_available("openmp") else [])
        sizes = dict(n=1 << 24, sten=(4096, 4096), csr=spmv_data(1024), lj=lj_data())
    threads0 = porta.num_threads()
    for be, nt in spaces:
        if not cuda:
            porta.set_num_threads(nt)
        m = Mem(be)
        bid = _core.backend_id(be)
        rows.append(bench_launch(lib, m, bid, nt))
        rows += bench_triad_dot(lib, m, bid, nt, sizes["n"])
        rows += bench_exact_dot(lib, m, bid, nt, sizes["n"])
        rows.append(bench_stencil(lib, m, bid, nt, *sizes["sten"]))
        rows.append(bench_spmv(lib, m, bid, nt, *sizes["csr"]))
        rows.append(bench_lj(lib, m, bid, nt, *sizes["lj"]))
    if not cuda:
        porta.set_num_threads(threads0)

    rows += compile_rows(cuda)
    if cuda:
        rows += others_cuda(sizes["n"])
    else:
        rows += others_host(sizes["n"], threads0)
    if "--no-apps" not in sys.argv[1:]:
        rows += bench_apps.rows(cuda, threads0)

    head = ("row", "Python", "C", "result", "target")
    w = [max(len(str(r[k])) for r in rows + [head]) for k in range(5)]
    print("  ".join(h.ljust(w[k]) for k, h in enumerate(head)))
    for r in rows:
        print("  ".join(str(v).ljust(w[k]) for k, v in enumerate(r)))


if __name__ == "__main__":
    main()
