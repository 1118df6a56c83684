"""A sparse matrix-vector product y = A x with team policies and scratch memory, written in
Python, run by Porta on the back end chosen at run time, and checked against NumPy.

    build/python-venv/bin/python examples/python/spmv_team.py [--porta-backend=serial]

Each team of the league takes a block of ROWS rows. The team's threads first copy the
block's row pointers into team scratch (fast memory shared by the team, level 0), wait at a
barrier, then reduce each row's products together (a nested reduction over
team_thread_range). The kernel is the C kernel written with PORTA_TEAM_FOR,
porta_team_scratch, porta_team_barrier and PORTA_TEAM_THREAD_REDUCE.
"""
import sys

import numpy as np

import porta

ROWS = 16  # rows per team: a module-level constant is copied into the generated C


# A team kernel: its first parameter is the team member. The scratch array's size is an
# expression of the arguments, so each launch requests exactly what its teams need.
@porta.kernel
def spmv(t: porta.TeamMember, nrows: porta.i64, row_ptr: porta.i64[:], cols: porta.i32[:],
         vals: porta.f64[:], x: porta.f64[:], y: porta.f64[:]):
    ptr = porta.scratch(t, porta.i64, ROWS + 1)
    first = t.league_rank * ROWS
    for k in porta.team_thread_range(t, ROWS + 1):  # split over the team's threads
        ptr[k] = row_ptr[min(first + k, nrows)]
    t.team_barrier()  # every pointer is in scratch before anyone reads them
    for r in range(ROWS):
        if first + r < nrows:
            s: porta.Sum[porta.f64]  # an accumulator: the nested loop below reduces into it
            for k in porta.team_thread_range(t, ptr[r], ptr[r + 1]):
                s += vals[k] * x[cols[k]]
            if porta.single(t):  # s holds the row's sum on every thread; one writes it
                y[first + r] = s


def laplacian_csr(n):
    """The 2D 5-point Laplacian on an n x n grid, in CSR (NumPy arrays)."""
    rows, cols, vals = [], [], []
    for i in range(n):
        for j in range(n):
            r = i * n + j
            for di, dj, v in ((0, 0, 4.0), (-1, 0, -1.0), (1, 0, -1.0), (0, -1, -1.0),
                              (0, 1, -1.0)):
                if 0 <= i + di < n and 0 <= j + dj < n:
                    rows.append(r)
                    cols.append((i + di) * n + j + dj)
                    vals.append(v)
    rows = np.array(rows)
    row_ptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n * n))])
    return row_ptr.astype(np.int64), np.array(cols, dtype=np.int32), np.array(vals)


def main():
    porta.init()
    n = 60
    row_ptr, cols, vals = laplacian_csr(n)
    nrows = n * n
    x = np.random.default_rng(1).random(nrows)
    y = np.zeros(nrows)
    league = (nrows + ROWS - 1) // ROWS
    porta.parallel_for(porta.TeamPolicy(league, porta.AUTO), spmv, nrows, row_ptr, cols, vals,
                       x, y)
    dense = np.zeros((nrows, nrows))  # the same product with NumPy
    for r in range(nrows):
        dense[r, cols[row_ptr[r]:row_ptr[r + 1]]] = vals[row_ptr[r]:row_ptr[r + 1]]
    ok = np.allclose(y, dense @ x, rtol=1e-13, atol=1e-13)
    print("spmv_team: backend=%s threads=%d |y|=%.6f %s"
          % (porta.backend(), porta.num_threads(), np.linalg.norm(y), "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
