"""Team policies (nested ranges, nested reductions, barriers, level-0/1 scratch), scans,
atomics, minloc / maxloc, custom reducers, device functions and kernel methods, each compared
with NumPy on Serial, OpenMP x1 and OpenMP x2 (kernels in kernels_more.py)."""
import os

import numpy as np
import pytest

import porta
import kernels_more as K


def team(space, league, team_size=porta.AUTO, vector=1):
    return porta.TeamPolicy(league, team_size, vector, space=space.name)


def team_sizes(space):
    if space.name == "cuda":
        return [porta.AUTO, 1, 32, 128]
    return [porta.AUTO, 1] + ([2] if space.threads >= 2 else [])


# ---- teams ----
def test_team_member_queries(space):
    for ts in team_sizes(space):
        league = 7
        lr, tr, sz = (np.full(league * 4, -1, dtype=np.int64) for _ in range(3))
        porta.parallel_for(team(space, league, ts), K.team_ids, lr, tr, sz)
        want_ts = ts
        if ts == porta.AUTO:  # the back end's choice: 1 on the host, a block's on a GPU
            want_ts = int(sz[0]) if space.name == "cuda" else 1
            assert 1 <= want_ts <= 1024
        np.testing.assert_array_equal(lr, np.repeat(np.arange(league), 4))
        np.testing.assert_array_equal(sz, np.full(league * 4, want_ts))
        # j is split over the team's threads: j % team_size is the rank that wrote it
        np.testing.assert_array_equal(tr, np.tile(np.arange(4) % want_ts, league))


def test_nested_reduce_row_sums(space):
    m = np.random.default_rng(4).random((37, 53))
    for ts in team_sizes(space):
        out = np.zeros(37)
        porta.parallel_for(team(space, 37, ts), K.row_sums, m, out)
        np.testing.assert_allclose(out, m.sum(axis=1), rtol=1e-13)


def test_team_vector_and_thread_vector_reduce(space):
    m = np.random.default_rng(5).standard_normal((19, 31))
    for ts in team_sizes(space):
        out = np.zeros(19)
        porta.parallel_for(team(space, 19, ts, vector=porta.AUTO), K.row_max_vector, m, out)
        np.testing.assert_array_equal(out, m.max(axis=1))


def random_csr(nrows, ncols, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 9, nrows)
    row_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    cols = rng.integers(0, ncols, row_ptr[-1]).astype(np.int64)
    vals = rng.standard_normal(row_ptr[-1])
    dense = np.zeros((nrows, ncols))
    for r in range(nrows):
        np.add.at(dense[r], cols[row_ptr[r]:row_ptr[r + 1]], vals[row_ptr[r]:row_ptr[r + 1]])
    return row_ptr, cols, vals, dense


def test_spmv_with_scratch_and_barriers(space):
    nrows = 61
    row_ptr, cols, vals, dense = random_csr(nrows, 40, 6)
    x = np.random.default_rng(7).random(40)
    league = (nrows + K.BLOCK - 1) // K.BLOCK
    for ts in team_sizes(space):
        y = np.full(nrows, np.nan)
        porta.parallel_for(team(space, league, ts), K.spmv_scratch, row_ptr, cols, vals, x, y,
                           nrows)
        np.testing.assert_allclose(y, dense @ x, rtol=1e-12, atol=1e-14)


def test_scratch_sized_per_launch(space):
    """The 2-D scratch's extent is a scalar argument: each launch requests its own size."""
    for tile_n in (3, 64, 1000):
        league = 5
        x = np.random.default_rng(tile_n).random(league * tile_n)
        out = np.zeros_like(x)
        for ts in team_sizes(space):
            porta.parallel_for(team(space, league, ts), K.tile_reverse, x, out, tile_n)
            xr = x.reshape(league, tile_n)
            np.testing.assert_array_equal(out.reshape(league, tile_n), xr[:, ::-1] + 2.0 * xr)


