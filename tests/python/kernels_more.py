"""Kernels of the second slice of issue 29 (tests/python/test_teams.py and test_more.py): team
policies with nested ranges, nested reductions, barriers and scratch; scans; atomics; minloc /
maxloc and custom reducers; device functions; kernel methods of a @porta.workload class."""
import math

import porta

BLOCK = 8


# ---- device functions ----
@porta.function
def sq(x: float) -> float:
    return x * x


@porta.function
def lj_force(r2: float, eps: float, sigma6: float) -> float:
    """Lennard-Jones force over r (calls another device function)."""
    s6 = sigma6 / (r2 * sq(r2))
    return 24.0 * eps * s6 * (2.0 * s6 - 1.0) / r2


@porta.function
def clamp_index(k: int, n: int) -> int:
    if k < 0:
        return 0
    if k >= n:
        return n - 1
    return k


@porta.kernel
def lj_pairs(i: int, r2: porta.f64[:], eps: float, sigma6: float, f: porta.f64[:]):
    f[i] = lj_force(r2[i], eps, sigma6)


@porta.kernel
def clamp_copy(i: int, src: porta.i64[:], out: porta.i64[:]):
    out[i] = src[clamp_index(i - 2, src.shape[0])]


# ---- teams ----
@porta.kernel
def team_ids(t: porta.TeamMember, league: porta.i64[:], rank: porta.i64[:], size: porta.i64[:]):
    lr = t.league_rank
    for j in porta.team_thread_range(t, 4):
        league[lr * 4 + j] = t.league_rank()
        rank[lr * 4 + j] = t.team_rank
        size[lr * 4 + j] = t.team_size


@porta.kernel
def row_sums(t: porta.TeamMember, m: porta.f64[:, :], out: porta.f64[:]):
    row = t.league_rank
    s: porta.Sum[porta.f64]
    for j in porta.team_thread_range(t, m.shape[1]):
        s += m[row, j]
    if porta.single(t):
        out[row] = s


@porta.kernel
def row_max_vector(t: porta.TeamMember, m: porta.f64[:, :], out: porta.f64[:]):
    row = t.league_rank
    big: porta.Max[porta.f64]
    for j in porta.team_vector_range(t, 0, m.shape[1]):
        big = max(big, m[row, j])
    v: porta.Sum[porta.f64]
    for j in porta.thread_vector_range(t, m.shape[1]):
        v += 0.0 * m[row, j]
    if t.team_rank == 0:
        out[row] = big + v


@porta.kernel
def spmv_scratch(t: porta.TeamMember, row_ptr: porta.i64[:], cols: porta.i64[:],
                 vals: porta.f64[:], x: porta.f64[:], y: porta.f64[:], nrows: porta.i64):
    """One team per block of BLOCK rows; the block's row pointers staged in scratch."""
    ptr = porta.scratch(t, porta.i64, BLOCK + 1)
    part = porta.thread_scratch(t, porta.f64, 2, level=1)
    first = t.league_rank * BLOCK
    for k in porta.team_thread_range(t, BLOCK + 1):
        ptr[k] = row_ptr[min(first + k, nrows)]
    t.team_barrier()
    for r in range(BLOCK):
        row = first + r
        if row < nrows:
            acc: porta.Sum[porta.f64]
            for k in porta.team_thread_range(t, ptr[r], ptr[r + 1]):
                acc += vals[k] * x[cols[k]]
            part[0] = acc
            if porta.single(t):
                y[row] = part[0]
    porta.team_barrier(t)


@porta.kernel
def tile_reverse(t: porta.TeamMember, x: porta.f64[:], out: porta.f64[:], tile_n: porta.i64):
    tile = porta.scratch(t, porta.f64, (2, tile_n))
    base = t.league_rank * tile_n
    for k in porta.team_thread_range(t, tile_n):
        tile[0, k] = x[base + k]
        tile[1, k] = 2.0 * x[base + k]
    t.team_barrier()
    for k in porta.team_thread_range(t, tile.shape[1]):
        out[base + k] = tile[0, tile_n - 1 - k] + tile[1, k]


@porta.kernel
def team_total(t: porta.TeamMember, acc: porta.Sum[porta.f64], m: porta.f64[:, :]):
    row = t.league_rank
    for j in porta.team_thread_range(t, m.shape[1]):
        acc += m[row, j]


# ---- scans ----
@porta.kernel
def exclusive_scan(i: int, update: porta.Sum[porta.i64], final: bool, x: porta.i64[:],
                   out: porta.i64[:]):
    if final:
        out[i] = update
    update += x[i]


@porta.kernel
def inclusive_scan(i: int, update: porta.Sum[porta.f64], final: bool, x: porta.f64[:],
                   out: porta.f64[:]):
    update += x[i]
    if final:
        out[i] = update


# ---- atomics ----
@porta.kernel
def histogram(i: int, x: porta.f64[:], lo: float, width: float, h: porta.i64[:]):
    b = int((x[i] - lo) / width)
    porta.atomic_add(h, clamp_index(b, h.shape[0]), 1)


@porta.kernel
def histogram2d(i: int, x: porta.f64[:], y: porta.f64[:], h: porta.i32[:, :]):
    porta.atomic_add(h, (int(x[i] * h.shape[0]), int(y[i] * h.shape[1])), 1)


@porta.kernel
def atomic_minmax(i: int, x: porta.f64[:], mm: porta.f64[:], cnt: porta.i32[:],
                  old: porta.i32[:]):
    porta.atomic_min(mm, 0, x[i])
    porta.atomic_max(mm, 1, x[i])
    old[i] = porta.atomic_fetch_add(cnt, 0, 1)
    porta.atomic_sub(cnt, 1, 2)
    v = porta.atomic_add_fetch(mm, 2, 1.0)
    if v < 0.0:
        mm[3] = -1.0


