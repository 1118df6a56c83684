"""Kernels of test_threads.py: one of each pattern (range for, reduce and scan, a box's
reduction, a team's reduction and a team's for), launched from several Python threads at once.
Their values are integers held exactly in float64, so every order of the sums gives the same
bits and a thread that got another thread's value is seen."""
import porta


@porta.kernel
def dot(i: int, acc: porta.Sum[porta.f64], c: float, x: porta.f64[:], y: porta.f64[:]):
    acc += c * x[i] * y[i]


@porta.kernel
def dot_first(i: int, acc: porta.Sum[porta.f64], c: float, x: porta.f64[:], y: porta.f64[:]):
    """dot again, for the first launch from several threads at once (test_first_launch_...)."""
    acc += c * x[i] * y[i]


@porta.kernel
def scale(i: int, c: float, x: porta.f64[:], out: porta.f64[:]):
    out[i] = c * x[i]


@porta.kernel
def prefix(i: int, update: porta.Sum[porta.i64], final: bool, x: porta.i64[:],
           out: porta.i64[:]):
    if final:
        out[i] = update
    update += x[i]


@porta.kernel
def box_sum(i: int, j: int, acc: porta.Sum[porta.f64], c: float, a: porta.f64[:, :]):
    acc += c * a[i, j]


@porta.kernel
def team_sum(t: porta.TeamMember, acc: porta.Sum[porta.f64], c: float, m: porta.f64[:, :]):
    row = t.league_rank
    for j in porta.team_thread_range(t, m.shape[1]):
        acc += c * m[row, j]


@porta.kernel
def team_rows(t: porta.TeamMember, c: float, m: porta.f64[:, :], out: porta.f64[:]):
    row = t.league_rank
    s: porta.Sum[porta.f64]
    for j in porta.team_thread_range(t, m.shape[1]):
        s += c * m[row, j]
    if porta.single(t):
        out[row] = s