def test_team_reduce(space):
    m = np.arange(24.0 * 10).reshape(24, 10)
    for ts in team_sizes(space):
        assert porta.parallel_reduce(team(space, 24, ts), K.team_total, m) == m.sum()


def test_team_policy_mismatch():
    with pytest.raises(TypeError, match="team member: launch it with a porta.TeamPolicy"):
        porta.parallel_for(4, K.row_sums, np.zeros((4, 4)), np.zeros(4))
    with pytest.raises(TypeError, match="index"):
        porta.parallel_for(porta.TeamPolicy(4), K.histogram, np.zeros(4), 0.0, 1.0,
                           np.zeros(4, dtype=np.int64))
    with pytest.raises(porta.PortaError, match="team size"):
        porta.parallel_for(porta.TeamPolicy(4, 100000), K.row_sums, np.zeros((4, 4)), np.zeros(4))


# ---- scans ----
def test_exclusive_scan(space):
    x = np.random.default_rng(8).integers(-50, 100, 10001).astype(np.int64)
    out = np.zeros_like(x)
    total = porta.parallel_scan(space.range(len(x)), K.exclusive_scan, x, out)
    assert isinstance(total, int) and total == int(x.sum())
    np.testing.assert_array_equal(out, np.concatenate([[0], np.cumsum(x)[:-1]]))


def test_inclusive_scan(space):
    x = np.arange(1.0, 5001.0)
    out = np.zeros_like(x)
    total = porta.parallel_scan(space.range(len(x)), K.inclusive_scan, x, out)
    assert total == x.sum()
    np.testing.assert_array_equal(out, np.cumsum(x))
    assert porta.parallel_scan(space.range(0), K.inclusive_scan, x, out) == 0.0


def test_scan_launch_kind():
    x = np.zeros(4)
    with pytest.raises(TypeError, match="parallel_scan kernel: launch it with porta.parallel_scan"):
        porta.parallel_reduce(4, K.inclusive_scan, x, x)
    with pytest.raises(TypeError, match="parallel_reduce kernel"):
        porta.parallel_scan(4, K.argmin, x)


# ---- atomics ----
def test_histogram(space):
    x = np.random.default_rng(9).random(100003) * 10.0 - 1.0
    h = np.zeros(8, dtype=np.int64)
    porta.parallel_for(space.range(len(x)), K.histogram, x, 0.0, 1.0, h)
    b = np.clip(np.floor(x).astype(np.int64), 0, 7)
    np.testing.assert_array_equal(h, np.bincount(b, minlength=8))


def test_histogram2d_i32(space):
    rng = np.random.default_rng(10)
    x, y = rng.random(20000), rng.random(20000)
    h = np.zeros((5, 7), dtype=np.int32)
    porta.parallel_for(space.range(len(x)), K.histogram2d, x, y, h)
    want, _, _ = np.histogram2d(x, y, bins=(5, 7), range=((0, 1), (0, 1)))
    np.testing.assert_array_equal(h, want.astype(np.int32))


def test_atomic_min_max_fetch(space):
    x = np.random.default_rng(11).standard_normal(5000)
    mm = np.array([np.inf, -np.inf, 0.0, 0.0])
    cnt = np.zeros(2, dtype=np.int32)
    old = np.full(5000, -1, dtype=np.int32)
    porta.parallel_for(space.range(len(x)), K.atomic_minmax, x, mm, cnt, old)
    assert mm[0] == x.min() and mm[1] == x.max() and mm[2] == 5000.0 and mm[3] == 0.0
    assert cnt[0] == 5000 and cnt[1] == -10000
    # fetch_add hands every index a distinct old value: 0 .. n-1
    np.testing.assert_array_equal(np.sort(old), np.arange(5000))


