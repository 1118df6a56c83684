"""What kernels call inside their bodies (docs/python.md, "Teams", "Atomics"): the team
member annotation, nested ranges, barriers, scratch and atomics. Each is translated to the
Porta C that a C kernel writes (PORTA_TEAM_THREAD_RANGE, porta_team_barrier,
porta_team_scratch, porta_atomic_fetch_add_f64 ...); called from Python they raise, since
they mean something only inside a kernel launch.
"""
from .translate_intrinsics import PORTA_CALLS

AUTO = -1
"""porta.TeamPolicy(league, porta.AUTO): the back end chooses the team size (PORTA_AUTO)."""


class TeamMember:
    """Annotation of a team kernel's first parameter (t: porta.TeamMember): t.league_rank,
    t.league_size, t.team_rank, t.team_size, t.vector_length (attributes, or called as
    methods like Kokkos's), t.team_barrier()."""



def _intrinsic(name, doc):
    def f(*args, **kwargs):
        raise TypeError("porta.%s is used inside a Porta kernel (@porta.kernel), not called "
                        "from Python" % name)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    f._porta_intrinsic = name
    return f


# porta.team_thread_range, porta.scratch, porta.atomic_add ... (translate_intrinsics.py)
INTRINSICS = {_name: _intrinsic(_name, _doc) for _name, _doc in PORTA_CALLS.items()}
globals().update(INTRINSICS)
