"""porta.exchange (docs/python.md, "MPI and the exchange plan"): the exchange library beside
mpi4py, on 1, 2 and 3 ranks of `mpirun` (oversubscribed; as root with Open MPI's two
OMPI_ALLOW_RUN_AS_ROOT variables), on the host back ends. Each test runs a child script
(CHILD below) that checks its values on every rank; rank 0 prints "RESULT OK nranks" or every
rank's failures. Needs mpirun and mpi4py (Debian's python3-mpi4py, seen through the venv's
system site packages) and a porta built with MPI.

The halo checks are those of the C test of the same library (tests/app/test_exchange_halo2d.c):
the same value function of the global cell, 1000 (f + 1) + 31 gx + gy, on the same uneven
11 x 9 grid; after an exchange of depth d every ghost cell within d layers that lies inside the
global domain holds the owner's value (corners included) and every other ghost keeps -1. A
small C program over the package's libporta_exchange (C_HALO, compiled by mpicc) makes the same
halo, and its fields must be the Python Halo2D's, byte for byte."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from exchange_mpirun import mpi_env, mpi_ready
from exchange_mpirun import mpirun as run_ranks

CHILD = textwrap.dedent('''
    import sys
    from mpi4py import MPI
    import numpy as np
    import porta
    import porta.exchange as px

    comm = MPI.COMM_WORLD
    porta.init(backend=sys.argv[2], threads=2 if sys.argv[2] == "openmp" else None, args=[])
    failures = []

    def value(f, gx, gy):
        return 1000.0 * (f + 1) + 31.0 * gx + gy

    def make(d, H, x_dim, order, f, kind, pad=(0, 0)):
        lx, ly = d.local
        shape = (lx + 2 * H, ly + 2 * H) if x_dim == 0 else (ly + 2 * H, lx + 2 * H)
        shape = (shape[0] + pad[0], shape[1] + pad[1])  # padding after the high ghosts
        a = np.full(shape, -1.0, order=order)
        gx = d.offset[0] + np.arange(lx)
        gy = d.offset[1] + np.arange(ly)
        own = value(f, gx[:, None], gy[None, :])          # [x, y]
        if x_dim == 0:
            a[H:H + lx, H:H + ly] = own
        else:
            a[H:H + ly, H:H + lx] = own.T
        if kind == "view":
            v = porta.View(shape, porta.f64, layout=order, label="field%d" % f)
            np.asarray(v)[...] = a
            return v
        return a

    def expected(d, H, depth, x_dim, f, pad=(0, 0)):
        lx, ly = d.local
        e = np.full((lx + 2 * H, ly + 2 * H), -1.0)       # [x, y], ghosts included
        for x in range(-H, lx + H):
            for y in range(-H, ly + H):
                gx, gy = d.offset[0] + x, d.offset[1] + y
                own = 0 <= x < lx and 0 <= y < ly
                filled = (-depth <= x < lx + depth and -depth <= y < ly + depth and
                          0 <= gx < d.global_cells[0] and 0 <= gy < d.global_cells[1])
                if own or filled:
                    e[x + H, y + H] = value(f, gx, gy)
        e = e if x_dim == 0 else e.T
        return np.pad(e, ((0, pad[0]), (0, pad[1])), constant_values=-1.0)  # left as it was

    def halo(dims, H, depth, x_dim, order, kind, pad=(0, 0)):
        d = px.Decomp(comm, (11, 9), dims=dims)
        assert d.nranks == comm.size and d.rank == comm.rank
        h = px.Halo2D(d, halo=H, x_dim=x_dim, max_fields=2, tag=2000)
        fields = [make(d, H, x_dim, order, f, kind, pad) for f in range(2)]
        if depth % 2:
            h.prepare(fields[0])
        h.exchange(fields, depth=depth)
        for f, a in enumerate(fields):
            got = np.asarray(a)
            want = expected(d, H, depth, x_dim, f, pad)
            if not np.array_equal(got, want):
                bad = np.argwhere(got != want)
                failures.append("halo dims=%s H=%d depth=%d x_dim=%d %s %s field %d: %d cells "
                                "differ, first at %s: got %r want %r"
                                % (dims, H, depth, x_dim, order, kind, f, len(bad),
                                   tuple(bad[0]), got[tuple(bad[0])], want[tuple(bad[0])]))
        nb = sum(1 for lo_hi in d.neighbour for r in lo_hi if r != MPI.PROC_NULL)
        if nb and (h.messages == 0 or h.bytes == 0):
            failures.append("halo counters %d messages, %d bytes" % (h.messages, h.bytes))
        if not nb and h.messages != 0:
            failures.append("halo without neighbours sent %d messages" % h.messages)
        h.close()

    def decomp():
        d = px.Decomp(comm, (11, 9))
        n = comm.size
        if d.dims[0] * d.dims[1] != n:
            failures.append("dims %s for %d ranks" % (d.dims, n))
        lo, hi = d.neighbour[0]
        if d.is_boundary(0, px.LOW) != (lo == MPI.PROC_NULL) or px.PROC_NULL != MPI.PROC_NULL:
            failures.append("PROC_NULL")
        if d.coords[0] == 0 and lo != MPI.PROC_NULL:
            failures.append("low x neighbour %r on the boundary" % lo)
        cells = comm.allreduce(d.local[0] * d.local[1])
        if cells != 99:
            failures.append("cells add up to %d" % cells)
        if n > 1 and comm.rank == 1 and d.dims[0] > 1 and d.neighbour[0][0] != 0:
            failures.append("rank 1's low x neighbour is %r" % (d.neighbour[0][0],))

    def ring(kind):
        r, n = comm.rank, comm.size
        right, left = (r + 1) % n, (r - 1) % n
        # field: [0..3] sent to the right (values 0, 1), received from the left into [4..5];
        # a second neighbour entry (the left, values 2, 3 into [6..7]) when n > 1
        ranks, sc, si, rc, ri = [right], [2], [0, 1], [2], [4, 5]
        if n > 1:
            ranks, sc, si, rc, ri = [right, left], [2, 2], [0, 1, 2, 3], [2, 2], [4, 5, 6, 7]
        if kind == "numpy":
            ranks, sc, si, rc, ri = [np.asarray(v, dtype=np.int64) for v in (ranks, sc, si, rc, ri)]
        with px.Plan(comm, ranks, sc, si, rc, ri, dtype=np.float64, max_fields=2, tag=7,
                     label="ring") as p:
            a = np.zeros(8) - 1.0
            a[:4] = 100.0 * r + np.arange(4)
            b = porta.View((8,), porta.f64, label="b")
            np.asarray(b)[...] = 2 * a
            p.start([a, b])
            p.finish()
            # entry k sends to and receives from ranks[k]; messages of a pair are matched in
            # list order (on 2 ranks both entries name the other rank)
            want = a.copy()
            if n == 1:
                want[4:6] = 100.0 * r + np.arange(2)
            elif n == 2:
                want[4:8] = 100.0 * right + np.arange(4)
            else:
                want[4:6] = 100.0 * right + np.arange(2, 4)
                want[6:8] = 100.0 * left + np.arange(2)
            if not np.array_equal(a, want) or not np.array_equal(np.asarray(b)[4:], 2 * want[4:]):
                failures.append("ring %s: %r (b %r), want %r" % (kind, a, np.asarray(b), want))
            m, nbytes = p.stats()
            if p.transport != "host" or m != len(ranks) or nbytes != 2 * 8 * 2 * len(ranks):
                failures.append("ring stats %r %r %r" % (p.transport, m, nbytes))
            if p.send_total != 2 * len(ranks) or p.recv_total != 2 * len(ranks):
                failures.append("ring totals %r %r" % (p.send_total, p.recv_total))
            # accumulate: the received values are added
            p.set_accumulate(True)
            c = np.zeros(8)
            c[:4] = 1.0 + r
            c[4:] = 0.5
            p.run(c)
            want = np.array([1.0 + r] * 4 + [0.5 + 1.0 + right] * 2 +
                            ([0.5 + 1.0 + left] * 2 if n > 1 else [0.5] * 2))
            if not np.array_equal(c, want):
                failures.append("accumulate: %r, want %r" % (c, want))
            p.set_accumulate(False)
            # update: the same neighbours, other offsets (send [3], receive into [7])
            one = [1] * len(ranks)
            p.update(ranks, one, [3] * len(ranks), one, [7 - k for k in range(len(ranks))])
            d = np.arange(8.0) + 10 * r
            p.run([d])
            if d[7] != 10 * right + 3 or (n > 1 and d[6] != 10 * left + 3):
                failures.append("update: %r" % d)
        if "host" not in px.transports_used():
            failures.append("transports_used %r" % px.transports_used())

    def expect(exc, words, fn):
        try:
            fn()
        except exc as e:
            if not all(w in str(e) for w in words):
                failures.append("%s: message %r lacks %r" % (exc.__name__, str(e), words))
            return
        except Exception as e:  # noqa: BLE001 - reported
            failures.append("expected %s %r, got %s: %s" % (exc.__name__, words,
                                                           type(e).__name__, e))
            return
        failures.append("expected %s %r, nothing raised" % (exc.__name__, words))

    def errors():
        r = comm.rank
        P = lambda *a, **k: px.Plan(comm, *a, **k)  # noqa: E731
        expect(ValueError, ["send_index", "counts add up"], lambda: P([r], [2], [0], [2], [3, 4]))
        expect(ValueError, ["one per neighbour"], lambda: P([r], [1, 1], [0], [1], [3]))
        expect(ValueError, ["ranks[0]", "ranks"], lambda: P([comm.size], [1], [0], [1], [1]))
        expect(TypeError, ["send_index", "integers"], lambda: P([r], [1], [0.5], [1], [1]))
        expect(ValueError, ["negative"], lambda: P([r], [1], [-1], [1], [1]))
        expect(ValueError, ["value_size"], lambda: P([r], [1], [0], [1], [1], value_size=3))
        p = P([r], [1], [0], [1], [4])
        expect(ValueError, ["offsets up to 4"], lambda: p.run(np.zeros(3)))
        expect(TypeError, ["4-byte", "value_size is 8"],
               lambda: p.run(np.zeros(5, dtype=np.float32)))
        ro = np.zeros(5)
        ro.flags.writeable = False
        expect(ValueError, ["read-only"], lambda: p.run(ro))
        expect(TypeError, ["porta.View or an array"], lambda: p.run(["x"]))
        expect(ValueError, ["fields given"], lambda: p.run([]))
        expect(RuntimeError, ["no exchange in progress"], p.finish)
        p.close()
        expect(ValueError, ["closed"], lambda: p.run(np.zeros(5)))
        d = px.Decomp(comm, (11, 9))
        expect(ValueError, ["Decomp"], lambda: px.Decomp(comm, (1, 1), dims=(comm.size + 1, 1)))
        h = px.Halo2D(d, halo=1, x_dim=0)
        expect(ValueError, ["extents"], lambda: h.exchange([np.zeros((3, 3))]))
        expect(TypeError, ["2D float64"],
               lambda: h.exchange([np.zeros((d.local[0] + 2, d.local[1] + 2), np.float32)]))
        good = np.zeros((d.local[0] + 2, d.local[1] + 2))
        expect(ValueError, ["depth"], lambda: h.exchange([good], depth=2))
        expect(ValueError, ["halo"], lambda: px.Halo2D(d, halo=0))
        expect(TypeError, ["Decomp"], lambda: px.Halo2D("decomp"))
        expect(TypeError, ["mpi4py communicator"], lambda: px.Decomp("world", (4, 4)))

    def sums():
        r, n = comm.rank, comm.size
        values = (0.1 * (r + 1), 1e16 + r, -3.0 ** r / 7.0, float(r * r))
        for k in range(1, len(values) + 1):
            b = np.array(values[:k])
            comm.Allreduce(MPI.IN_PLACE, b, op=MPI.SUM)  # mpi4py's: the same bits
            got = px.global_sum(comm, *values[:k])
            if k == 1:
                if not isinstance(got, float) or got != b[0]:
                    failures.append("global_sum of one value: %r, mpi4py %r" % (got, b[0]))
            elif not isinstance(got, tuple) or got != tuple(b):
                failures.append("global_sum of %d values: %r, mpi4py %r" % (k, got, tuple(b)))
        if px.global_sum(comm, r + 1) != n * (n + 1) / 2:  # an int is summed as a double
            failures.append("global_sum of ints: %r" % px.global_sum(comm, r + 1))
        sub = comm.Split(r % 2, r)  # a communicator of some ranks: their sum only
        want = sum(k for k in range(n) if k % 2 == r % 2)
        if px.global_sum(sub, float(r)) != want:
            failures.append("global_sum on a split communicator: %r, want %r"
                            % (px.global_sum(sub, float(r)), want))
        sub.Free()
        expect(TypeError, ["1 to 16 values", "got 0"], lambda: px.global_sum(comm))
        expect(TypeError, ["1 to 16 values", "got 17"], lambda: px.global_sum(comm, *[1.0] * 17))
        expect(TypeError, ["value 2", "number", "str"], lambda: px.global_sum(comm, 1.0, "2"))
        expect(TypeError, ["mpi4py communicator"], lambda: px.global_sum("world", 1.0))
        expect(ValueError, ["COMM_NULL"], lambda: px.global_sum(MPI.COMM_NULL, 1.0))

    what = sys.argv[1]
    if what == "sums":
        sums()
    elif what == "halo":
        n = comm.size
        grids = [None] + ([(n, 1), (1, n)] if n > 1 else [])
        for dims in grids:
            for H, depth in ((1, 1), (2, 1), (2, 2)):
                for x_dim in (0, 1):
                    for order in ("C", "F"):
                        halo(dims, H, depth, x_dim, order, "numpy")
        halo(None, 2, 2, 1, "F", "view")
        halo(None, 2, 1, 0, "C", "view")
        halo(None, 2, 2, 1, "C", "numpy", pad=(3, 5))  # extents past the ghosts: padding
        halo(None, 1, 1, 0, "F", "view", pad=(0, 7))
    elif what == "plan":
        decomp()
        ring("list")
        ring("numpy")
    elif what == "errors":
        errors()
    every = comm.gather(failures[:8], root=0)
    if comm.rank == 0:
        print("RESULT " + ("OK %d" % comm.size if not any(every) else " | ".join(
            "rank %d: %s" % (k, "; ".join(f)) for k, f in enumerate(every) if f)), flush=True)
''')

# The same halo from C (the package's installed libporta_exchange and headers), each rank's
# fields after the exchange written to a file, to compare with the Python Halo2D's bytes.
C_HALO = r'''
#include <stdio.h>
#include <stdlib.h>

#include "porta/exchange.h"

static double value(int f, int64_t gx, int64_t gy) { return 1000.0 * (f + 1) + 31.0 * gx + gy; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (porta_initialize(&argc, &argv) != PORTA_SUCCESS) return 1;
  const int H = atoi(argv[2]), depth = atoi(argv[3]), x_dim = atoi(argv[4]);
  const int64_t global[2] = {11, 9};
  porta_decomp d;
  porta_halo2d h;
  if (porta_decomp_create(MPI_COMM_WORLD, 2, global, NULL, &d) ||
      porta_halo2d_create(&h, &d, H, x_dim, 2, porta_exec_default()))
    return 2;
  const int64_t ex = d.local[0] + 2 * H, ey = d.local[1] + 2 * H;
  const int64_t n0 = x_dim == 0 ? ex : ey, n1 = x_dim == 0 ? ey : ex;
  porta_view_f64 f[2];
  for (int k = 0; k < 2; ++k) {
    if (porta_view_f64_create2(&f[k], "field", n0, n1)) return 3;
    for (int64_t y = -H; y < d.local[1] + H; ++y)
      for (int64_t x = -H; x < d.local[0] + H; ++x) {
        const int own = x >= 0 && x < d.local[0] && y >= 0 && y < d.local[1];
        const int64_t i0 = x_dim == 0 ? x + H : y + H, i1 = x_dim == 0 ? y + H : x + H;
        f[k].data[i0 * f[k].m.stride[0] + i1 * f[k].m.stride[1]] =
            own ? value(k, d.offset[0] + x, d.offset[1] + y) : -1.0;
      }
  }
  if (porta_halo2d_exchange(&h, f, 2, depth) || porta_fence("c_halo")) return 4;
  char path[4096];
  snprintf(path, sizeof path, "%s/c_%d.bin", argv[1], d.rank);
  FILE *out = fopen(path, "wb");
  for (int k = 0; out && k < 2; ++k) /* row-major, whatever the view's layout */
    for (int64_t i0 = 0; i0 < n0; ++i0)
      for (int64_t i1 = 0; i1 < n1; ++i1)
        fwrite(&f[k].data[i0 * f[k].m.stride[0] + i1 * f[k].m.stride[1]], 8, 1, out);
  if (!out || fclose(out)) return 5;
  for (int k = 0; k < 2; ++k) porta_view_f64_release(&f[k]);
  porta_halo2d_destroy(&h);
  porta_finalize();
  MPI_Finalize();
  return 0;
}
'''

PY_HALO = textwrap.dedent('''
    import sys
    from mpi4py import MPI
    import numpy as np
    import porta
    import porta.exchange as px
    porta.init(backend="serial", args=[])
    out, H, depth, x_dim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    d = px.Decomp(MPI.COMM_WORLD, (11, 9))
    h = px.Halo2D(d, halo=H, x_dim=x_dim, max_fields=2)
    lx, ly = d.local
    fields = []
    for f in range(2):
        a = np.full((lx + 2 * H, ly + 2 * H), -1.0)       # [x, y]
        gx = d.offset[0] + np.arange(lx)
        gy = d.offset[1] + np.arange(ly)
        a[H:H + lx, H:H + ly] = 1000.0 * (f + 1) + 31.0 * gx[:, None] + gy[None, :]
        fields.append(np.ascontiguousarray(a if x_dim == 0 else a.T))
    h.exchange(fields, depth=depth)
    with open("%s/py_%d.bin" % (out, d.rank), "wb") as fh:
        for a in fields:
            fh.write(np.ascontiguousarray(a).tobytes())
''')

NO_INIT = textwrap.dedent('''
    import numpy as np, porta, porta.exchange as px
    porta.init(backend="serial", args=[])
    try:
        px.Decomp(0, (4, 4))
    except RuntimeError as e:
        print("RAISED", e)
    try:
        px.global_sum(0, 1.0)
    except RuntimeError as e:
        print("SUM RAISED", e)
    import mpi4py
    mpi4py.rc.initialize = mpi4py.rc.finalize = False
    from mpi4py import MPI  # loaded, MPI not initialised: its communicators cannot be used yet
    try:
        px.Decomp(MPI.COMM_WORLD, (4, 4))
    except RuntimeError as e:
        print("COMM RAISED", e)
''')


pytestmark = pytest.mark.skipif(mpi_ready() is not None, reason=str(mpi_ready()))


def mpirun(tmp_path, ranks, *args):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    # a hang (ranks waiting for each other) fails after the time limit, every rank ended
    rc, stdout, stderr = run_ranks(ranks, [sys.executable, str(script)] + list(args),
                                   mpi_env(tmp_path), timeout=120)
    out = stdout + stderr
    assert rc == 0, out
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines == ["RESULT OK %d" % ranks], out


def host_spaces():
    return ["serial", "openmp"]


@pytest.mark.parametrize("ranks", [1, 2, 3])
@pytest.mark.parametrize("backend", host_spaces())
def test_halo2d_ghosts_hold_the_owners_values(tmp_path, ranks, backend):
    mpirun(tmp_path, ranks, "halo", backend)


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_plan_ring_accumulate_update_and_decomp(tmp_path, ranks):
    mpirun(tmp_path, ranks, "plan", "serial")


@pytest.mark.parametrize("ranks", [1, 3])
def test_global_sum_is_mpi4py_s_allreduce(tmp_path, ranks):
    mpirun(tmp_path, ranks, "sums", "serial")


def test_bad_inputs_raise_with_the_reason(tmp_path):
    mpirun(tmp_path, 2, "errors", "serial")


def env_mpi(tmp_path):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_PROC_BIND="false",
               PORTA_CACHE_DIR=str(tmp_path / "cache"), PORTA_BACKEND="serial")
    return env


@pytest.mark.skipif(shutil.which("mpicc") is None, reason="no mpicc")
@pytest.mark.parametrize("ranks", [2, 3])
def test_python_halo2d_gives_the_c_library_s_values(tmp_path, ranks):
    import porta
    prefix = os.path.join(os.path.dirname(porta.__file__), "_porta")
    src = tmp_path / "c_halo.c"
    src.write_text(C_HALO)
    exe = tmp_path / "c_halo"
    lib = os.path.join(prefix, "lib")
    subprocess.run(["mpicc", "-std=c11", "-O1", "-fopenmp", "-I" + os.path.join(prefix, "include"),
                    str(src), "-o", str(exe), "-L" + lib, "-lporta_exchange", "-lporta",
                    "-Wl,-rpath," + lib], check=True, capture_output=True, text=True)
    script = tmp_path / "py_halo.py"
    script.write_text(PY_HALO)
    env = env_mpi(tmp_path)
    for H, depth, x_dim in ((2, 2, 0), (2, 1, 1), (1, 1, 1)):
        for f in tmp_path.glob("*.bin"):
            f.unlink()
        args = [str(tmp_path), str(H), str(depth), str(x_dim)]
        for cmd in ([str(exe)], [sys.executable, str(script)]):
            rc, out, err = run_ranks(ranks, cmd + args, env, timeout=120)
            assert rc == 0, out + err
        for k in range(ranks):
            c = (tmp_path / ("c_%d.bin" % k)).read_bytes()
            p = (tmp_path / ("py_%d.bin" % k)).read_bytes()
            assert len(c) > 0 and c == p, (H, depth, x_dim, k)


def test_without_mpi_initialised_it_raises(tmp_path):
    r = subprocess.run([sys.executable, "-c", NO_INIT], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, PORTA_CACHE_DIR=str(tmp_path)))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "RAISED" in r.stdout and "from mpi4py import MPI" in r.stdout, r.stdout + r.stderr
    assert "SUM RAISED global_sum: MPI is not initialised" in r.stdout, r.stdout + r.stderr
    assert "COMM RAISED Decomp: MPI is not initialised" in r.stdout, r.stdout + r.stderr


def test_import_porta_does_not_load_mpi():
    r = subprocess.run([sys.executable, "-c", "import sys, porta; "
                        "print('porta._exchange' in sys.modules, "
                        "any('libmpi' in ln for ln in open('/proc/self/maps')))"],
                       capture_output=True, text=True, timeout=120)
    assert r.stdout.split() == ["False", "False"], r.stdout + r.stderr
