"""Exercise 04 in Python, solution: hierarchical parallelism. y = A x with a team policy: one
team per block of ROWS rows, the team's threads over the rows, each thread's vector lanes over
the columns, x staged in team scratch memory, and the block's results kept in scratch.

    build/python-venv/bin/python tutorial/04_teams_scratch/python/solution/matvec.py
    PORTA_BACKEND=openmp PORTA_NUM_THREADS=2 build/python-venv/bin/python \\
        tutorial/04_teams_scratch/python/solution/matvec.py          # teams of 2 threads

The NumPy original (../begin/matvec.py):

    y = A @ x
    block_sum = [y[b * ROWS:(b + 1) * ROWS].sum() for b in range(league)]

Answer: y and block_sum equal NumPy's exactly (A and x hold small integers, so every sum is
exact in any order): sum(y)=-18 sum(|y|)=15634.
"""
import sys

import numpy as np

import porta

ROWS = 16  # rows per team: a module-level constant is copied into the generated C


# A team kernel: its first parameter is the team member t (Kokkos: the member_type argument).
@porta.kernel
def matvec(t: porta.TeamMember, A: porta.f64[:, :], x: porta.f64[:], y: porta.f64[:],
           block_sum: porta.f64[:]):
    nrows = A.shape[0]
    ncols = A.shape[1]
    row0 = t.league_rank * ROWS
    row1 = min(row0 + ROWS, nrows)
    # Team scratch (Kokkos: team.team_scratch(0)): every member gets the same arrays. Their
    # sizes are expressions of the arguments: the launch requests what the teams need.
    xs = porta.scratch(t, porta.f64, x.shape[0])
    ys = porta.scratch(t, porta.f64, ROWS)

    # 1. The whole team (every lane of every thread) copies x into scratch, then waits until
    #    all of it is there: x is read once per block instead of once per row.
    for k in porta.team_vector_range(t, ncols):
        xs[k] = x[k]
    t.team_barrier()

    # 2. The block's rows over the team's threads (Kokkos: TeamThreadRange); each row's dot
    #    product over the thread's vector lanes (ThreadVectorRange with a reduction): the
    #    annotated accumulator, then the nested loop that adds to it. After the loop `dot`
    #    holds the row's sum on every lane; a vector range of length 1 writes it once.
    for r in porta.team_thread_range(t, row0, row1):
        dot: porta.Sum[porta.f64]
        for k in porta.thread_vector_range(t, ncols):
            dot += A[r, k] * xs[k]
        for _ in porta.thread_vector_range(t, 1):
            ys[r - row0] = dot
    t.team_barrier()  # every row's result is in ys

    # 3. Out of scratch: y, and the block's sum as a team-wide reduction over every lane
    #    (Kokkos: parallel_reduce(TeamVectorRange(team, n), ...)); every member reaches it.
    for r in porta.team_vector_range(t, row0, row1):
        y[r] = ys[r - row0]
    bsum: porta.Sum[porta.f64]
    for r in porta.team_vector_range(t, row1 - row0):
        bsum += ys[r]
    if porta.single(t):  # Kokkos: single(PerTeam(team), ...)
        block_sum[t.league_rank] = bsum


def to_view(values, label):
    """A view in the default memory space holding `values` (copied through a host mirror)."""
    v = porta.View(values.shape, porta.f64, label=label)
    h = porta.create_mirror_view(v)
    np.asarray(h)[...] = values
    porta.deep_copy(v, h)
    return v


def main():
    porta.init()
    nrows, ncols = 1000, 300
    league = (nrows + ROWS - 1) // ROWS  # 63 teams; the last has 8 rows
    r, k = np.meshgrid(np.arange(nrows), np.arange(ncols), indexing="ij")
    A_host = ((r * 7 + k * 3) % 11 - 5).astype(np.float64)
    x_host = (np.arange(ncols) % 5 - 2).astype(np.float64)
    A, x = to_view(A_host, "A"), to_view(x_host, "x")
    y = porta.View(nrows, porta.f64, label="y")
    block_sum = porta.View(league, porta.f64, label="block_sum")

    # The policy: `league` teams of up to 4 threads with 8 vector lanes each. On the host a
    # team is team_size OpenMP threads (at most the thread count; Serial: 1) and the lanes are
    # a plain loop; on a GPU the threads are threadIdx.y and the lanes threadIdx.x.
    vector_length = 8
    if porta.backend() == "serial":
        team_size = 1
    elif porta.backend() == "openmp":
        team_size = max(1, min(4, porta.num_threads()))
    else:
        team_size = 4
    porta.parallel_for(porta.TeamPolicy(league, team_size, vector_length), matvec,
                       A, x, y, block_sum)

    got_y = np.asarray(porta.create_mirror_view_and_copy(y))
    got_b = np.asarray(porta.create_mirror_view_and_copy(block_sum))
    want_y = A_host @ x_host
    want_b = np.array([want_y[b * ROWS:(b + 1) * ROWS].sum() for b in range(league)])
    errors = int(np.count_nonzero(got_y != want_y) + np.count_nonzero(got_b != want_b))
    for i in np.flatnonzero(got_y != want_y)[:3]:
        print("y[%d] = %g, want %g" % (i, got_y[i], want_y[i]), file=sys.stderr)
    for b in np.flatnonzero(got_b != want_b)[:3]:
        print("block_sum[%d] = %g, want %g" % (b, got_b[b], want_b[b]), file=sys.stderr)
    total, total_abs = float(got_y.sum()), float(np.abs(got_y).sum())
    ok = errors == 0 and total == -18.0 and total_abs == 15634.0
    print("04_teams_scratch: backend=%s threads=%d league=%d team_size=%d vector_length=%d "
          "sum(y)=%.0f sum(|y|)=%.0f errors=%d %s"
          % (porta.backend(), porta.num_threads(), league, team_size, vector_length, total,
             total_abs, errors, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
