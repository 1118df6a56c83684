"""A performance model of the three apps on P GPUs, one rank a GPU (standard library only).

Time per iteration (TeaLeaf and miniFE: a CG iteration, miniMD: a time step):

  t(P) = compute(P) + halo(P) + sums(P) [+ reneighbour(P), miniMD]

  compute  = fixed + (t1 - fixed) * W(P) / W(1): the measured one-GPU time t1 of the same problem,
             its part above `fixed` (the per-iteration cost that does not shrink with the cells:
             launch gaps, the reductions' tails) scaled by the largest rank's work W (cells, rows,
             atoms) under the decomposition the app really uses;
  halo     = one term per exchange phase: its latency (intra-node; plus the network's extra
             latency when a message crosses nodes) + the slowest rank's bytes over the link it
             uses (NVLink per peer, or the node's NIC shared by the rank's inter-node messages);
  sums     = a latency per global sum: measured on one node for 2 and 4 GPUs, and NCCL's own
             latency model (tree or ring, the faster) for the increase across nodes;
  reneighbour (miniMD) = each re-neighbouring's message rounds (migration, borders) and its
             atom-count sum, spread over the steps between re-neighbourings.

The machine's figures come from one JSON file (model_h100.json beside this file), each with
its source. The apps' structure (which decomposition, how many sums and exchanges an iteration,
the message sizes) is in this file, read from the apps' code (see docs/clusters.md)."""
import json
import math
import os

from porta_runs import factor  # MPI_Dims_create's grid, as scaling lays out a weak series

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_PARAMS = os.path.join(HERE, "model_h100.json")
SERIES = ("strong", "weak")
# the lean CG iteration on a GPU: w = A p 32 B, the r update 24 B, the u and p update 40 B
# (docs/tealeaf.md, "CG data movement")
TEALEAF_BYTES_PER_CELL = 96
# How each app communicates an iteration today, read from its code: the rounds of global sums
# (TeaLeaf's and miniFE's CG: 2, each waiting for the kernel before it), whether the halo
# exchange hides behind compute (not counted then), and the latency class of an exchange phase
# (`halo_phase_latency_s`: "nccl" queued in the recorded loop, "ipc" driven from the host).
# Change these with the code (a CG with one sum round, an exchange beside the update).
STRUCTURE = {
    # TeaLeaf: p's faces in one exchange beside the inside's u, p update (40 of the iteration's
    # 96 B/cell), which hides it up to that time
    "tealeaf": {"sum_rounds": 2, "halo_hidden": False, "phase": "peer", "faces": True,
                "halo_overlap": 40.0 / 96.0},
    "minife": {"sum_rounds": 2, "halo_hidden": False, "phase": "peer"},
    # miniMD: the forward swaps queued on a second stream beside the forces of the atoms with no
    # neighbour among other ranks' ghosts (the force kernel is about 0.9 of a step's compute on
    # one GPU), which hides them up to that time
    "minimd": {"halo_hidden": False, "phase": "peer", "force_share": 0.9},
}


# ---- parameters -------------------------------------------------------------------------------

PARAMS_MAX_BYTES = 1 << 20  # the file is a few kB: a larger one is not a parameter file
APPS = ("tealeaf", "minife", "minimd")
# What the model reads from the file, and what each value must be: "rate" a bandwidth in B/s and
# "t1" a measured time, finite and > 0; "time" a latency or a fixed part, finite and >= 0 (a
# figure of 0 leaves that cost out); a tuple: an object of those keys (all of them), or of rank
# counts ("ranks": keys "1", "2", ..., at least one) or of some apps ("apps"). Other entries
# (_doc, measured_before, ...) are the file's notes, not read.
PARAMS_SHAPE = {
    "memory_bandwidth_Bps": "rate", "nvlink_bandwidth_Bps": "rate", "nic_bandwidth_Bps": "rate",
    "sum_latency_s": ("ranks", "time"), "sum_latency_nccl_s": ("ranks", "time"),
    "halo_phase_latency_s": (("nccl", "peer", "ipc"), "time"),
    "reneighbour_round_s": "time", "plan_update_s": "time",
    "fixed_s": (APPS, "time"), "inter_node_extra_latency_s": "time",
    "nccl_base_latency_s": (("tree", "ring"), "time"), "nccl_nvlink_hop_s": "time",
    "nccl_net_hop_s": (("tree", "ring"), "time"), "nccl_net_overhead_s": "time",
    "one_gpu": (APPS, (SERIES, "one_gpu")),
}
PARAMS_OPTIONAL = {"residual_s": ("apps", ("ranks", "time"))}


