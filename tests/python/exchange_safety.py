"""The program of tests/python/test_exchange_safety.py, run on every rank of `mpirun`:
    python exchange_safety.py CASE BACKEND
CASE is "layouts" (Plan fields in every layout: strided, sliced, F order, read-only,
negative strides), "mismatch" (arguments that differ between the ranks, or that one rank
refuses: every rank must raise, naming the argument and the values, and the ranks go on
exchanging afterwards), "comm" (communicators: only mpi4py's), "cuda" (Plan fields on the
GPU) or "disagree-depth", "-sum", "-counts", "-fields" (one call made differently on the
ranks: each rank prints the exception it raised). Each rank checks the values it receives; rank 0 prints "RESULT OK <ranks>" or every
rank's failures."""
import sys

import numpy as np
from mpi4py import MPI

import porta
import porta.exchange as px

comm = MPI.COMM_WORLD
r, n = comm.rank, comm.size
right, left = (r + 1) % n, (r - 1) % n
failures = []


def check(what, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.array_equal(got, want):
        failures.append("%s: got %r, want %r" % (what, got.tolist(), want.tolist()))


def expect(exc, words, fn, what):
    """fn() raises exc whose message holds every one of `words`."""
    try:
        fn()
    except exc as e:
        if not all(w in str(e) for w in words):
            failures.append("%s: %s %r lacks %r" % (what, exc.__name__, str(e), words))
        return
    except Exception as e:  # noqa: BLE001 - reported
        failures.append("%s: expected %s %r, got %s: %s" % (what, exc.__name__, words,
                                                            type(e).__name__, e))
        return
    failures.append("%s: expected %s %r, nothing raised" % (what, exc.__name__, words))


def ring(send, recv, **kw):
    """A plan sending the values at offsets `send` to the right neighbour and receiving the
    left neighbour's into offsets `recv` (on 1 rank both are this rank): two entries, one
    that only sends and one that only receives."""
    return px.Plan(comm, [right, left], [len(send), 0], send, [0, len(recv)], recv, **kw)


def mark(a, rank):
    """Values that tell rank and position apart: 1000 (rank + 1) + position in layout order."""
    a[...] = 1000.0 * (rank + 1) + np.arange(a.size).reshape(a.shape)


# ---- Plan fields in every layout ----

def layouts():
    # x = xb[::2]: offset k is x[k]; xb's other elements are not the field's
    xb = np.full(16, -1.0)
    x = xb[::2]
    mark(x, r)
    with ring([0, 1], [5, 6], label="strided") as p:
        p.run([x])
    want = 1000.0 * (r + 1) + np.arange(8)
    want[5:7] = 1000.0 * (left + 1) + np.arange(2)
    check("x = xb[::2] after the exchange", x, want)
    check("xb's odd elements (not the field's)", xb[1::2], np.full(8, -1.0))

    # a 2D slice of a C array (rows 1..3, every second column): offsets in C order
    base = np.full((5, 8), -1.0)
    a = base[1:4, ::2]  # 3 x 4, strides (8, 2) elements
    mark(a, r)
    with ring([0, 5], [10, 11], label="slice") as p:
        p.run([a])
    want = (1000.0 * (r + 1) + np.arange(12)).reshape(3, 4)
    want[2, 2:4] = 1000.0 * (left + 1) + np.array([0, 5])
    check("a = base[1:4, ::2]", a, want)
    rest = base.copy()
    rest[1:4, ::2] = 0
    check("base outside the slice", rest[rest != 0], np.full(40 - 12, -1.0))

    # F order (contiguous) and a slice of an F array: offsets in F order
    f = np.asfortranarray(np.zeros((3, 4)))
    mark(f.T, r)  # f.T is C-ordered: layout order of f is F order
    fb = np.asfortranarray(np.full((6, 4), -1.0))
    g = fb[::2, :]  # 3 x 4, strides (2, 6) elements: F-like
    mark(g.T, r)
    with ring([1, 4], [9, 10], max_fields=2, label="F") as p:
        p.run([f, g])
    want = (1000.0 * (r + 1) + np.arange(12)).reshape(4, 3).T
    want.T.reshape(-1)[9:11] = 1000.0 * (left + 1) + np.array([1, 4])
    check("F-ordered f", f, want)
    check("g = fb[::2, :] (F order)", g, want)
    check("fb's rows not in g", fb[1::2, :], np.full((3, 4), -1.0))

    # a strided int32 field (4-byte values) beside a contiguous one
    ib = np.zeros(12, dtype=np.int32)
    i = ib[1::3]  # 4 elements
    i[:] = 10 * (r + 1) + np.arange(4)
    j = np.zeros(4, dtype=np.int32)
    j[:] = 20 * (r + 1) + np.arange(4)
    with ring([3], [0], dtype=np.int32, max_fields=2, label="int32") as p:
        p.run([i, j])
    check("int32 strided", i, [10 * (left + 1) + 3] + [10 * (r + 1) + k for k in (1, 2, 3)])
    check("int32 contiguous", j, [20 * (left + 1) + 3] + [20 * (r + 1) + k for k in (1, 2, 3)])
    check("int32 base outside i", np.delete(ib, np.arange(1, 12, 3)), np.zeros(8))

    # start ... finish: elements the plan does not receive into may change in between and
    # keep their new values (only received offsets are written back)
    xb = np.full(16, -1.0)
    x = xb[::2]
    mark(x, r)
    with ring([0, 1], [5, 6], label="overlap") as p:
        p.start([x])
        x[0] = 7.0  # sent already: the neighbour gets the old value
        x[3] = 8.0
        p.finish()
    want = 1000.0 * (r + 1) + np.arange(8)
    want[0], want[3] = 7.0, 8.0
    want[5:7] = 1000.0 * (left + 1) + np.arange(2)
    check("strided field changed between start and finish", x, want)

    # accumulate into a strided field: the received values are added
    xb = np.full(16, -1.0)
    x = xb[::2]
    x[:] = 0.5
    x[0] = r + 1.0
    with ring([0], [4], label="add") as p:
        p.set_accumulate(True)
        p.run(x)
    want = np.full(8, 0.5)
    want[0] = r + 1.0
    want[4] = 0.5 + left + 1.0
    check("accumulated into x = xb[::2]", x, want)
    check("xb's odd elements after accumulating", xb[1::2], np.full(8, -1.0))

    # refusals: a read-only field that receives, negative strides, too few elements
    p = ring([0], [3], max_fields=2, label="refusals")
    ro = np.zeros(8)
    ro.flags.writeable = False
    expect(ValueError, ["field 0", "read-only"], lambda: p.run([ro]), "read-only target")
    expect(ValueError, ["field 0", "negative"], lambda: p.run([np.zeros(8)[::-1]]),
           "negative stride")
    expect(ValueError, ["field 1", "negative"],
           lambda: p.run([np.zeros(8), np.zeros((4, 4))[:, ::-1]]), "negative stride, field 1")
    expect(ValueError, ["field 0", "3 elements", "offsets up to 3"],
           lambda: p.run([np.zeros(6)[::2]]), "strided field too short")
    expect(ValueError, ["field 0", "overlap"],
           lambda: p.run([np.lib.stride_tricks.as_strided(np.zeros(8), (4,), (0,))]),
           "zero stride")
    p.close()

    # a host porta.View's subview (rows 1..3, columns 1..4 of 4 x 6: padded): C order
    v = porta.View((4, 6), porta.f64, label="v")
    np.asarray(v)[...] = -1.0
    sv = porta.subview(v, slice(1, 4), slice(1, 5))
    mark(np.asarray(sv), r)
    with ring([2, 3], [8, 9], label="subview") as p:
        p.run([sv])
    want = np.full((4, 6), -1.0)
    want[1:4, 1:5] = (1000.0 * (r + 1) + np.arange(12)).reshape(3, 4)
    want[3, 1:3] = 1000.0 * (left + 1) + np.array([2, 3])
    check("View subview [1:4, 1:5] and the View around it", np.asarray(v), want)

    # a read-only field is fine where the plan receives nothing into it (this rank only
    # sends): rank 0 sends x[1] of a read-only strided array to rank 1
    if n > 1:
        src = np.arange(10.0)[::2]
        src.flags.writeable = False
        dst = np.zeros(10)[::2]
        if r == 0:
            p = px.Plan(comm, [1], [1], [1], [0], [], label="one-way")
        elif r == 1:
            p = px.Plan(comm, [0], [0], [], [1], [3], label="one-way")
        else:
            p = px.Plan(comm, [], [], [], [], [], label="one-way")
        p.run([src if r == 0 else dst])
        if r == 1:
            check("received from a read-only sender", dst, [0, 0, 0, 2.0, 0])
        p.close()

    # Halo2D: a field with a non-unit inner stride (every second column of a wider array)
    d = px.Decomp(comm, (11, 9))
    H = 1
    h = px.Halo2D(d, halo=H, x_dim=1, tag=3000)
    lx, ly = d.local
    wide = np.full((ly + 2 * H, 2 * (lx + 2 * H)), -1.0)
    u = wide[:, ::2]  # [y, x]
    gx = d.offset[0] + np.arange(-H, lx + H)
    gy = d.offset[1] + np.arange(-H, ly + H)
    value = 31.0 * gx[None, :] + gy[:, None]
    u[H:H + ly, H:H + lx] = value[H:H + ly, H:H + lx]
    h.exchange([u])
    inside = ((gx[None, :] >= 0) & (gx[None, :] < d.global_cells[0]) &
              (gy[:, None] >= 0) & (gy[:, None] < d.global_cells[1]))
    want = np.where(inside, value, -1.0)
    check("Halo2D field = wide[:, ::2]", u, want)
    check("wide's odd columns", wide[:, 1::2], np.full((ly + 2 * H, lx + 2 * H), -1.0))
    expect(ValueError, ["Halo2D.exchange", "field 0", "negative"], lambda: h.exchange([u[::-1]]),
           "Halo2D field with a negative stride")
    u.flags.writeable = False
    expect(ValueError, ["Halo2D.exchange", "field 0", "read-only"], lambda: h.exchange([u]),
           "read-only Halo2D field")
    h.close()


# ---- arguments that differ between ranks ----

def mismatch():
    odd = r == n - 1  # the last rank passes other values
    last = n - 1
    V = ValueError

    def on_all(words, fn, what):
        expect(V, words, fn, what)

    on_all(["Decomp", "dims", "(%d, 1)" % n, "(1, %d)" % n, "rank %d" % last],
           lambda: px.Decomp(comm, (6, 6), dims=(1, n) if odd else (n, 1)), "Decomp dims")
    on_all(["Decomp", "global_cells", "(6, 6)", "(7, 6)", "rank %d" % last],
           lambda: px.Decomp(comm, (7, 6) if odd else (6, 6)), "Decomp global_cells")
    on_all(["Decomp", "dims", "None", "(%d, 1)" % n],
           lambda: px.Decomp(comm, (6, 6), dims=(n, 1) if odd else None), "Decomp dims None")
    # one rank refuses its arguments: it raises its own error, the others say where
    if odd:
        expect(TypeError, ["global_cells[1]", "integer", "str"],
               lambda: px.Decomp(comm, (6, "6")), "Decomp refused here")
    else:
        on_all(["Decomp", "refused on rank %d" % last], lambda: px.Decomp(comm, (6, 6)),
               "Decomp refused elsewhere")

    d = px.Decomp(comm, (6, 6))
    on_all(["Halo2D", "tag", "1000", "1001"],
           lambda: px.Halo2D(d, halo=2, tag=1001 if odd else 1000), "Halo2D tag")
    on_all(["Halo2D", "halo", "1", "2"], lambda: px.Halo2D(d, halo=2 if odd else 1),
           "Halo2D halo")
    on_all(["Halo2D", "max_fields"], lambda: px.Halo2D(d, max_fields=2 if odd else 1),
           "Halo2D max_fields")
    on_all(["Halo2D", "x_dim"], lambda: px.Halo2D(d, x_dim=0 if odd else 1), "Halo2D x_dim")
    # different calls meeting: the last rank makes a Halo2D while the others make a Decomp
    on_all(["another collective call"],
           lambda: px.Halo2D(d) if odd else px.Decomp(comm, (6, 6)), "different calls")
    other = px.Decomp(comm, (7, 6))
    on_all(["Halo2D", "decomp.global_cells"], lambda: px.Halo2D(other if odd else d),
           "Halo2D of another Decomp")

    H = 2
    h = px.Halo2D(d, halo=H, max_fields=2, tag=4000)
    lx, ly = d.local
    shape = (ly + 2 * H, lx + 2 * H)  # [y, x]
    u, w = np.full(shape, -1.0), np.full(shape, -1.0)
    # the first exchange: depth, the number of fields, one rank's bad field
    on_all(["Halo2D.exchange", "depth", "1 on rank", "2 on rank %d" % last],
           lambda: h.exchange([u], depth=2 if odd else 1), "exchange depth")
    on_all(["Halo2D.exchange", "number of fields", "1 on rank", "2 on rank %d" % last],
           lambda: h.exchange([u, w] if odd else [u], depth=1), "exchange fields")
    if odd:
        expect(V, ["Halo2D.exchange", "field 0", "extents"],
               lambda: h.exchange([np.zeros((3, 3))]), "exchange refused here")
    else:
        on_all(["Halo2D.exchange", "refused on rank %d" % last], lambda: h.exchange([u]),
               "exchange refused elsewhere")
    if odd:
        expect(V, ["Halo2D.prepare", "field 0", "extents"],
               lambda: h.prepare(np.zeros((3, 3))), "prepare refused here")
    else:
        on_all(["Halo2D.prepare", "refused on rank %d" % last], lambda: h.prepare(u),
               "prepare refused elsewhere")
    # and then the ranks agree and exchange: the ghosts hold the neighbours' values
    gx = d.offset[0] + np.arange(-H, lx + H)
    gy = d.offset[1] + np.arange(-H, ly + H)
    value = 31.0 * gx[None, :] + gy[:, None]
    for depth in (1, 2, 1):
        u[...] = -1.0
        u[H:H + ly, H:H + lx] = value[H:H + ly, H:H + lx]
        h.exchange([u], depth=depth)
        near = ((gx[None, :] >= d.offset[0] - depth) & (gx[None, :] < d.offset[0] + lx + depth) &
                (gy[:, None] >= d.offset[1] - depth) & (gy[:, None] < d.offset[1] + ly + depth))
        inside = ((gx[None, :] >= 0) & (gx[None, :] < 6) & (gy[:, None] >= 0) &
                  (gy[:, None] < 6))
        check("halo depth %d after the refusals" % depth, u,
              np.where(near & inside, value, -1.0))
    h.close()

    # check_every_exchange: ranks that differ after both depths were used raise too
    h = px.Halo2D(d, halo=H, max_fields=2, tag=5000, check_every_exchange=True)
    h.exchange([u], depth=1)
    h.exchange([u], depth=2)
    on_all(["Halo2D.exchange", "depth", "1 on rank", "2 on rank %d" % last],
           lambda: h.exchange([u], depth=2 if odd else 1), "every exchange: depth")
    if odd:
        expect(V, ["Halo2D.exchange", "field 0", "extents"],
               lambda: h.exchange([np.zeros((3, 3))]), "every exchange: refused here")
    else:
        on_all(["Halo2D.exchange", "refused on rank %d" % last], lambda: h.exchange([u]),
               "every exchange: refused elsewhere")
    u[...] = -1.0
    u[H:H + ly, H:H + lx] = value[H:H + ly, H:H + lx]
    h.exchange([u], depth=1)
    near = ((gx[None, :] >= d.offset[0] - 1) & (gx[None, :] < d.offset[0] + lx + 1) &
            (gy[:, None] >= d.offset[1] - 1) & (gy[:, None] < d.offset[1] + ly + 1))
    check("every exchange: halo after the refusals", u, np.where(near & inside, value, -1.0))
    h.close()
    on_all(["Halo2D", "check_every_exchange"],
           lambda: px.Halo2D(d, check_every_exchange=odd), "check_every_exchange itself")

    # Plans: tag, value size, one rank's bad offset
    on_all(["Plan", "tag", "7", "8"],
           lambda: ring([0], [1], tag=8 if odd else 7), "Plan tag")
    on_all(["Plan", "value_size", "8", "4"],
           lambda: ring([0], [1], dtype=np.float32 if odd else np.float64), "Plan value_size")
    if odd:
        expect(V, ["send_index[0]", "negative"], lambda: ring([-1], [1]), "Plan refused here")
    else:
        on_all(["Plan", "refused on rank %d" % last], lambda: ring([0], [1]),
               "Plan refused elsewhere")
    # Plan.run and global_sum: one rank's fields or values refused, the others raise too
    with ring([0], [3], tag=10, label="short") as p:
        if odd:
            expect(V, ["Plan.start", "field 0", "offsets up to 3"], lambda: p.run([np.zeros(2)]),
                   "Plan.run refused here")
        else:
            on_all(["Plan.start", "refused on rank %d" % last], lambda: p.run([np.zeros(4)]),
                   "Plan.run refused elsewhere")
    if odd:
        expect(TypeError, ["global_sum", "value 1", "str"], lambda: px.global_sum(comm, "x"),
               "global_sum refused here")
    else:
        on_all(["global_sum", "refused on rank %d" % last], lambda: px.global_sum(comm, 1.0),
               "global_sum refused elsewhere")
    check("global_sum after the refusals", [px.global_sum(comm, 1.0, 2.0)], [(n, 2.0 * n)])
    with ring([0], [1], tag=9) as p:  # then one that agrees
        x = np.array([float(r), -1.0])
        p.run([x])
        check("plan after the refusals", x, [float(r), float(left)])


# ---- communicators ----

def comms():
    T = TypeError
    expect(T, ["Decomp", "mpi4py communicator", "int"], lambda: px.Decomp(12345, (6, 6)),
           "Decomp(12345)")
    expect(T, ["Decomp", "mpi4py communicator", "int"],
           lambda: px.Decomp(comm.py2f(), (6, 6)), "Decomp(a Fortran handle)")
    expect(T, ["Decomp", "mpi4py communicator", "NoneType"], lambda: px.Decomp(None, (6, 6)),
           "Decomp(None)")
    expect(T, ["Plan", "mpi4py communicator", "int"],
           lambda: px.Plan(0, [r], [1], [0], [1], [1]), "Plan(0)")
    expect(T, ["global_sum", "mpi4py communicator", "int"], lambda: px.global_sum(12345, 1.0),
           "global_sum(12345)")
    expect(T, ["global_sum", "mpi4py communicator", "int64"],
           lambda: px.global_sum(np.int64(0), 1.0), "global_sum(np.int64(0))")
    expect(ValueError, ["COMM_NULL"], lambda: px.Decomp(MPI.COMM_NULL, (6, 6)),
           "Decomp(COMM_NULL)")
    # mpi4py communicators other than COMM_WORLD
    d = px.Decomp(MPI.COMM_SELF, (4, 3))
    check("Decomp on COMM_SELF", [d.nranks, d.rank] + list(d.local), [1, 0, 4, 3])
    sub = comm.Split(r % 2, r)
    d = px.Decomp(sub, (8, 8))
    check("Decomp on a split communicator", [d.nranks, d.rank], [sub.size, sub.rank])
    check("global_sum on it", [px.global_sum(sub, 1.0)], [float(sub.size)])
    if n > 1:
        inter = sub.Create_intercomm(0, comm, 1 - r % 2, 77)
        expect(ValueError, ["Decomp", "intercommunicator"], lambda: px.Decomp(inter, (4, 4)),
               "Decomp(an intercommunicator)")
        inter.Free()
    sub.Free()


# ---- on the GPU ----

def cuda():
    """Plan fields in device memory: a contiguous View works; a non-contiguous one (the host
    cannot stage it) is refused with a ValueError naming the field."""
    v = porta.View((4, 6), porta.f64, space="cuda", layout="C", label="v")
    host = np.zeros((4, 6))
    mark(host, r)
    porta.deep_copy(v, host)
    with ring([0, 1], [20, 21], label="device") as p:
        p.run([v])
        back = np.zeros((4, 6))
        porta.deep_copy(back, v)
        want = host.copy()
        want.reshape(-1)[20:22] = 1000.0 * (left + 1) + np.arange(2)
        check("device View after the exchange", back, want)
        part = porta.subview(v, slice(0, 4), slice(0, 3))  # rows of 3 of 6: not one block
        expect(ValueError, ["field 0", "contiguous"], lambda: p.run([part]),
               "non-contiguous device field")


# ---- calls that differ between ranks (issue 68): every rank raises the same exception ----

def disagree(case):
    """One call made differently on the ranks: rank 0 one way, the others another. Each rank
    prints "RAISED <rank> <type>: <message>" or "RETURNED <rank>" (the test compares every
    rank's line); before the calls agreed, these hung or raised on one rank only."""
    try:
        if case == "depth":  # rank 0 repeats depth 1, the others ask depth 2 for the first time
            d = px.Decomp(comm, (8, 8))
            h = px.Halo2D(d, halo=2, tag=6000)
            u = np.zeros((d.local[1] + 4, d.local[0] + 4))
            h.exchange([u], depth=1)
            h.exchange([u], depth=1 if r == 0 else 2)
        elif case == "sum":  # two values on rank 0, one elsewhere
            px.global_sum(comm, *((1.0, 2.0) if r == 0 else (1.0,)))
        elif case == "counts":  # rank 0 sends 2 values to rank 1, which receives 1 from it
            x = np.zeros(4)
            if r == 0:
                p = px.Plan(comm, [1], [2], [0, 1], [1], [2], label="counts")
            elif r == 1:
                p = px.Plan(comm, [0], [1], [0], [1], [2], label="counts")
            else:
                p = px.Plan(comm, [], [], [], [], [], label="counts")
            p.run([x])
        elif case == "fields":  # rank 0 exchanges 2 fields, the others 1
            p = ring([0], [1], max_fields=2, label="fields")
            x, y = np.zeros(2), np.zeros(2)
            p.run([x, y] if r == 0 else [x])
        else:
            raise SystemExit("unknown case " + case)
    except Exception as e:  # noqa: BLE001 - printed for the test
        line = "RAISED %d %s: %s" % (r, type(e).__name__, e)
    else:
        line = "RETURNED %d" % r
    sys.stdout.write(line + "\n")  # one write: mpirun keeps the ranks' lines apart
    sys.stdout.flush()


if __name__ == "__main__":
    case, backend = sys.argv[1], sys.argv[2]
    porta.init(backend=backend, threads=2 if backend == "openmp" else None, args=[])
    if case.startswith("disagree-"):
        disagree(case[len("disagree-"):])
        sys.exit(0)
    {"layouts": layouts, "mismatch": mismatch, "comm": comms, "cuda": cuda}[case]()
    every = comm.gather(failures[:10], root=0)
    if r == 0:
        print("RESULT " + ("OK %d" % n if not any(every) else " | ".join(
            "rank %d: %s" % (k, "; ".join(f)) for k, f in enumerate(every) if f)), flush=True)
