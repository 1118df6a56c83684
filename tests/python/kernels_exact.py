"""Kernels of test_exact_sum.py: porta.ExactSum (Porta's exact sum, porta_xsum_f64) over ranges
and boxes, a plain porta.Sum beside it, and the exact sum's misuse. Each bad line carries an
ERR marker: the test finds the line and the column (of the token it names) the message must
give."""
import porta


@porta.kernel
def xsum(i: int, acc: porta.ExactSum, x: porta.f64[:]):
    acc += x[i]


@porta.kernel
def xsum_big(i: int, acc: porta.ExactSum, x: porta.f64[:]):
    """Launched only by the test of long launches: its first launch is cut into pieces."""
    acc += x[i]


@porta.kernel
def plain_sum(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:]):
    acc += x[i]


@porta.kernel
def xsum_signed(i: int, acc: porta.ExactSum[porta.f64], x: porta.f64[:], neg: porta.i64[:]):
    if neg[i] != 0:
        acc -= x[i]
    else:
        acc += x[i]


@porta.kernel
def xsum_ints(i: int, acc: porta.ExactSum, n: porta.i64[:]):
    acc += n[i]


@porta.kernel
def xdot(i: int, acc: porta.ExactSum, x: porta.f64[:], y: porta.f64[:]):
    acc += x[i] * y[i]


@porta.kernel
def xrows(i: int, acc: porta.ExactSum, a: porta.f64[:, :]):
    for k in range(a.shape[1]):
        acc += a[i, k]


@porta.kernel
def xsum2(i: int, j: int, acc: porta.ExactSum, a: porta.f64[:, :]):
    acc -= a[i, j]


@porta.kernel
def xsum3(i: int, j: int, k: int, acc: porta.ExactSum, a: porta.f64[:, :, :]):
    acc += a[i, j, k]


# ---- misuse ----

@porta.kernel
def xsum_read(i: int, acc: porta.ExactSum, x: porta.f64[:]):
    t = acc  # ERR xread
    x[i] = t


@porta.kernel
def xsum_max(i: int, acc: porta.ExactSum, x: porta.f64[:]):
    acc = max(acc, x[i])  # ERR xmax


@porta.kernel
def xsum_times(i: int, acc: porta.ExactSum, x: porta.f64[:]):
    acc *= x[i]  # ERR xtimes


@porta.kernel
def xsum_assign(i: int, acc: porta.ExactSum, x: porta.f64[:]):
    acc = x[i]  # ERR xassign


@porta.kernel
def xsum_team(t: porta.TeamMember, acc: porta.ExactSum, x: porta.f64[:]):  # ERR xteam
    acc += x[t.league_rank]


@porta.kernel
def xsum_nested(t: porta.TeamMember, x: porta.f64[:], y: porta.f64[:]):
    s: porta.ExactSum  # ERR xnested
    for j in porta.team_thread_range(t, x.shape[0]):
        s += x[j]
    if porta.single(t):
        y[t.league_rank] = 1.0


@porta.kernel
def xsum_scan(i: int, acc: porta.ExactSum, final: bool, x: porta.f64[:]):  # ERR xscan
    acc += x[i]