def check_value(where, v, kind):
    """Raise ValueError naming `where` unless v is of `kind` (see PARAMS_SHAPE)."""
    if isinstance(kind, tuple):
        keys, inner = kind
        if not isinstance(v, dict):
            raise ValueError(f"{where} is {type(v).__name__ if v is not None else 'null'}, "
                             "not an object")
        if keys == "ranks":
            if not v:
                raise ValueError(f"{where} is empty: it needs the figure of 1 or more ranks")
            for k in v:
                if not (k.isdigit() and int(k) >= 1):
                    raise ValueError(f"{where} has the key {k!r}: rank counts (\"2\", \"4\") "
                                     "are its keys")
        elif keys == "apps":
            for k in v:
                if k not in APPS:
                    raise ValueError(f"{where} has the key {k!r}: not one of {', '.join(APPS)}")
        else:
            missing = [k for k in keys if k not in v]
            if missing:
                raise ValueError(f"{where} lacks {', '.join(repr(k) for k in missing)}")
        for k in (v if keys in ("ranks", "apps") else keys):
            check_value(f"{where}.{k}", v[k], inner)
        return
    if kind == "one_gpu":
        check_value(where, v, (("size", "t1_s"), "any"))
        if not isinstance(v["size"], str) or not v["size"].strip():
            raise ValueError(f"{where}.size is {v['size']!r}, not a problem size (a string)")
        check_value(f"{where}.t1_s", v["t1_s"], "t1")
        return
    if kind == "any":
        return
    # bool is an int to Python, not a number to the model; json reads NaN and Infinity too
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        got = (json.dumps(v) if isinstance(v, bool) else "null" if v is None else
               f"{type(v).__name__} {v!r}" if not isinstance(v, (dict, list)) else
               type(v).__name__)
        raise ValueError(f"{where} is {got}, not a number")
    if not math.isfinite(v):
        raise ValueError(f"{where} is {v}, not a finite number")
    unit = "B/s" if kind == "rate" else "s"
    if kind in ("rate", "t1") and v <= 0:
        raise ValueError(f"{where} is {v!r}: a {'bandwidth' if kind == 'rate' else 'time'} "
                         f"must be > 0 {unit}")
    if v < 0:
        raise ValueError(f"{where} is {v!r}: a time must be >= 0 s")


def check_params(p):
    """The parameters as the model reads them, checked: ValueError naming the first bad entry."""
    if not isinstance(p, dict):
        raise ValueError(f"a JSON {type(p).__name__ if p is not None else 'null'}, not an "
                         "object of named parameters")
    missing = [k for k in PARAMS_SHAPE if k not in p]
    if missing:
        raise ValueError(f"lacks {', '.join(missing)}")
    for k, kind in list(PARAMS_SHAPE.items()) + [(k, v) for k, v in PARAMS_OPTIONAL.items()
                                                 if k in p]:
        check_value(k, p[k], kind)
    return p


def load_params(path=None):
    """The parameter file as {name: value}; every entry of the file is {"value", "source"}.
    It must be a regular file of at most PARAMS_MAX_BYTES holding a JSON object of the shape
    PARAMS_SHAPE says: OSError where it cannot be read, ValueError (saying what is wrong)
    otherwise."""
    from porta_runs import read_regular
    data = read_regular(path or DEFAULT_PARAMS, PARAMS_MAX_BYTES)
    try:
        raw = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ValueError("not a text file (UTF-8)") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"a JSON {type(raw).__name__ if raw is not None else 'null'}, not an "
                         "object of named parameters")
    return check_params({k: (v["value"] if isinstance(v, dict) and "value" in v else v)
                         for k, v in raw.items()})