def test_atomic_cas_exchange_load_store(space):
    owner = np.full(64, -1, dtype=np.int64)
    won = np.zeros(4, dtype=np.int64)
    porta.parallel_for(space.range(1000), K.claim_slots, owner, won)
    assert won[0] == 64 and won[1] == 0 and won[2] == 7 and won[3] == 5
    assert all(owner[s] % 64 == s for s in range(64))


def test_atomic_f32_and_int_forms(space):
    x = np.full(3000, 0.5, dtype=np.float32)
    tot = np.zeros(1, dtype=np.float32)
    m = np.array([0, 10**6, 0, 0, -1, 10**6, -1], dtype=np.int64)
    porta.parallel_for(space.range(3000), K.atomic_f32, x, tot, m)
    assert tot[0] == np.float32(1500.0)
    np.testing.assert_array_equal(m, [2999, 0, -3000, -3000, 2999, 0, 2999])


# ---- minloc / maxloc ----
def test_minloc_maxloc(space):
    rng = np.random.default_rng(12)
    x = rng.standard_normal(20011)
    x[[50, 9000, 20000]] = x.min() - 1.0  # ties: the smallest index wins
    val, loc = porta.parallel_reduce(space.range(len(x)), K.argmin, x)
    assert (val, loc) == (x.min(), 50) and isinstance(loc, int)
    xi = rng.integers(-1000, 1000, 7777).astype(np.int32)
    val, loc = porta.parallel_reduce(space.range(len(xi)), K.argmax_i32, xi)
    assert (val, loc) == (int(xi.max()), int(np.argmax(xi)))
    a = rng.random((33, 47))
    val, loc = porta.parallel_reduce(space.md((0, 0), a.shape), K.argmax2d, a)
    assert (val, loc) == (a.max(), int(np.argmax(a)))


def test_minloc_empty(space):
    val, loc = porta.parallel_reduce(space.range(0), K.argmin, np.zeros(1))
    assert val == np.inf and loc == 2**63 - 1


# ---- custom reducers ----
def test_custom_reducer(space):
    x = np.random.default_rng(13).standard_normal(12345)
    r = porta.parallel_reduce(space.range(len(x)), K.stats, x)
    assert isinstance(r, K.Stats)
    assert r.n == len(x) and isinstance(r.n, int)
    assert r.lo == x.min() and r.hi == x.max()
    assert abs(r.total - x.sum()) <= 1e-10


def test_custom_reducer_empty_is_init(space):
    r = porta.parallel_reduce(space.range(0), K.stats, np.zeros(1))
    assert (r.n, r.total, r.lo, r.hi) == (0, 0.0, np.inf, -np.inf)


def test_custom_and_loc_reducers_nested(space):
    m = np.random.default_rng(14).standard_normal((23, 41))
    for ts in team_sizes(space):
        lo, hi = np.zeros(23), np.zeros(23)
        porta.parallel_for(team(space, 23, ts), K.row_stats, m, lo, hi)
        np.testing.assert_array_equal(lo, m.min(axis=1))
        np.testing.assert_array_equal(hi, m.max(axis=1))
        loc = np.zeros(23, dtype=np.int64)
        porta.parallel_for(team(space, 23, ts), K.team_minloc, m, loc)
        np.testing.assert_array_equal(loc, np.argmin(m, axis=1))


# ---- device functions ----
def test_device_functions(space):
    r2 = np.linspace(0.8, 3.0, 1001)
    f = np.zeros_like(r2)
    porta.parallel_for(space.range(len(r2)), K.lj_pairs, r2, 1.5, 0.7, f)
    s6 = 0.7 / r2 ** 3
    np.testing.assert_allclose(f, 24.0 * 1.5 * s6 * (2.0 * s6 - 1.0) / r2, rtol=1e-12)
    # Called from Python, a device function is the Python function.
    assert K.lj_force(1.2, 1.5, 0.7) == pytest.approx(24 * 1.5 * (0.7 / 1.2 ** 3) *
                                                      (2 * 0.7 / 1.2 ** 3 - 1) / 1.2)
    src = np.arange(10, dtype=np.int64) * 3
    out = np.zeros(10, dtype=np.int64)
    porta.parallel_for(space.range(10), K.clamp_copy, src, out)
    np.testing.assert_array_equal(out, src[np.clip(np.arange(10) - 2, 0, 9)])


