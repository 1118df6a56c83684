"""Kernels of tests/python/test_zero_division.py: integer // and % by a divisor known at run
time (a ZeroDivisionError naming the marked line when it is zero), and float ones (IEEE)."""
import porta


@porta.kernel
def floordiv(i: int, d: porta.i64, x: porta.i64[:], y: porta.i64[:]):
    y[i] = x[i] // d  # DIV floordiv


@porta.kernel
def mod(i: int, d: porta.i64[:], x: porta.i64[:], y: porta.i64[:]):
    y[i] = x[i] % d[i]  # DIV mod


@porta.kernel
def mod_aug(i: int, d: porta.i64, y: porta.i64[:]):
    y[i] %= d  # DIV mod-aug


@porta.function
def ratio(a: int, b: int) -> int:
    return a // b  # DIV function


@porta.kernel
def via_function(i: int, d: porta.i64, x: porta.i64[:], y: porta.i64[:]):
    y[i] = ratio(x[i], d)


@porta.kernel
def sum_quotients(i: int, acc: porta.Sum[porta.i64], d: porta.i64[:], x: porta.i64[:]):
    acc += x[i] // d[i]  # DIV reduce


@porta.kernel
def by_minus_one(i: int, d: porta.i64, x: porta.i64[:], q: porta.i64[:], r: porta.i64[:]):
    q[i] = x[i] // d
    r[i] = x[i] % d


@porta.kernel
def by_constant_minus_one(i: int, x: porta.i64[:], q: porta.i64[:], r: porta.i64[:]):
    q[i] = x[i] // -1
    r[i] = x[i] % -1


@porta.kernel
def float_div(i: int, d: float, x: porta.f64[:], q: porta.f64[:], r: porta.f64[:],
              t: porta.f64[:]):
    q[i] = x[i] // d
    r[i] = x[i] % d
    t[i] = x[i] / d


@porta.kernel
def int_true_div(i: int, d: porta.i64, x: porta.i64[:], t: porta.f64[:]):
    t[i] = x[i] / d


@porta.kernel
def constant_zero(i: int, x: porta.i64[:]):
    x[i] = x[i] % 0  # DIV constant


@porta.kernel
def team_tiles(t: porta.TeamMember, n: porta.i64, parts: porta.i64, out: porta.f64[:]):
    """A scratch extent that divides: sized on the host at the launch."""
    tile = porta.scratch(t, porta.f64, n // parts)  # DIV scratch
    for k in porta.team_thread_range(t, tile.shape[0]):
        tile[k] = 1.0 * k
    t.team_barrier()
    if porta.single(t):
        out[t.league_rank] = tile[tile.shape[0] - 1]


@porta.kernel
def team_div(t: porta.TeamMember, d: porta.i64, out: porta.i64[:]):
    if porta.single(t):
        out[t.league_rank] = t.league_rank // d  # DIV team