# ---- problem sizes ----------------------------------------------------------------------------

def tealeaf_cells(deck):
    """(x_cells, y_cells) of a TeaLeaf deck: a path, or a name in inputs/tealeaf."""
    path = deck if os.path.isfile(deck) else os.path.join(ROOT, "inputs", "tealeaf", deck)
    cells = {}
    with open(path) as f:
        for line in f:
            key, sep, val = line.strip().partition("=")
            if sep and key.strip() in ("x_cells", "y_cells"):
                cells[key.strip()] = int(val)
    if min(cells["x_cells"], cells["y_cells"]) < 1:
        raise ValueError(f"{deck}: a grid of {cells['x_cells']} x {cells['y_cells']} cells")
    return cells["x_cells"], cells["y_cells"]


def minimd_deck(pot):
    """(density, cutoff + skin, re-neighbouring interval, thermo interval) of the app's deck."""
    with open(os.path.join(ROOT, "inputs", "minimd", f"in.{pot}.miniMD")) as f:
        lines = f.read().splitlines()
    # the reference's fixed line positions (apps/minimd/minimd_input.c)
    density = float(lines[10].split()[0])
    every = int(lines[11].split()[0])
    cut, skin = (float(x) for x in lines[12].split()[:2])
    thermo = int(lines[13].split()[0])
    return density, cut + skin, every, thermo


def parse_size(app, size):
    """The problem of one GPU (weak) or of all (strong): TeaLeaf a deck, miniFE elements per side,
    miniMD [lj:|eam:]unit cells per side (as scripts/scaling's --size)."""
    if app == "tealeaf":
        return {"cells": tealeaf_cells(size)}
    if app == "minife":
        n = int(size)
        if n < 1:
            raise ValueError(f"{size}: a mesh of {n} elements a side")
        return {"n": n}
    pot, _, n = size.rpartition(":")
    if int(n) < 1:
        raise ValueError(f"{size}: a box of {int(n)} unit cells a side")
    return {"pot": pot or "lj", "cells": int(n)}


# ---- decompositions ---------------------------------------------------------------------------

def split(n, parts, index):
    """porta_split: (offset, count) of part `index` of n cells in `parts`."""
    q, r = divmod(n, parts)
    return q * index + min(index, r), q + (1 if index < r else 0)


