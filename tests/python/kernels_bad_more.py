"""Misuse of teams, scratch, scans, atomics, reducers, device functions and kernel methods
(tests/python/test_errors_more.py). Each bad line carries an ERR marker: the test finds the
line and the column (of the token it names) the message must give."""
import porta


@porta.function
def takes_array(x: porta.f64[:]) -> float:  # ERR fnarray
    return 1.0


@porta.function
def loops_forever(x: float) -> float:  # ERR recursive
    return loops_forever(x)


@porta.function
def no_return_type(x: float):
    return x  # ERR noret


@porta.kernel
def scratch_in_loop(t: porta.TeamMember, x: porta.f64[:]):
    for k in range(2):
        s = porta.scratch(t, porta.f64, 4)  # ERR scratchloop
        s[0] = 1.0


@porta.kernel
def scratch_from_local(t: porta.TeamMember, x: porta.f64[:]):
    n = 4
    s = porta.scratch(t, porta.f64, n + 1)  # ERR scratchlocal
    s[0] = x[0]


@porta.kernel
def range_without_team(t: porta.TeamMember, x: porta.f64[:], n: porta.i64):
    for k in porta.team_thread_range(n, 4):  # ERR noteam
        x[k] = 1.0


@porta.kernel
def acc_with_value(t: porta.TeamMember, x: porta.f64[:]):
    s: porta.Sum[porta.f64] = 0.0  # ERR accvalue
    x[0] = s


@porta.kernel
def two_accs_one_loop(t: porta.TeamMember, x: porta.f64[:]):
    a: porta.Sum[porta.f64]
    b: porta.Max[porta.f64]
    for k in porta.team_thread_range(t, 4):  # ERR twoaccs
        a += x[k]
        b = max(b, x[k])


@porta.kernel
def acc_in_range_kernel(i: int, x: porta.f64[:]):
    s: porta.Sum[porta.f64]  # ERR accrange
    x[i] = 1.0


@porta.kernel
def atomic_u8(i: int, x: porta.u8[:]):
    porta.atomic_add(x, i, 1)  # ERR atomicu8


@porta.kernel
def atomic_value(i: int, x: porta.i64[:]):
    v = porta.atomic_add(x, 0, 1)  # ERR atomicvalue
    x[i] = v


@porta.kernel
def calls_array_fn(i: int, x: porta.f64[:]):
    x[i] = takes_array(x)


@porta.kernel
def calls_recursive(i: int, x: porta.f64[:]):
    x[i] = loops_forever(1.0)


@porta.kernel
def calls_noret(i: int, x: porta.f64[:]):
    x[i] = 1.0
    no_return_type(1.0)


@porta.kernel
def scan_md(i: int, j: int, u: porta.Sum[porta.f64], final: bool, x: porta.f64[:]):  # ERR scanmd
    u += 1.0


@porta.kernel
def team_not_first(i: int, t: porta.TeamMember, x: porta.f64[:]):  # ERR teamindex
    x[i] = 1.0


@porta.kernel
def barrier_value(t: porta.TeamMember, x: porta.f64[:]):
    x[0] = t.team_barrier()  # ERR barriervalue


@porta.kernel
def team_bad_attr(t: porta.TeamMember, x: porta.f64[:]):
    x[0] = t.thread_rank  # ERR teamattr


@porta.reducer
class WritesOther:
    v: float

    def init(self):
        self.v = 0.0

    def join(self, other):
        other.v = self.v  # ERR joinother


@porta.kernel
def uses_bad_reducer(i: int, acc: WritesOther, x: porta.f64[:]):
    acc.v += x[i]


@porta.workload
class BadMethod:
    x: porta.f64[:]

    @porta.kernel
    def run(self, i: int):
        self.x[i] = self.y  # ERR selfy


@porta.kernel
def simd_reads_sum(i: int, x: porta.f64[:]):
    s = 0.0
    for k in porta.simd_range(4):
        s += x[k]
        x[i] = s  # ERR simdread


@porta.kernel
def simd_step(i: int, x: porta.f64[:]):
    for k in porta.simd_range(0, 4, 2):  # ERR simdstep
        x[i] += 1.0


@porta.kernel
def simd_max_update(i: int, x: porta.f64[:]):
    s = 0.0
    for k in porta.simd_range(4):
        s /= x[k]  # ERR simdop
    x[i] = s


@porta.kernel
def acc_set_to_constant(i: int, x: porta.f64[:], s: porta.Sum[porta.f64]):
    s = 1.0  # ERR accset
    x[i] = s


@porta.kernel
def acc_max_unguarded(i: int, x: porta.f64[:], m: porta.Max[porta.f64]):
    if x[i] > 0.0:
        m = x[i]  # ERR accmax


# Assignments to an accumulator that are right: the value reads it, or an if compares with it.
@porta.kernel
def acc_max_by_call(i: int, x: porta.f64[:], m: porta.Max[porta.f64]):
    m = max(m, x[i])


@porta.kernel
def acc_max_guarded(i: int, x: porta.f64[:], m: porta.Max[porta.f64]):
    if x[i] > m:
        m = x[i]


@porta.kernel
def acc_sum_reassigned(i: int, x: porta.f64[:], s: porta.Sum[porta.f64]):
    s = s + x[i]