# ---- kernel methods ----
def test_workload_class(space):
    rng = np.random.default_rng(15)
    u = rng.random((30, 40))
    out = u.copy()
    j = K.Jacobi(u, out, 0.8)
    porta.parallel_for(space.md((0, 0), u.shape), j.sweep)
    ref = u.copy()
    ref[1:-1, 1:-1] = 0.2 * u[1:-1, 1:-1] + 0.8 * 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] +
                                                          u[1:-1, :-2] + u[1:-1, 2:])
    np.testing.assert_allclose(out, ref, rtol=1e-15)
    d = porta.parallel_reduce(space.md((0, 0), u.shape), j.norm2)
    np.testing.assert_allclose(d, ((ref - u) ** 2).sum(), rtol=1e-12)
    # Fields by keyword, and a plain class with its own constructor.
    j2 = K.Jacobi(u=u, out=np.zeros_like(u), w=0.0)
    porta.parallel_for(space.md((1, 1), (29, 39)), j2.sweep)
    np.testing.assert_array_equal(j2.out[1:-1, 1:-1], u[1:-1, 1:-1])
    x = np.arange(5.0)
    porta.parallel_for(space.range(5), K.Scaler(x, 3.0).scale)
    np.testing.assert_array_equal(x, 3.0 * np.arange(5.0))


def test_workload_errors():
    j = K.Jacobi(np.zeros((3, 3)), np.zeros((3, 3)), 1.0)
    with pytest.raises(TypeError, match="no other arguments"):
        porta.parallel_for(porta.MDRangePolicy((0, 0), (3, 3)), j.sweep, 1.0)
    del j.w
    with pytest.raises(TypeError, match="field of the object is not set"):
        porta.parallel_for(porta.MDRangePolicy((0, 0), (3, 3)), j.sweep)
    with pytest.raises(TypeError, match="no field 'v'"):
        K.Jacobi(v=1)
    with pytest.raises(TypeError, match="float"):
        porta.parallel_for(porta.MDRangePolicy((0, 0), (3, 3)),
                           K.Jacobi(np.zeros((3, 3)), np.zeros((3, 3)), "x").sweep)


def test_simd_range_reductions(space):
    """porta.simd_range: omp simd with reduction clauses on the host (the generated C has
    them), a plain loop on a GPU; the sums agree with NumPy to rounding, the lanes' order
    being another."""
    rng = np.random.default_rng(7)
    a = rng.random((37, 101))
    out, prod = np.zeros(37), np.zeros(37)
    porta.parallel_for(space.range(37), K.row_sums_simd, a, out, prod)
    np.testing.assert_allclose(out, a.sum(axis=1) * 0.5, rtol=1e-13)
    np.testing.assert_allclose(prod, np.prod(1.0 + a * 1e-3, axis=1), rtol=1e-13)
    c_file = os.path.join(os.path.dirname(K.row_sums_simd._unit.paths[-1]), "kernels_more.c")
    with open(c_file) as fh:
        assert "PORTA_PY_SIMD(reduction(+: py_d, py_s) reduction(*: py_p))" in fh.read()


def test_single_per_team_and_per_thread(space):
    for ts in team_sizes(space):
        per_team, per_thread = np.zeros(7, np.int64), np.zeros(7, np.int64)
        pol = team(space, 7, ts, vector=porta.AUTO)
        porta.parallel_for(pol, K.count_singles, per_team, per_thread)
        np.testing.assert_array_equal(per_team, np.ones(7, np.int64))
        size = ts if ts is not porta.AUTO else per_thread[0]
        np.testing.assert_array_equal(per_thread, np.full(7, size, np.int64))
        assert per_thread[0] >= 1