def tealeaf_grid(P, nx, ny):
    """porta_dims_for_cells in 2D: the grid with the fewest cut cells, MPI_Dims_create's where
    it is as good (core/exchange/src/decomp.c)."""
    def cut(d):
        return (d[0] - 1) * ny + (d[1] - 1) * nx
    best = None
    for d0 in range(P, 0, -1):
        if P % d0 == 0:
            d = (d0, P // d0)
            if d[0] <= nx and d[1] <= ny and (best is None or cut(d) < cut(best)):
                best = d
    mpi = factor(P, 2)[:2]
    if best is None:
        raise ValueError(f"{nx} x {ny} cells cannot be split over {P} ranks")
    if mpi[0] <= nx and mpi[1] <= ny and cut(mpi) <= cut(best):
        best = mpi
    return best


def minife_boxes(P, n):
    """The reference's recursive coordinate bisection (apps/minife/minife_mesh.c): element boxes
    [lo, hi) per rank, cuts along z, y, x, z, ..."""
    boxes = [None] * P

    def part(ip, up, axis, lo, hi):
        np_ = up - ip
        if np_ == 1:
            boxes[ip] = (tuple(lo), tuple(hi))
            return
        m = hi[axis] - lo[axis]
        np_low = np_ // 2
        n_upp = int(m * ((np_ - np_low) / np_))
        n_low = m - n_upp
        nxt = (axis + 2) % 3
        lhi, ulo = list(hi), list(lo)
        lhi[axis] = lo[axis] + n_low
        ulo[axis] = lo[axis] + n_low
        if np_low:
            part(ip, ip + np_low, nxt, list(lo), lhi)
        part(ip + np_low, up, nxt, ulo, list(hi))

    part(0, P, 2, [0, 0, 0], [n[0], n[1], n[2]])
    return boxes


def minife_owned(box, n):
    """Owned node box [lo, hi) of an element box: the upper face's nodes belong to the last."""
    lo, hi = box
    return lo, tuple(hi[d] + (1 if hi[d] == n[d] else 0) for d in range(3))


def minimd_grid(P, prd):
    """minimd_comm_grid: the grid px py pz = P of least sub-domain surface, the first minimum."""
    area = (prd[0] * prd[1], prd[0] * prd[2], prd[1] * prd[2])
    best, grid = 2 * sum(area) + 1, (1, 1, P)
    for px in range(1, P + 1):
        if P % px:
            continue
        for py in range(1, P // px + 1):
            if (P // px) % py:
                continue
            pz = P // px // py
            surf = area[0] / px / py + area[1] / px / pz + area[2] / py / pz
            if surf < best:
                best, grid = surf, (px, py, pz)
    return grid


# ---- communication costs ----------------------------------------------------------------------

def node_of(rank, gpus_per_node):
    return rank // gpus_per_node


def phase_time(messages, latency, p, gpn):
    """One exchange phase: [(src, dst, bytes)] in flight together. A sender's time is the latency
    (plus the network's extra where one of its messages leaves the node) and its slowest link:
    NVLink per peer, the NIC shared by its inter-node bytes. The phase lasts the slowest's."""
    per = {}
    for src, dst, nbytes in messages:
        s = per.setdefault(src, {"peers": {}, "inter": 0.0, "crosses": False})
        if node_of(src, gpn) == node_of(dst, gpn):
            s["peers"][dst] = s["peers"].get(dst, 0.0) + nbytes
        else:
            s["inter"] += nbytes
            s["crosses"] = True
    worst = 0.0
    for s in per.values():
        link = max([b / p["nvlink_bandwidth_Bps"] for b in s["peers"].values()] +
                   [s["inter"] / p["nic_bandwidth_Bps"]])
        lat = latency + (p["inter_node_extra_latency_s"] if s["crosses"] else 0.0)
        worst = max(worst, lat + link)
    return worst


def phase_latency(P, gpn, st, p):
    """An exchange phase's latency: the app's transport on one node; NCCL's across nodes (the
    peer transport maps memory of one node only)."""
    phase = st["phase"]
    if phase == "peer" and P > gpn:
        phase = "nccl"
    return p["halo_phase_latency_s"][phase]


def nccl_allreduce_latency(P, nodes, p):
    """NCCL's tuning model for a small all-reduce (LL protocol; src/graph/tuning.cc): tree and
    ring, the faster, in seconds."""
    if P <= 1:
        return 0.0
    ppn = P // nodes
    intra = p["nccl_nvlink_hop_s"]
    tree = p["nccl_base_latency_s"]["tree"] + 2 * (
        (ppn - 1) * intra + int(math.log2(nodes)) * p["nccl_net_hop_s"]["tree"])
    nsteps, ninter = 2 * (P - 1), (2 * nodes if nodes > 1 else 0)
    ring_intra = max(intra, p["nccl_net_overhead_s"]) if nodes > 1 else intra
    ring = p["nccl_base_latency_s"]["ring"] + (nsteps - ninter) * ring_intra + \
        ninter * p["nccl_net_hop_s"]["ring"]
    return min(tree, ring)


def sum_latency(P, gpn, p):
    """One global sum of a few doubles on P GPUs, gpn a node: the measured figure of the GPUs of
    one node (the nearest measured count at or above, else extended by NCCL's model), plus what
    NCCL's model adds from one node to P / gpn nodes."""
    if P <= 1:
        return 0.0
    ppn = min(P, gpn)
    if -(-P // gpn) == 1:  # one node: the peer transport's figure
        measured = {int(k): v for k, v in p["sum_latency_s"].items()}
        above = [m for m in sorted(measured) if m >= ppn]
        if above:
            return measured[above[0]]
    # across nodes NCCL sums: its measured one-node figure, extended by its model
    measured = {int(k): v for k, v in p["sum_latency_nccl_s"].items()}
    above = [m for m in sorted(measured) if m >= ppn]
    if above:
        base = measured[above[0]]
    else:
        top = max(measured)
        base = measured[top] + nccl_allreduce_latency(ppn, 1, p) - \
            nccl_allreduce_latency(top, 1, p)
    nodes = -(-P // gpn)
    if nodes == 1:
        return base
    return base + nccl_allreduce_latency(nodes * ppn, nodes, p) - \
        nccl_allreduce_latency(ppn, 1, p)


# ---- the apps ---------------------------------------------------------------------------------

def tealeaf_terms(P, cells, gpn, p):
    """Work (the largest rank's cells) and communication of a CG iteration: p's exchange, depth
    1, x phase then y phase (porta_halo2d), and 2 global sums (p.w and r.r)."""
    st = STRUCTURE["tealeaf"]
    nx, ny = cells
    d = tealeaf_grid(P, nx, ny)
    local = {}
    for r in range(P):
        cx, cy = r % d[0], r // d[0]
        local[r] = (split(nx, d[0], cx)[1], split(ny, d[1], cy)[1], cx, cy)
    work = max(a * b for a, b, _, _ in local.values())
    halo = 0.0
    faces = st.get("faces", False)
    msgs = []
    for axis in (0, 1):
        if d[axis] == 1:
            continue
        if not faces:
            msgs = []
        for r, (lx, ly, cx, cy) in local.items():
            c = (cx, cy)
            for step in (-1, 1):
                nc = list(c)
                nc[axis] += step
                if 0 <= nc[axis] < d[axis]:
                    # two phases: the x phase sends a column with the ghost rows, the y phase a
                    # row; the faces alone: the owned cells of each
                    n = (ly if axis == 0 else lx) + (0 if faces else 2)
                    msgs.append((r, nc[0] + nc[1] * d[0], 8.0 * n))
        if not faces:
            halo += phase_time(msgs, phase_latency(P, gpn, st, p), p, gpn)
    if faces and msgs:
        halo = phase_time(msgs, phase_latency(P, gpn, st, p), p, gpn)
    return {"work": work, "halo": 0.0 if st["halo_hidden"] else halo,
            "halo_overlap": st.get("halo_overlap", 0.0),
            "sums": st["sum_rounds"] * sum_latency(P, gpn, p), "extra": 0.0,
            "grid": f"{d[0]}x{d[1]}", "work_name": "cells", "bytes": TEALEAF_BYTES_PER_CELL * work}


def minife_bytes(lo, hi, n):
    """A CG iteration's bytes for the rows of owned node box [lo, hi): 12 per nonzero + 116 per
    row (docs/minife.md). A row's nonzeros are its 27-point stencil cut at the mesh's faces:
    per dimension 3 nodes, 2 on the first and last node plane."""
    nnz = rows = 1
    for d in range(3):
        planes = hi[d] - lo[d]
        ends = (1 if lo[d] == 0 else 0) + (1 if hi[d] == n[d] + 1 else 0)
        nnz *= 3 * planes - ends
        rows *= planes
    return 12.0 * nnz + 116.0 * rows


def minife_terms(P, n, gpn, p):
    """Work (the largest rank's rows) and communication of a CG iteration: p's exchange (one
    message per neighbour, all in flight together: NCCL send/recv) and 2 global sums."""
    boxes = minife_boxes(P, n)
    owned = [minife_owned(b, n) for b in boxes]
    work = max((h[0] - l[0]) * (h[1] - l[1]) * (h[2] - l[2]) for l, h in owned)
    streamed = max(minife_bytes(l, h, n) for l, h in owned)
    msgs = []
    for me in range(P):
        for q in range(P):
            if q == me:
                continue
            cnt = 1
            for d in range(3):  # my owned nodes inside q's ghost-extended box (send_box)
                lo = max(owned[q][0][d] - 1, owned[me][0][d])
                hi = min(owned[q][1][d] + 1, owned[me][1][d])
                cnt *= max(0, hi - lo)
            if cnt:
                msgs.append((me, q, 8.0 * cnt))
    st = STRUCTURE["minife"]
    halo = phase_time(msgs, phase_latency(P, gpn, st, p), p, gpn) if msgs else 0.0
    cuts = [len({b[0][d] for b in boxes}) for d in range(3)]
    return {"work": work, "halo": 0.0 if st["halo_hidden"] else halo,
            "sums": st["sum_rounds"] * sum_latency(P, gpn, p), "extra": 0.0,
            "grid": f"{cuts[0]}x{cuts[1]}x{cuts[2]}", "work_name": "rows", "bytes": streamed}


def minimd_terms(P, size, gpn, p):
    """Work (atoms a rank) and communication of a step: the forward swaps of positions (one phase
    per split dimension and swap pair, both directions together; EAM a second of F'(rho)); with
    a full neighbour list (the GPU's default) no reverse swaps of forces; the re-neighbouring's
    rounds (migration, borders, the atom-count sum) every `every` steps, the thermo sums."""
    st = STRUCTURE["minimd"]
    density, cutneigh, every, thermo = minimd_deck(size["pot"])
    alat = (4.0 / density) ** (1.0 / 3.0)
    prd = tuple(c * alat for c in size["cells"])
    g = minimd_grid(P, prd)
    L = tuple(prd[d] / g[d] for d in range(3))
    work = 4.0 * size["cells"][0] * size["cells"][1] * size["cells"][2] / P

    def neighbour(r, d, step):
        c = [r // (g[1] * g[2]), (r // g[2]) % g[1], r % g[2]]
        c[d] = (c[d] + step) % g[d]
        return (c[0] * g[1] + c[1]) * g[2] + c[2]

    forward = reneigh = 0.0
    plans = 2 if size["pot"] == "eam" else 1  # each remote swap's plans updated (EAM: F'(rho))
    ext = list(L)  # candidates' extent: owned atoms, plus the ghosts of earlier dimensions
    for d in range(3):
        need = int(cutneigh * g[d] / prd[d] + 1)
        cross = 1.0
        for e in range(3):
            if e != d:
                cross *= ext[e]
        for k in range(need):
            slab = max(0.0, min(L[d], cutneigh - k * L[d]))
            ghosts = density * slab * cross
            if g[d] == 1:
                continue  # a swap with this rank itself: a kernel, already in t1
            fwd = [(r, neighbour(r, d, step), 24.0 * ghosts)  # positions, 3 doubles
                   for r in range(P) for step in (-1, 1)]
            border = [(r, neighbour(r, d, -1), 40.0 * ghosts)  # MINIMD_GHOST_DOUBLES
                      for r in range(P)]
            forward += phase_time(fwd, phase_latency(P, gpn, st, p), p, gpn)
            if size["pot"] == "eam":  # F'(rho) forward too, a double a ghost
                forward += phase_time([(a, b, n / 3) for a, b, n in fwd],
                                      phase_latency(P, gpn, st, p), p, gpn)
            # the swap pair's two borders, one after the other, then their plans' updates
            reneigh += 2 * phase_time(border, p["reneighbour_round_s"], p, gpn)
            reneigh += 2 * plans * p["plan_update_s"]
        if g[d] > 1:
            # migration: to both neighbours (one message when they are the same rank); a few
            # atoms, so latency only
            mig = [(r, neighbour(r, d, step), 0.0) for r in range(P) for step in (-1, 1)]
            rounds = 2 if g[d] > 2 else 1
            reneigh += rounds * phase_time(mig, p["reneighbour_round_s"], p, gpn)
        ext[d] = L[d] + 2 * cutneigh
    s = sum_latency(P, gpn, p)
    if P > 1:
        reneigh += s  # the atom count after the migration
    # the atoms farther than the neighbour cut-off from every face with ghosts of other ranks
    # (the dimensions before the first split one swap with this rank itself, before the forces)
    first_split = min([d for d in range(3) if g[d] > 1] or [3])
    inner = 1.0
    for d in range(first_split, 3):
        inner *= max(0.0, 1.0 - 2.0 * cutneigh / L[d])
    return {"work": work, "halo": 0.0 if st["halo_hidden"] else forward, "sums": 2 * s / thermo,
            "halo_overlap": st["force_share"] * inner,
            "extra": reneigh / every,
            "grid": f"{g[0]}x{g[1]}x{g[2]}", "work_name": "atoms", "bytes": None}


def weak_grid(P, dims):
    """scripts/scaling's weak series: the problem of one rank multiplied along this grid."""
    return factor(P, dims)


def global_size(app, size, P, series):
    """The whole problem on P ranks: the same (strong) or one --size a rank (weak)."""
    s = parse_size(app, size)
    one = P if series == "weak" else 1
    if app == "tealeaf":
        g = weak_grid(one, 2)
        return (s["cells"][0] * g[0], s["cells"][1] * g[1])
    g = weak_grid(one, 3)
    if app == "minife":
        return (s["n"] * g[0], s["n"] * g[1], s["n"] * g[2])
    return {"pot": s["pot"], "cells": (s["cells"] * g[0], s["cells"] * g[1], s["cells"] * g[2])}


def terms(app, P, problem, gpn, p):
    if app == "tealeaf":
        return tealeaf_terms(P, problem, gpn, p)
    if app == "minife":
        return minife_terms(P, problem, gpn, p)
    return minimd_terms(P, problem, gpn, p)


def residual(app, P, p):
    """What the terms above leave out of an iteration on P > 1 GPUs of the app, fitted to its
    strong series (`residual_s`: the GPU counts measured; more GPUs take the largest's)."""
    fitted = {int(k): v for k, v in p.get("residual_s", {}).get(app, {}).items()}
    if P <= 1 or not fitted:
        return 0.0
    at = [k for k in sorted(fitted) if k >= P]
    return fitted[at[0]] if at else fitted[max(fitted)]


def predict(app, series, size, ranks, t1, gpus_per_node=4, params=None):
    """The model's rows for `ranks` (each a dict: ranks, time_per_iteration_s, efficiency,
    compute_s, halo_s, sums_s, reneighbour_s, grid, work). `t1` is the one-GPU time per
    iteration of `size` (one rank's problem in a weak series), which row P = 1 reproduces."""
    p = params or load_params()
    fixed = min(p["fixed_s"][app], t1)
    one = terms(app, 1, global_size(app, size, 1, series), gpus_per_node, p)
    rows = []
    for P in ranks:
        t = terms(app, P, global_size(app, size, P, series), gpus_per_node, p)
        compute = fixed + (t1 - fixed) * t["work"] / one["work"]
        if P == 1:
            compute = t1  # exactly the measured figure (no comm on one rank)
        # the part of the exchange that the work beside it does not hide
        halo = max(0.0, t["halo"] - t.get("halo_overlap", 0.0) * (compute - fixed))
        extra = t["extra"] + residual(app, P, p)
        total = compute + halo + t["sums"] + extra
        eff = t1 / total if series == "weak" else t1 / (P * total)
        floor = t["bytes"] / p["memory_bandwidth_Bps"] if t["bytes"] is not None else None
        rows.append({"ranks": P, "nodes": -(-P // gpus_per_node), "time_per_iteration_s": total,
                     "bandwidth_floor_s": floor,
                     "efficiency": eff, "compute_s": compute, "halo_s": halo,
                     "sums_s": t["sums"], "reneighbour_s": t["extra"],
                     "residual_s": residual(app, P, p), "grid": t["grid"],
                     "work": t["work"], "work_name": t["work_name"]})
    return rows


def series_input(app, series, params=None):
    """The parameter file's one-GPU measurement of a series: (size, seconds per iteration)."""
    p = params or load_params()
    s = p["one_gpu"][app][series]
    return s["size"], s["t1_s"]


def rescale_t1(app, series, size, params=None):
    """t1 for another --size than the parameter file's, by the compute rule above."""
    p = params or load_params()
    base, t1 = series_input(app, series, p)
    if size == base:
        return t1
    if app == "minimd" and parse_size(app, size)["pot"] != parse_size(app, base)["pot"]:
        raise ValueError(f"the parameter file's 1-GPU time is for {base}, another potential")
    w0 = terms(app, 1, global_size(app, base, 1, series), 4, p)["work"]
    w1 = terms(app, 1, global_size(app, size, 1, series), 4, p)["work"]
    fixed = min(p["fixed_s"][app], t1)
    return fixed + (t1 - fixed) * w1 / w0