@porta.kernel
def claim_slots(i: int, owner: porta.i64[:], won: porta.i64[:]):
    """Each index tries to claim slot i % owner.shape[0] (CAS from -1): one wins each slot."""
    s = i % owner.shape[0]
    prev = porta.atomic_compare_exchange(owner, s, -1, i)
    if prev == -1:
        porta.atomic_add(won, 0, 1)
    got = porta.atomic_load(owner, s)
    if got < 0:
        won[1] = 99
    x = porta.atomic_exchange(won, 2, 7)
    if x != 7 and x != 0:
        won[1] = 98
    porta.atomic_store(won, 3, 5)


@porta.kernel
def atomic_f32(i: int, x: porta.f32[:], tot: porta.f32[:], m: porta.i64[:]):
    porta.atomic_add(tot, 0, x[i])
    porta.atomic_max(m, 0, i)
    porta.atomic_fetch_min(m, 1, i)
    porta.atomic_fetch_sub(m, 2, 1)
    porta.atomic_sub_fetch(m, 3, 1)
    porta.atomic_fetch_max(m, 4, i)
    porta.atomic_min_fetch(m, 5, i)
    porta.atomic_max_fetch(m, 6, i)


# ---- minloc / maxloc ----
@porta.kernel
def argmin(i: int, acc: porta.MinLoc[porta.f64], x: porta.f64[:]):
    if x[i] < acc.val:
        acc.val = x[i]
        acc.loc = i


@porta.kernel
def argmax_i32(i: int, acc: porta.MaxLoc[porta.i32], x: porta.i32[:]):
    if x[i] > acc.val:
        acc.val = x[i]
        acc.loc = i


@porta.kernel
def argmax2d(i: int, j: int, acc: porta.MaxLoc[porta.f64], a: porta.f64[:, :]):
    if a[i, j] > acc.val:
        acc.val = a[i, j]
        acc.loc = i * a.shape[1] + j


# ---- custom reducers ----
@porta.reducer
class Stats:
    """Count, sum, min and max of values at once."""
    n: porta.i64
    total: float
    lo: float
    hi: float

    def init(self):
        self.n = 0
        self.total = 0.0
        self.lo = math.inf
        self.hi = -math.inf

    def join(self, other):
        self.n += other.n
        self.total += other.total
        self.lo = min(self.lo, other.lo)
        if other.hi > self.hi:
            self.hi = other.hi


@porta.kernel
def stats(i: int, acc: Stats, x: porta.f64[:]):
    v = x[i]
    acc.n += 1
    acc.total += v
    acc.lo = min(acc.lo, v)
    acc.hi = max(acc.hi, v)


@porta.kernel
def row_stats(t: porta.TeamMember, m: porta.f64[:, :], lo: porta.f64[:], hi: porta.f64[:]):
    row = t.league_rank
    s: Stats
    for j in porta.team_thread_range(t, m.shape[1]):
        s.lo = min(s.lo, m[row, j])
        s.hi = max(s.hi, m[row, j])
    if porta.single(t):
        lo[row] = s.lo
        hi[row] = s.hi


@porta.kernel
def team_minloc(t: porta.TeamMember, m: porta.f64[:, :], loc: porta.i64[:]):
    row = t.league_rank
    best: porta.MinLoc[porta.f64]
    for j in porta.team_thread_range(t, m.shape[1]):
        if m[row, j] < best.val:
            best.val = m[row, j]
            best.loc = j
    if porta.single(t):
        loc[row] = best.loc


# ---- class-style kernels ----
@porta.workload
class Jacobi:
    """A 2D Jacobi sweep whose fields are the kernel's arguments."""
    u: porta.f64[:, :]
    out: porta.f64[:, :]
    w: float

    @porta.kernel
    def sweep(self, i: int, j: int):
        if i > 0 and j > 0 and i < self.u.shape[0] - 1 and j < self.u.shape[1] - 1:
            self.out[i, j] = (1.0 - self.w) * self.u[i, j] + self.w * 0.25 * (
                self.u[i - 1, j] + self.u[i + 1, j] + self.u[i, j - 1] + self.u[i, j + 1])

    @porta.kernel
    def norm2(self, i: int, j: int, acc: porta.Sum[porta.f64]):
        acc += sq(self.out[i, j] - self.u[i, j])


class Scaler:
    """A plain class (no @porta.workload): its own constructor, kernel methods all the same."""
    x: porta.f64[:]
    factor: float

    def __init__(self, x, factor):
        self.x, self.factor = x, factor
        self.unannotated = "not a field"

    @porta.kernel
    def scale(self, i: int):
        self.x[i] *= self.factor


@porta.kernel
def row_sums_simd(i: int, a: porta.f64[:, :], out: porta.f64[:], prod: porta.f64[:]):
    """A vectorisable inner loop with a sum, a difference and a product reduced per lane."""
    s = 0.0
    d = 0.0
    p = 1.0
    for k in porta.simd_range(a.shape[1]):
        v = a[i, k]
        s += v
        d -= 2.0 * v
        p *= 1.0 + v * 1e-3
    out[i] = s + 0.25 * d
    prod[i] = p


@porta.kernel
def count_singles(t: porta.TeamMember, per_team: porta.i64[:], per_thread: porta.i64[:]):
    """Each team adds 1 once (porta.single) and each of its threads 1 once per thread
    (porta.single_per_thread), whatever the vector length."""
    if porta.single(t):
        porta.atomic_add(per_team, t.league_rank, 1)
    if porta.single_per_thread(t):
        porta.atomic_add(per_thread, t.league_rank, 1)
