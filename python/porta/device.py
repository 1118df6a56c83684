"""What kernels call inside their bodies (docs/python.md, "Teams", "Atomics"): the team
member annotation, nested ranges, barriers, scratch and atomics. Each is translated to the
Porta C that a C kernel writes (PORTA_TEAM_THREAD_RANGE, porta_team_barrier,
porta_team_scratch, porta_atomic_fetch_add_f64 ...); called from Python they raise, since
they mean something only inside a kernel launch.
"""

AUTO = -1
"""porta.TeamPolicy(league, porta.AUTO): the back end chooses the team size (PORTA_AUTO)."""


class TeamMember:
    """Annotation of a team kernel's first parameter (t: porta.TeamMember): t.league_rank,
    t.league_size, t.team_rank, t.team_size, t.vector_length (attributes, or called as
    methods like Kokkos's), t.team_barrier()."""


TEAM_ATTRS = {
    # attribute: (C expression of the porta_team *pk_team, Python type name)
    "league_rank": "pk_team->league_rank",
    "league_size": "pk_team->league_size",
    "team_rank": "(int64_t)pk_team->team_rank",
    "team_size": "(int64_t)pk_team->team_size",
    "vector_length": "(int64_t)pk_team->vector_length",
}

# Nested ranges: name -> the Porta C loop macro (for-loops over them).
RANGES = {
    "team_thread_range": "PORTA_TEAM_THREAD_RANGE",
    "thread_vector_range": "PORTA_THREAD_VECTOR_RANGE",
    "team_vector_range": "PORTA_TEAM_VECTOR_RANGE",
}
# ... and the macro of the same loop when it reduces into an accumulator.
RANGE_REDUCE = {
    "team_thread_range": "PORTA_TEAM_THREAD_REDUCE",
    "thread_vector_range": "PORTA_THREAD_VECTOR_REDUCE",
    "team_vector_range": "PORTA_TEAM_VECTOR_REDUCE",
}

# Atomics: name -> (Porta C operation, what it returns: None, "old" or "new", argument count).
ATOMICS = {}
for _op in ("add", "sub", "min", "max"):
    ATOMICS["atomic_" + _op] = (_op, None, 3)
    ATOMICS["atomic_fetch_" + _op] = ("fetch_" + _op, "old", 3)
    ATOMICS["atomic_%s_fetch" % _op] = (_op + "_fetch", "new", 3)
ATOMICS["atomic_exchange"] = ("exchange", "old", 3)
ATOMICS["atomic_compare_exchange"] = ("compare_exchange", "old", 4)
ATOMICS["atomic_load"] = ("load", "old", 2)
ATOMICS["atomic_store"] = ("store", None, 3)
ATOMIC_DTYPES = ("f64", "f32", "i64", "i32")


def _intrinsic(name, doc):
    def f(*args, **kwargs):
        raise TypeError("porta.%s is used inside a Porta kernel (@porta.kernel), not called "
                        "from Python" % name)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    f._porta_intrinsic = name
    return f


team_thread_range = _intrinsic(
    "team_thread_range", "for j in porta.team_thread_range(t, [begin,] end): [begin, end) "
    "split over the team's threads (PORTA_TEAM_THREAD_RANGE).")
thread_vector_range = _intrinsic(
    "thread_vector_range", "for k in porta.thread_vector_range(t, [begin,] end): over the "
    "calling thread's vector lanes (PORTA_THREAD_VECTOR_RANGE).")
team_vector_range = _intrinsic(
    "team_vector_range", "for k in porta.team_vector_range(t, [begin,] end): over every lane "
    "of every thread of the team (PORTA_TEAM_VECTOR_RANGE).")
team_barrier = _intrinsic("team_barrier", "porta.team_barrier(t): porta_team_barrier.")
scratch = _intrinsic(
    "scratch", "a = porta.scratch(t, porta.f64, n | (n0, n1), level=0): team-shared scratch "
    "(porta_team_scratch); the launch requests its size from the kernel's arguments.")
thread_scratch = _intrinsic(
    "thread_scratch", "a = porta.thread_scratch(t, porta.f64, n, level=0): this thread's "
    "scratch (porta_thread_scratch).")
single_per_thread = _intrinsic(
    "single_per_thread", "if porta.single_per_thread(t): runs on one vector lane of each "
    "thread (PORTA_SINGLE_PER_THREAD).")
simd_range = _intrinsic(
    "simd_range", "for k in porta.simd_range([begin,] end): a sequential loop inside one "
    "index of a kernel that the CPU may vectorise (omp simd on the host back ends, a plain loop "
    "on a GPU); locals updated with += or -= (*=) in it are summed (multiplied) per lane and "
    "combined after the loop, so the order of that sum differs from a plain loop's.")
single = _intrinsic("single", "if porta.single(t): runs on one thread of the team "
                    "(PORTA_SINGLE_PER_TEAM).")

INTRINSICS = {"team_thread_range": team_thread_range, "thread_vector_range": thread_vector_range,
              "team_vector_range": team_vector_range, "team_barrier": team_barrier,
              "scratch": scratch, "thread_scratch": thread_scratch, "single": single,
              "single_per_thread": single_per_thread, "simd_range": simd_range}
for _name, (_op, _ret, _n) in ATOMICS.items():
    INTRINSICS[_name] = _intrinsic(
        _name, "porta.%s(a, index, %s): porta_atomic_%s_<type> on the element a[index] "
        "(index: an int, or a tuple of one per dimension)%s."
        % (_name, "expected, desired" if _n == 4 else ("" if _n == 2 else "value"), _op,
           "" if _ret is None else "; returns the %s value" % _ret))
globals().update(INTRINSICS)
